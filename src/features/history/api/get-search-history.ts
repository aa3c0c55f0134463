import { keepPreviousData, queryOptions } from '@tanstack/react-query'
import { z } from 'zod/mini'
import { api } from '@/lib/api-client'
import { historyKeys } from '../history-keys'

/** Presence flags: `true` or the query-string form `"true"`. */
const flag = z.pipe(
  z.optional(z.union([z.boolean(), z.string(), z.null()])),
  z.transform((v) => v === true || v === 'true'),
)

/** Ids arrive as numbers or strings, as a list or comma-separated; the dashboard keeps string lists. */
const oneOrMany = z.pipe(
  z.nullish(z.union([z.string(), z.number(), z.array(z.union([z.string(), z.number()]))])),
  z.transform((v) => (v == null ? [] : Array.isArray(v) ? v.map(String) : String(v).split(',').filter(Boolean))),
)

/** Missing or null counts and flags become 0 / false. */
const orZero = z.pipe(z.nullish(z.number()), z.transform((v) => v ?? 0))

export const historyFiltersSchema = z.catch(
  z.object({
    countries: oneOrMany,
    category: oneOrMany,
    level1_location: oneOrMany,
    level2_location: oneOrMany,
    level3_location: oneOrMany,
    email: flag,
    phone_number: flag,
    website: flag,
    main_activity_only: flag,
  }),
  {
    countries: [],
    category: [],
    level1_location: [],
    level2_location: [],
    level3_location: [],
    email: false,
    phone_number: false,
    website: false,
    main_activity_only: false,
  },
)
export type HistoryFilters = z.infer<typeof historyFiltersSchema>

export const historyEntrySchema = z.object({
  search_id: z.coerce.number().check(z.int()),
  filters: historyFiltersSchema,
  created_at: z.string(),
  status: z.catch(z.string(), 'PENDING'),
  lead_count: orZero,
  credits_charged: orZero,
  export_format: z.nullish(z.string()),
  capped: z.pipe(z.nullish(z.boolean()), z.transform((v) => v ?? false)),
  expires_at: z.nullish(z.string()),
  max_leads: z.nullish(z.number()),
  delta_of: z.nullish(z.coerce.number()),
  filename: z.nullish(z.string()),
  file_size_bytes: z.nullish(z.number()),
  /** Extension `watched_searches`: the search's name and whether the account follows it. */
  name: z.nullish(z.string()),
  watched: z.pipe(z.nullish(z.boolean()), z.transform((v) => v ?? false)),
})
export type HistoryEntry = z.infer<typeof historyEntrySchema>

export const historyPageSchema = z.object({
  count: z.number().check(z.int()),
  next: z.nullish(z.string()),
  previous: z.nullish(z.string()),
  results: z.array(historyEntrySchema),
})
export type HistoryPage = z.infer<typeof historyPageSchema>

export function getSearchHistory(page: number, pageSize: number, { signal, watched = false }: { signal?: AbortSignal; watched?: boolean } = {}) {
  return api('/api/user/search-history', {
    // `watched` (extension watched_searches) is only sent when asked: the interface's service knows no such parameter
    query: { page, page_size: pageSize, ...(watched ? { watched: 'true' } : {}) },
    schema: historyPageSchema,
    signal,
  })
}

export const searchHistoryOptions = (page: number, pageSize: number, { watched = false }: { watched?: boolean } = {}) =>
  queryOptions({
    queryKey: historyKeys.list(page, pageSize, watched),
    queryFn: ({ signal }) => getSearchHistory(page, pageSize, { signal, watched }),
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
