import { useQuery } from '@tanstack/react-query'
import { useCallback, useEffect, useMemo, useState } from 'react'
import { useTranslation } from 'react-i18next'
import { useLocation, useNavigate, useSearchParams } from 'react-router'
import {
  filtersToApiParams,
  filtersToSearchParams,
  hasNamedIds,
  isApiStyleLink,
  searchParamsToFilters,
  type SearchFilters,
} from '../filters'
import { resolveApiLink } from '../link-resolver'
import { searchKeys } from '../search-keys'

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
    queryKey: [...searchKeys.all, 'api-link', toCheck, lang],
    queryFn: ({ client }) => resolveApiLink(client, new URLSearchParams(toCheck ?? ''), lang),
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

/**
 * The search lives in the address bar: every change is a history entry (so back/forward step
 * through it), except typing in a field, which replaces the current entry.
 */
export function useSearchFilters() {
  const [params, setParams] = useSearchParams()
  const key = params.toString()
  const filters = useMemo(() => searchParamsToFilters(new URLSearchParams(key)), [key])
  const [verified, setVerified] = useState<ReadonlySet<string>>(() => new Set())
  const markVerified = useCallback(
    (k: string) => setVerified((prev) => (prev.has(k) ? prev : new Set(prev).add(k))),
    [],
  )
  const link = useLinkCheck(key, verified, markVerified)
  // React Router commits a navigation inside a transition, so a control bound to the address alone
  // would show the old state until that transition commits (a radio clicked, still unchecked). The
  // person's choice is shown at once from this urgent state, made against the address it started from;
  // once the address moves on (this change committed, or back/forward) the address rules again.
  const [optimistic, setOptimistic] = useState<{ from: string; filters: SearchFilters } | null>(null)
  // forgotten as soon as the address moves, so a later back to that address shows the address's state
  if (optimistic !== null && optimistic.from !== key) setOptimistic(null)
  const shown = optimistic !== null && optimistic.from === key ? optimistic.filters : filters
  const setFilters = useCallback(
    (next: SearchFilters, options: { replace?: boolean } = {}) => {
      // filters chosen here carry the service's own names: nothing to check
      const nextParams = filtersToSearchParams(next)
      setOptimistic({ from: key, filters: next })
      markVerified(nextParams.toString())
      setParams(nextParams, { replace: options.replace ?? false, preventScrollReset: true })
    },
    [key, setParams, markVerified],
  )
  return [shown, setFilters, link] as const
}
