import { queryOptions } from '@tanstack/react-query'
import { z } from 'zod/mini'
import { api } from '@/lib/api-client'
import { env } from '@/config/env'
import { exportKeys } from '../export-keys'

export const downloadSchema = z.looseObject({
  download_url: z.string().check(z.minLength(1)),
  filename: z.nullish(z.string()),
  file_size_bytes: z.nullish(z.number()),
  file_size_mb: z.nullish(z.number()),
  expires_at: z.nullish(z.string()),
})
export type DownloadDescriptor = z.infer<typeof downloadSchema>

export const getDownload = (searchId: string, signal?: AbortSignal) =>
  api(`/api/download-completed-csv/${encodeURIComponent(searchId)}`, { schema: downloadSchema, signal })

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
