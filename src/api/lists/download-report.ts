import { useMutation } from '@tanstack/react-query'
import { failure, listUrl, withToken } from './with-token'

/** The name in Content-Disposition (`filename="…"`), else the service's usual one. */
function filenameOf(disposition: string | null, listId: string): string {
  const m = disposition && /filename="?([^";]+)"?/i.exec(disposition)
  return m?.[1] ?? `list-${listId}-report.csv`
}

/**
 * GET /api/lists/{id}/report.csv: the rows with their match and confidence. Read with the token in
 * the Authorization header and saved from a blob: a link would have to carry the token in its address.
 */
export async function downloadReport(listId: string): Promise<void> {
  const requestId = crypto.randomUUID()
  const res = await withToken((authorization) =>
    fetch(listUrl(listId, 'report.csv'), { headers: { Authorization: authorization, 'X-Request-ID': requestId } }),
  )
  if (!res.ok) throw await failure(res.status, await res.text(), requestId)
  const blob = await res.blob()
  const href = URL.createObjectURL(blob)
  const a = document.createElement('a')
  a.href = href
  a.download = filenameOf(res.headers.get('Content-Disposition'), listId)
  document.body.append(a)
  a.click()
  a.remove()
  // the browser has taken the file once the click is handled; the next task may let the blob go
  setTimeout(() => URL.revokeObjectURL(href), 0)
}

export const useDownloadReport = () => useMutation({ mutationFn: downloadReport })
