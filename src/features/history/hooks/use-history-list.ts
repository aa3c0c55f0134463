import { useQueries, useQuery } from '@tanstack/react-query'
import { searchHistoryOptions, type HistoryEntry } from '@/api/history/get-search-history'
import { matchesFilter, isFiltering, toServiceSearch, type HistoryFilter } from '../history-filters'

export const PAGE_SIZE = 20
/** The largest page the list answers (decisions.md: page_size ≤ 100): the fewest requests for the whole list. */
export const SEARCH_PAGE_SIZE = 100
/** A filter reads at most this many pages: the newest 1,000 exports. */
export const SEARCH_PAGES = 10

export interface HistoryList {
  /** The entries of the page shown. */
  results: HistoryEntry[]
  /** The page shown: the one asked for, or the matches' last page when that one is past their end. */
  page: number
  /** How many entries there are to page through: all of them, or those matching the filter. */
  count: number
  /** How many exports the list holds, filter or not. */
  total: number
  source: 'service' | 'browser'
  /** The filter read only the newest SEARCH_PAGE_SIZE × SEARCH_PAGES exports. */
  truncated: boolean
  /** The countries the exports read hold (the page's, or the whole list's with a filter): what the country filter offers. */
  countries: string[]
}

const countriesOf = (entries: HistoryEntry[]) => [...new Set(entries.flatMap((e) => e.filters.countries.map((c) => c.toUpperCase())))]

/**
 * One page of History. A service that searches History itself (extension `history_search`) is sent
 * the filter and answers the page of matches with their count. Without it (decisions.md lists
 * `?page=&page_size=` only, plus the `watched` extension), the whole list is read with a filter, in
 * pages of 100 (the newest 1,000 at most), and filtered here; without a filter, only the page shown
 * is asked. The browser's own record (no list at the service) is read the same way.
 */
export function useHistoryList({
  page,
  watched,
  account,
  filter,
  lng,
  serviceSearch,
}: {
  page: number
  watched: boolean
  account: string | undefined
  filter: HistoryFilter
  lng: string
  /** The service offers `history_search`; undefined while that is being asked (a filter then waits). */
  serviceSearch: boolean | undefined
}) {
  const ready = account !== undefined
  const filtering = isFiltering(filter)
  const options = { watched, account }
  const inBrowser = filtering && serviceSearch === false
  const byService = filtering && serviceSearch === true

  // unfiltered, the page shown; with the service's search, its first page: the whole list's count
  const single = useQuery({ ...searchHistoryOptions(filtering ? 1 : page, PAGE_SIZE, options), enabled: ready && !inBrowser })
  const found = useQuery({
    ...searchHistoryOptions(page, PAGE_SIZE, { ...options, search: toServiceSearch(filter) }),
    enabled: ready && byService,
  })
  const first = useQuery({ ...searchHistoryOptions(1, SEARCH_PAGE_SIZE, options), enabled: ready && inBrowser })
  const pages = first.data ? Math.min(SEARCH_PAGES, Math.ceil(first.data.count / SEARCH_PAGE_SIZE)) : 0
  const rest = useQueries({
    queries: Array.from({ length: Math.max(0, pages - 1) }, (_, i) => ({
      ...searchHistoryOptions(i + 2, SEARCH_PAGE_SIZE, options),
      enabled: ready && inBrowser,
    })),
  })

  if (!filtering) {
    const data: HistoryList | undefined = single.data && {
      results: single.data.results,
      page,
      count: single.data.count,
      total: single.data.count,
      source: single.data.source,
      truncated: false,
      countries: countriesOf(single.data.results),
    }
    return {
      data,
      isPending: single.isPending,
      isError: single.isError,
      busy: single.isPlaceholderData,
      refetch: () => void single.refetch(),
    }
  }

  if (!inBrowser) {
    const data: HistoryList | undefined = found.data &&
      single.data && {
        results: found.data.results,
        page,
        count: found.data.count,
        total: single.data.count,
        source: found.data.source,
        truncated: false,
        // what the country filter offers: the countries of the newest exports and of the matches
        countries: countriesOf(single.data.results.concat(found.data.results)),
      }
    const failed = [single, found].filter((q) => q.isError)
    return {
      data,
      isPending: !data && failed.length === 0,
      isError: failed.length > 0,
      busy: found.isPlaceholderData,
      refetch: () => failed.forEach((q) => void q.refetch()),
    }
  }

  const all = [first].concat(rest)
  const loaded = all.every((q) => q.data)
  let data: HistoryList | undefined
  if (first.data && loaded) {
    const read = all.flatMap((q) => q.data?.results ?? [])
    const matches = read.filter((e) => matchesFilter(e, filter, lng))
    // a page past the matches' end (a typed address, a list that shrank) shows their last page
    const shown = Math.min(page, Math.max(1, Math.ceil(matches.length / PAGE_SIZE)))
    data = {
      results: matches.slice((shown - 1) * PAGE_SIZE, shown * PAGE_SIZE),
      page: shown,
      count: matches.length,
      total: first.data.count,
      source: first.data.source,
      truncated: first.data.count > SEARCH_PAGE_SIZE * SEARCH_PAGES,
      countries: countriesOf(read),
    }
  }
  const failed = all.filter((q) => q.isError)
  return {
    data,
    isPending: !data && failed.length === 0,
    isError: failed.length > 0,
    busy: all.some((q) => q.isPlaceholderData),
    refetch: () => failed.forEach((q) => void q.refetch()),
  }
}
