import { useMutation } from '@tanstack/react-query'
import { useState } from 'react'
import { useNavigate } from 'react-router'
import { getDownload, startBrowserDownload } from '@/api/exports/get-download'
import { useRetryExport } from '@/api/exports/retry-export'
import type { HistoryEntry } from '@/api/history/get-search-history'
import { paths } from '@/config/paths'
import { ApiError } from '@/lib/api-client'
import { historyPhase } from '../history-filters'

/**
 * What one export offers (download again, retry) and what History knows of it, shared by its card
 * and its table row so that both read the same state (a 410 seen in the row expires the details too).
 */
export function useEntryActions(entry: HistoryEntry, now?: number) {
  const navigate = useNavigate()
  // asked at the moment of the click, never cached: the signed URL is time-limited (interface 3.3)
  const download = useMutation({ mutationFn: (searchId: string) => getDownload(searchId) })
  const retry = useRetryExport()
  // the service is the judge of expiry (its clock may differ from ours): a 410 counts as expired
  const [gone, setGone] = useState(false)
  const [renderedAt] = useState(() => now ?? Date.now())

  const phase = historyPhase(entry.status)
  const expiresAt = entry.expires_at ? new Date(entry.expires_at) : null
  const expired = phase === 'completed' && (gone || (expiresAt !== null && expiresAt.getTime() <= renderedAt))

  const onDownload = () =>
    download.mutate(entry.search_id, {
      onSuccess: (d) => startBrowserDownload(d, entry.search_id),
      onError: (e) => {
        if (e instanceof ApiError && e.status === 410) setGone(true)
      },
    })
  const onRetry = () => retry.mutate(entry.search_id, { onSuccess: (r) => navigate(paths.exportJob(r.search_id)) })
  // a 410 is shown as the expiry it is, not as an error
  const downloadFailed = download.isError && !(download.error instanceof ApiError && download.error.status === 410)

  return { phase, expiresAt, expired, download, downloadFailed, onDownload, retry, onRetry }
}

export type EntryActions = ReturnType<typeof useEntryActions>
