import { queryOptions } from '@tanstack/react-query'
import { z } from 'zod'
import { api, ApiError } from '@/lib/api-client'
import { exportKeys } from '../export-keys'
import { pollInterval } from '../status'

export const exportStatusSchema = z.looseObject({
  search_id: z.union([z.number(), z.string()]).transform(String),
  status: z.string().nullish().transform((s) => s ?? ''),
  progress: z.number().nullish(),
  processed_count: z.number().nullish(),
  lead_count: z.number().nullish(),
  error: z.string().nullish(),
})
export type ExportStatus = z.infer<typeof exportStatusSchema>

export const getExportStatus = (searchId: string, signal?: AbortSignal) =>
  api(`/api/download-status/${encodeURIComponent(searchId)}`, { schema: exportStatusSchema, signal })

/**
 * Polls every 2 s until COMPLETED/FAILED, backing off after failed polls; React Query pauses the
 * interval in hidden tabs (refetchIntervalInBackground is off).
 */
export const exportStatusOptions = (searchId: string) =>
  queryOptions({
    queryKey: exportKeys.status(searchId),
    queryFn: ({ signal }) => getExportStatus(searchId, signal),
    staleTime: 0,
    refetchInterval: (query) => {
      const err = query.state.error
      if (err instanceof ApiError && err.status === 404) return false
      return pollInterval(query.state.data?.status, query.state.fetchFailureCount)
    },
  })
