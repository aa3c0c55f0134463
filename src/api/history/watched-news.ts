import { useQueries, useQuery } from '@tanstack/react-query'
import { z } from 'zod/mini'
import { api } from '@/lib/api-client'
import { useCapabilityInfo } from '@/api/capabilities/get-capabilities'
import { historyKeys } from '@/api/history/keys'
import { requestDelta, type DeltaResult } from '@/api/history/delta-request'

/**
 * Named and watched searches (issue 12, extension `watched_searches`). For each watched search the
 * dashboard asks the free fresh-data dry run how many leads are new since its last export: when the
 * dashboard opens, then at most every WATCH_CHECK_MS, and for at most the service's limit of watched
 * searches (20): bounded in requests, never charged. The navigation badge uses this module on every
 * page, so it stays light: no mutation code, a list schema of the three fields it reads.
 */
export const WATCH_CHECK_MS = 5 * 60_000
export const DEFAULT_WATCH_LIMIT = 20

/** The extension's limits: undefined while asking, null when the service lacks it. */
export function useWatchedSearchesInfo(): { limit: number; nameMax: number } | null | undefined {
  const info = useCapabilityInfo('watched_searches')
  if (!info) return info
  const limit = typeof info.limit === 'number' ? info.limit : DEFAULT_WATCH_LIMIT
  const nameMax = typeof info.name_max_length === 'number' ? info.name_max_length : 80
  return { limit, nameMax }
}

const watchedListSchema = z.object({
  results: z.array(
    z.object({
      search_id: z.pipe(z.union([z.number(), z.string()]), z.transform(String)),
      status: z.catch(z.string(), ''),
      watched: z.optional(z.boolean()),
    }),
  ),
})

export const freshDryRunOptions = (searchId: string) => ({
  queryKey: historyKeys.freshDryRun(searchId),
  // dry_run: validates only, charges nothing (decisions.md)
  queryFn: () => requestDelta(searchId, true),
  staleTime: WATCH_CHECK_MS,
  refetchInterval: WATCH_CHECK_MS,
  retry: false,
})

/** New leads a dry run found: only a verdict the person could act on counts. */
export const newLeadsOf = (verdict: DeltaResult | undefined): number =>
  verdict && verdict.validation_code === 'ok' && verdict.lead_count > 0 ? verdict.lead_count : 0

export interface WatchedNews {
  /** search_id → new leads (0 when nothing new; missing while checking). */
  bySearch: Map<string, number>
  total: number
  watchedCount: number
}

/** Every watched search and what its dry run found; nothing is asked when the service lacks the extension. */
export function useWatchedNews(): WatchedNews {
  const info = useWatchedSearchesInfo()
  const limit = info?.limit ?? DEFAULT_WATCH_LIMIT
  const list = useQuery({
    queryKey: historyKeys.watched(limit),
    queryFn: ({ signal }) =>
      api('/api/user/search-history/', { query: { page: 1, page_size: limit, watched: 'true' }, schema: watchedListSchema, signal }),
    enabled: Boolean(info),
    staleTime: WATCH_CHECK_MS,
    refetchInterval: WATCH_CHECK_MS,
  })
  const watched = info ? (list.data?.results ?? []).filter((e) => e.watched !== false) : []
  const ids = watched.filter((e) => e.status.toUpperCase() === 'COMPLETED').map((e) => e.search_id)
  const checks = useQueries({ queries: ids.map(freshDryRunOptions) })
  const bySearch = new Map<string, number>()
  ids.forEach((id, i) => {
    const data = checks[i]?.data
    if (data) bySearch.set(id, newLeadsOf(data))
  })
  let total = 0
  for (const n of bySearch.values()) total += n
  return { bySearch, total, watchedCount: watched.length }
}
