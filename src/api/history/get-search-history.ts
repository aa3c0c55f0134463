import { keepPreviousData, queryOptions } from '@tanstack/react-query'
import { z } from 'zod/mini'
import { getExportStatus } from '@/api/exports/get-export-status'
import { api, ApiError } from '@/lib/api-client'
import { readLocalExports } from '@/lib/local-exports'
import { historyKeys } from '@/api/history/keys'
import { looseDateTime, looseNumber, looseText, opaqueId } from '@/api/schemas'
import { exportPhase } from '@/domain/export-status'

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
const orZero = z.pipe(
  looseNumber(),
  z.transform((v) => v ?? 0),
)

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
    // extension `geo`: the search's territory as the service stores it (a GeoJSON geometry; a point and
    // radius), kept so that "Edit in search" and fresh data keep it; a shape that does not parse is dropped
    within: z.catch(z.optional(z.looseObject({ type: z.string(), coordinates: z.array(z.unknown()) })), undefined),
    near: z.catch(z.optional(z.object({ lat: z.number(), lng: z.number(), radius_km: z.number() })), undefined),
    // extension `lists`: the lists whose businesses the search left out
    exclude_lists: oneOrMany,
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
    exclude_lists: [],
  },
)
export type HistoryFilters = z.infer<typeof historyFiltersSchema>

export const historyEntrySchema = z.object({
  search_id: opaqueId(),
  filters: historyFiltersSchema,
  created_at: z.string(),
  status: z.catch(z.string(), 'PENDING'),
  lead_count: orZero,
  credits_charged: orZero,
  export_format: z.nullish(z.string()),
  capped: z.pipe(
    z.nullish(z.boolean()),
    z.transform((v) => v ?? false),
  ),
  // an unreadable date is left out rather than shown as "Invalid Date" (or thrown in render)
  expires_at: looseDateTime(),
  max_leads: looseNumber(),
  delta_of: z.catch(z.nullish(opaqueId()), undefined),
  filename: looseText(),
  file_size_bytes: looseNumber(),
  /** Extension `watched_searches`: the search's name and whether the account follows it. */
  name: z.nullish(z.string()),
  watched: z.pipe(
    z.nullish(z.boolean()),
    z.transform((v) => v ?? false),
  ),
  /** Extension `lists`: an export that fills in this list of the account ("Fill in my list"), not a search. */
  list: z.catch(z.optional(z.looseObject({ id: opaqueId(), name: z.string() })), undefined),
})
export type HistoryEntry = z.infer<typeof historyEntrySchema>

export const historyPageSchema = z.object({
  count: z.number().check(z.int()),
  next: z.nullish(z.string()),
  previous: z.nullish(z.string()),
  results: z.array(historyEntrySchema),
})
/** `browser`: the service has no list (404) and these are the exports started in this browser. */
export type HistoryPage = z.infer<typeof historyPageSchema> & { source: 'service' | 'browser' }

/**
 * Extension `history_search`: the list narrowed by the service, which then pages and counts the
 * matches. Sent only to a service that lists the extension: the interface has no such parameters.
 */
export interface HistorySearchParams {
  q: string
  /** ISO 3166 alpha-2; '' for every country. */
  country: string
  /** Export statuses as the service writes them (PENDING, PROCESSING, COMPLETED, FAILED); empty for all. */
  statuses: readonly string[]
}

/** The parameters a history search sends: only the parts it has. */
const searchQuery = (search: HistorySearchParams | undefined) => ({
  ...(search?.q.trim() ? { q: search.q.trim() } : {}),
  ...(search?.country ? { country: search.country } : {}),
  ...(search?.statuses.length ? { status: search.statuses.join(',') } : {}),
})

/**
 * A page of past exports. The list is the reference's (decisions.md), not the interface's: a
 * service without it answers 404, and then the page comes from this browser's own record of the
 * account's exports (lib/local-exports.ts), each with its status asked from the interface's
 * `download-status`.
 */
export async function getSearchHistory(
  page: number,
  pageSize: number,
  {
    signal,
    watched = false,
    account,
    search,
  }: { signal?: AbortSignal; watched?: boolean; account?: string | undefined; search?: HistorySearchParams | undefined } = {},
): Promise<HistoryPage> {
  try {
    const answer = await api('/api/user/search-history/', {
      // `watched` (extension watched_searches) is only sent when asked: the interface's service knows no such parameter
      query: { page, page_size: pageSize, ...(watched ? { watched: 'true' } : {}), ...searchQuery(search) },
      schema: historyPageSchema,
      signal,
    })
    return { ...answer, source: 'service' }
  } catch (e) {
    if (!(e instanceof ApiError && e.status === 404) || watched || search || account === undefined) throw e
    return localHistoryPage(account, page, pageSize, signal)
  }
}

async function localHistoryPage(account: string, page: number, pageSize: number, signal?: AbortSignal): Promise<HistoryPage> {
  const all = readLocalExports(account)
  const slice = all.slice((page - 1) * pageSize, page * pageSize)
  const results = await Promise.all(
    slice.map(async (local): Promise<HistoryEntry> => {
      // a status that cannot be asked now leaves the entry as "running": History asks again shortly
      const status = await getExportStatus(local.search_id, signal).catch((err: unknown) => {
        if (signal?.aborted) throw err
        return undefined
      })
      return historyEntrySchema.parse({
        ...local,
        status: status?.status ?? '',
        lead_count: local.lead_count ?? status?.lead_count,
        capped: local.max_leads !== null,
      })
    }),
  )
  return { count: all.length, next: null, previous: null, results, source: 'browser' }
}

export const searchHistoryOptions = (
  page: number,
  pageSize: number,
  { watched = false, account, search }: { watched?: boolean; account?: string | undefined; search?: HistorySearchParams } = {},
) =>
  queryOptions({
    // the key holds the search as sent, so a new one is a new query and React Query aborts the one it replaces
    queryKey: historyKeys.list(page, pageSize, watched, account, searchQuery(search)),
    queryFn: ({ signal }) => getSearchHistory(page, pageSize, { signal, watched, account, search }),
    placeholderData: keepPreviousData,
    // statuses of running exports change under us; a page is cheap to re-ask
    refetchInterval: (q) => (q.state.data?.results.some((e) => !['completed', 'failed'].includes(exportPhase(e.status))) ? 5_000 : false),
  })
