import { keepPreviousData, queryOptions } from '@tanstack/react-query'
import { z } from 'zod'
import { api } from '@/lib/api-client'
import { historyKeys } from '../history-keys'

/** Presence flags: `true` or the query-string form `"true"`. */
const flag = z
  .union([z.boolean(), z.string(), z.null()])
  .optional()
  .transform((v) => v === true || v === 'true')

/** Ids arrive as numbers or strings, as a list or comma-separated; the dashboard keeps string lists. */
const oneOrMany = z
  .union([z.string(), z.number(), z.array(z.union([z.string(), z.number()]))])
  .nullish()
  .transform((v) => (v == null ? [] : Array.isArray(v) ? v.map(String) : String(v).split(',').filter(Boolean)))

export const historyFiltersSchema = z
  .object({
    countries: oneOrMany,
    category: oneOrMany,
    level1_location: oneOrMany,
    level2_location: oneOrMany,
    level3_location: oneOrMany,
    email: flag,
    phone_number: flag,
    website: flag,
    main_activity_only: flag,
  })
  .catch({
    countries: [],
    category: [],
    level1_location: [],
    level2_location: [],
    level3_location: [],
    email: false,
    phone_number: false,
    website: false,
    main_activity_only: false,
  })
export type HistoryFilters = z.infer<typeof historyFiltersSchema>

export const historyEntrySchema = z.object({
  search_id: z.coerce.number().int(),
  filters: historyFiltersSchema,
  created_at: z.string(),
  status: z.string().catch('PENDING'),
  lead_count: z.number().nullish().transform((v) => v ?? 0),
  credits_charged: z.number().nullish().transform((v) => v ?? 0),
  export_format: z.string().nullish(),
  capped: z.boolean().nullish().transform((v) => v ?? false),
  expires_at: z.string().nullish(),
  max_leads: z.number().nullish(),
  delta_of: z.coerce.number().nullish(),
  filename: z.string().nullish(),
  file_size_bytes: z.number().nullish(),
})
export type HistoryEntry = z.infer<typeof historyEntrySchema>

export const historyPageSchema = z.object({
  count: z.number().int(),
  next: z.string().nullish(),
  previous: z.string().nullish(),
  results: z.array(historyEntrySchema),
})
export type HistoryPage = z.infer<typeof historyPageSchema>

export function getSearchHistory(page: number, pageSize: number, { signal }: { signal?: AbortSignal } = {}) {
  return api('/api/user/search-history', { query: { page, page_size: pageSize }, schema: historyPageSchema, signal })
}

export const searchHistoryOptions = (page: number, pageSize: number) =>
  queryOptions({
    queryKey: historyKeys.list(page, pageSize),
    queryFn: ({ signal }) => getSearchHistory(page, pageSize, { signal }),
    placeholderData: keepPreviousData,
    // statuses of running exports change under us; a page is cheap to re-ask
    refetchInterval: (q) =>
      q.state.data?.results.some((e) => exportPhase(e.status) === 'running') ? 5_000 : false,
  })

export type ExportPhase = 'completed' | 'failed' | 'running'

/** Statuses come in any letter case; anything unknown is still running (decisions.md). */
export function exportPhase(status: string): ExportPhase {
  const s = status.toLowerCase()
  if (s === 'completed') return 'completed'
  if (s === 'failed') return 'failed'
  return 'running'
}
