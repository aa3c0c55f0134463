import { useQuery } from '@tanstack/react-query'
import { useCallback, useEffect, useMemo, useState } from 'react'
import { useTranslation } from 'react-i18next'
import { useLocation, useNavigate, useSearchParams } from 'react-router'
import { categoriesByIdsOptions } from '@/api/search/get-categories'
import { level1Options } from '@/api/search/get-level1'
import { level2OneOptions } from '@/api/search/get-level2'
import { level3Options } from '@/api/search/get-level3'
import { searchKeys } from '@/api/search/keys'
import {
  filtersToApiParams,
  filtersToSearchParams,
  hasNamedIds,
  isApiStyleLink,
  searchParamsToFilters,
  type SearchFilters,
} from '@/domain/search-filters'
import { useUrlState, type UrlCodec, type UrlStateChange } from '@/lib/use-url-state'
import type { LinkLookups } from '../link-resolver'

const lookups: LinkLookups = { categoriesByIdsOptions, level1Options, level2OneOptions, level3Options }

/** Set (as history state) on the canonical address when the API-style link held unknown ids. */
interface LinkState {
  linkDropped?: boolean
}

/**
 * An address that did not come from this page (a pasted or bookmarked link, API-style or canonical) is
 * checked once against the service: the chips' names are asked by id (categories, states, counties,
 * cities, through the same cached queries as the pickers), unknown ids are dropped, and the corrected
 * canonical address replaces it. Until then the search is `resolving` (no preview with half a search).
 * Addresses this page wrote itself (`verified`) already hold the service's names and are not asked again.
 */
function useLinkCheck(key: string, verified: ReadonlySet<string>, markVerified: (key: string) => void) {
  const apiStyle = useMemo(() => isApiStyleLink(new URLSearchParams(key)), [key])
  const toCheck = useMemo(() => {
    if (apiStyle) return key
    if (verified.has(key)) return null
    const filters = searchParamsToFilters(new URLSearchParams(key))
    return hasNamedIds(filters) ? filtersToApiParams(filters).toString() : null
  }, [apiStyle, key, verified])
  const { i18n } = useTranslation('search')
  const lang = i18n.language
  const navigate = useNavigate()
  const location = useLocation()
  const resolution = useQuery({
    queryKey: searchKeys.linkCheck(toCheck, lang),
    // the resolver (and an API-style link's GeoJSON) loads only for an address to check: not in the page's first load
    queryFn: ({ client }) =>
      import('../link-resolver').then((m) => m.resolveApiLink(client, new URLSearchParams(toCheck ?? ''), lang, lookups)),
    enabled: toCheck !== null,
    staleTime: Infinity,
    gcTime: 0,
  })
  const resolved = toCheck !== null ? resolution.data : undefined
  useEffect(() => {
    if (!resolved) return
    const search = filtersToSearchParams(resolved.filters).toString()
    markVerified(search)
    if (search === key && !resolved.dropped) return
    const state: LinkState = { linkDropped: resolved.dropped }
    navigate({ pathname: location.pathname, search: `?${search}`, hash: location.hash }, { replace: true, state })
  }, [resolved, key, markVerified, navigate, location.pathname, location.hash])
  const { refetch } = resolution
  const retry = useCallback(() => void refetch(), [refetch])
  return {
    resolving: toCheck !== null && !resolution.isError,
    failed: toCheck !== null && resolution.isError,
    retry,
    /** The link this address came from left out unknown ids (said once: the next change drops it). */
    dropped: toCheck === null && (location.state as LinkState | null)?.linkDropped === true,
  }
}

/** A new search, or how to make one from the newest search (which a stable callback cannot close over). */
export type FiltersChange = UrlStateChange<SearchFilters>
export type SetFilters = (change: FiltersChange, options?: { replace?: boolean }) => void

const codec: UrlCodec<SearchFilters> = { parse: searchParamsToFilters, format: filtersToSearchParams }

/**
 * The search lives in the address bar (lib/use-url-state.ts): every change is a history entry, except
 * typing in a field (`replace`); `setFilters` keeps its identity for the page's life and a change keeps
 * the lists it does not touch, so the controls it does not concern are not rendered again. The search
 * renders as a transition: a control that shows its own choice at once (the search builder's flags, the
 * format radios) does so with `useOptimistic`, set in the same `startTransition` as the change.
 */
export function useSearchFilters() {
  const [params] = useSearchParams()
  const key = params.toString()
  const [filters, set] = useUrlState(codec)
  const [verified, setVerified] = useState<ReadonlySet<string>>(() => new Set())
  const markVerified = useCallback((k: string) => setVerified((prev) => (prev.has(k) ? prev : new Set(prev).add(k))), [])
  const link = useLinkCheck(key, verified, markVerified)
  const setFilters = useCallback<SetFilters>(
    (change, options) => {
      const written = set(change, options)
      // filters chosen here carry the service's own names: nothing to check
      if (written !== null) markVerified(written)
    },
    [set, markVerified],
  )
  return [filters, setFilters, link] as const
}
