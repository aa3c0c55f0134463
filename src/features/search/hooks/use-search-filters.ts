import { useQuery } from '@tanstack/react-query'
import { useCallback, useEffect, useMemo } from 'react'
import { useTranslation } from 'react-i18next'
import { useLocation, useNavigate, useSearchParams } from 'react-router'
import { filtersToSearchParams, isApiStyleLink, searchParamsToFilters, type SearchFilters } from '../filters'
import { resolveApiLink } from '../link-resolver'
import { searchKeys } from '../search-keys'

/** Set (as history state) on the canonical address when the API-style link held unknown ids. */
interface LinkState {
  linkDropped?: boolean
}

/**
 * An API-style link (the service's filter names and bare ids) is resolved once into the canonical
 * address, which replaces it: until then the search is `resolving` (no preview with half a search).
 */
function useApiStyleLink(key: string) {
  const apiStyle = useMemo(() => isApiStyleLink(new URLSearchParams(key)), [key])
  const { i18n } = useTranslation('search')
  const lang = i18n.language
  const navigate = useNavigate()
  const location = useLocation()
  const resolution = useQuery({
    queryKey: [...searchKeys.all, 'api-link', key, lang],
    queryFn: ({ client }) => resolveApiLink(client, new URLSearchParams(key), lang),
    enabled: apiStyle,
    staleTime: Infinity,
    gcTime: 0,
  })
  const resolved = apiStyle ? resolution.data : undefined
  useEffect(() => {
    if (!resolved) return
    const state: LinkState = { linkDropped: resolved.dropped }
    navigate(
      { pathname: location.pathname, search: `?${filtersToSearchParams(resolved.filters).toString()}`, hash: location.hash },
      { replace: true, state },
    )
  }, [resolved, navigate, location.pathname, location.hash])
  const { refetch } = resolution
  const retry = useCallback(() => void refetch(), [refetch])
  return {
    resolving: apiStyle && !resolution.isError,
    failed: apiStyle && resolution.isError,
    retry,
    /** The link this address came from left out unknown ids (said once: the next change drops it). */
    dropped: !apiStyle && (location.state as LinkState | null)?.linkDropped === true,
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
  const link = useApiStyleLink(key)
  const setFilters = useCallback(
    (next: SearchFilters, options: { replace?: boolean } = {}) =>
      setParams(filtersToSearchParams(next), { replace: options.replace ?? false, preventScrollReset: true }),
    [setParams],
  )
  return [filters, setFilters, link] as const
}
