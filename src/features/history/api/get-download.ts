import { useMutation } from '@tanstack/react-query'
import { z } from 'zod/mini'
import { api } from '@/lib/api-client'

export const downloadDescriptorSchema = z.object({
  download_url: z.string(),
  filename: z.string(),
  file_size_bytes: z.nullish(z.number()),
  file_size_mb: z.nullish(z.number()),
  expires_at: z.nullish(z.string()),
})
export type DownloadDescriptor = z.infer<typeof downloadDescriptorSchema>

/**
 * Asked at the moment of the click, never cached: the signed URL is time-limited and the service
 * answers 410 once `expires_at` has passed (interface 3.3).
 */
export function getDownload(searchId: number, { signal }: { signal?: AbortSignal } = {}) {
  return api(`/api/download-completed-csv/${searchId}`, { schema: downloadDescriptorSchema, signal })
}

export function useDownloadLink() {
  return useMutation({ mutationFn: (searchId: number) => getDownload(searchId) })
}

/** Starts the browser's download of the signed URL under the file's own name. */
export function startBrowserDownload(d: DownloadDescriptor) {
  const a = document.createElement('a')
  a.href = d.download_url
  a.download = d.filename
  a.rel = 'noopener'
  document.body.append(a)
  a.click()
  a.remove()
}
