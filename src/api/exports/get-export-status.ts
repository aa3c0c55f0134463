import { queryOptions } from '@tanstack/react-query'
import { z } from 'zod/mini'
import { api, ApiError, lazySchema } from '@/lib/api-client'
import { pollInterval } from '@/domain/export-status'
import { exportKeys } from './keys'
import { looseNumber, looseText } from '../schemas'

/**
 * `GET /api/download-status/{search_id}/` (interface 4.2): only `status` is promised. The rest is the
 * reference's progress (decisions.md) and optional: `{status}` alone is a whole answer.
 */
export const exportStatusSchema = lazySchema(() =>
  z.looseObject({
    status: z.pipe(
      z.catch(z.nullish(z.string()), ''),
      z.transform((s) => s ?? ''),
    ),
    progress: looseNumber(),
    processed_count: looseNumber(),
    lead_count: looseNumber(),
    error: looseText(),
  }),
)
export type ExportStatus = z.output<ReturnType<typeof exportStatusSchema>>

export const getExportStatus = (searchId: string, signal?: AbortSignal) =>
  api(`/api/download-status/${encodeURIComponent(searchId)}/`, { schema: exportStatusSchema, signal })

/**
 * Polls every 2 s until the export has ended, backing off after failed polls and while the status
 * is a word the dashboard does not know; React Query pauses the interval in hidden tabs.
 */
export const exportStatusOptions = (searchId: string) =>
  queryOptions({
    queryKey: exportKeys.status(searchId),
    queryFn: ({ signal }) => getExportStatus(searchId, signal),
    staleTime: 0,
    refetchInterval: (query) => {
      const err = query.state.error
      if (err instanceof ApiError && err.status === 404) return false
      return pollInterval(query.state.data?.status, query.state.fetchFailureCount, query.state.dataUpdateCount)
    },
  })
