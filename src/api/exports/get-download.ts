import { queryOptions } from '@tanstack/react-query'
import { z } from 'zod/mini'
import { api, lazySchema } from '@/lib/api-client'
import { env } from '@/config/env'
import { exportKeys } from './keys'
import { looseDateTime, looseNumber, looseText } from '../schemas'

/**
 * The download descriptor (interface 2.4). Only the link itself is needed to download; the name,
 * sizes and expiry are shown when they come and readable (an unreadable `expires_at` is left out).
 */
export const downloadSchema = lazySchema(() =>
  z.looseObject({
    download_url: z.string().check(z.minLength(1)),
    filename: looseText(),
    file_size_bytes: looseNumber(),
    file_size_mb: looseNumber(),
    expires_at: looseDateTime(),
  }),
)
export type DownloadDescriptor = z.output<ReturnType<typeof downloadSchema>>

/** The one client of `GET /api/download-completed-csv/{search_id}/`: 410 once the link has expired (interface 3.3). */
export const getDownload = (searchId: string, signal?: AbortSignal) =>
  api(`/api/download-completed-csv/${encodeURIComponent(searchId)}/`, { schema: downloadSchema, signal })

/** The signed link expires: never reuse an old descriptor for long. */
export const downloadOptions = (searchId: string) =>
  queryOptions({
    queryKey: exportKeys.download(searchId),
    queryFn: ({ signal }) => getDownload(searchId, signal),
    staleTime: 60_000,
  })

/** A relative link is relative to the service, which may live on another origin (VITE_API_BASE_URL). */
export function absoluteDownloadUrl(url: string): string {
  const base = env.VITE_API_BASE_URL || window.location.origin
  return new URL(url, base.endsWith('/') ? base : `${base}/`).toString()
}

/**
 * The file's size in bytes: `file_size_bytes`, else `file_size_mb` read as 2^20 bytes (the reference
 * divides by 1024 × 1024, as Django code commonly does), else unknown.
 */
export function downloadSize(d: Pick<DownloadDescriptor, 'file_size_bytes' | 'file_size_mb'>): number | null {
  if (d.file_size_bytes !== undefined) return d.file_size_bytes
  if (d.file_size_mb !== undefined) return Math.round(d.file_size_mb * 1024 * 1024)
  return null
}

/** The name the file is saved under when the service gave none. */
export const fallbackFilename = (searchId: string) => `export-${searchId}`

/**
 * Starts the browser's download of the signed URL, asked at the moment of the click (the link is
 * time-limited). The service names the file with Content-Disposition; `download` is a hint.
 */
export function startBrowserDownload(d: DownloadDescriptor, searchId: string) {
  const a = document.createElement('a')
  a.href = absoluteDownloadUrl(d.download_url)
  a.download = d.filename ?? fallbackFilename(searchId)
  a.rel = 'noopener'
  document.body.append(a)
  a.click()
  a.remove()
}
