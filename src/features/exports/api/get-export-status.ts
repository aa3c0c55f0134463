import { queryOptions } from '@tanstack/react-query'
import { z } from 'zod/mini'
import { api, ApiError } from '@/lib/api-client'
import { exportKeys } from '../export-keys'
import { pollInterval } from '../status'
import { searchIdSchema } from './schemas'

export const exportStatusSchema = z.looseObject({
  search_id: searchIdSchema,
  status: z.pipe(z.nullish(z.string()), z.transform((s) => s ?? '')),
  progress: z.nullish(z.number()),
  processed_count: z.nullish(z.number()),
  lead_count: z.nullish(z.number()),
  error: z.nullish(z.string()),
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
