import { useQuery } from '@tanstack/react-query'
import { useCallback, useEffect, useLayoutEffect, useMemo, useRef, useState } from 'react'
import { useTranslation } from 'react-i18next'
import { useLocation, useNavigate, useSearchParams } from 'react-router'
import {
  filtersToApiParams,
  filtersToSearchParams,
  hasNamedIds,
  isApiStyleLink,
  searchParamsToFilters,
  type SearchFilters,
} from '@/domain/search-filters'
import { resolveApiLink } from '../link-resolver'
import { searchKeys } from '@/api/search/keys'

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

/** A new search, or how to make one from the search shown (which a stable callback cannot close over). */
export type FiltersChange = SearchFilters | ((current: SearchFilters) => SearchFilters)
export type SetFilters = (change: FiltersChange, options?: { replace?: boolean }) => void

/** `next`, keeping `prev`'s lists and values wherever they are equal: memoized controls of unchanged filters skip rendering. */
function keepUnchanged(prev: SearchFilters, next: SearchFilters): SearchFilters {
  const kept = { ...next }
  for (const field of Object.keys(next) as (keyof SearchFilters)[]) {
    if (prev[field] !== next[field] && JSON.stringify(prev[field]) === JSON.stringify(next[field]))
      Object.assign(kept, { [field]: prev[field] })
  }
  return kept
}

/** Runs `run` once the next frame is on screen (at once in a hidden tab, which draws no frames); returns a cancel. */
function afterNextPaint(run: () => void): () => void {
  if (document.visibilityState === 'hidden') {
    run()
    return () => {}
  }
  let timer: ReturnType<typeof setTimeout> | undefined
  const frame = requestAnimationFrame(() => {
    timer = setTimeout(run, 0)
  })
  return () => {
    cancelAnimationFrame(frame)
    clearTimeout(timer)
  }
}

/**
 * The search lives in the address bar: every change is a history entry (so back/forward step
 * through it), except typing in a field, which replaces the current entry. `setFilters` keeps its
 * identity for the page's life, and a change keeps the lists it does not touch, so the controls
 * it does not concern are not rendered again. The control shows the change in the very next frame;
 * the address follows right after that frame (a navigation, with its history entry and the router's
 * work, is not what the person waits to see), and changes made within one frame make one entry.
 * A control that shows its own choice at once (an optimistic state: the search builder's flags, the
 * format radios) calls `setFilters` inside `startTransition`: the page then follows in slices instead
 * of in the click's own frame.
 */
export function useSearchFilters() {
  const [params] = useSearchParams()
  const navigate = useNavigate()
  const key = params.toString()
  const fromAddress = useMemo(() => searchParamsToFilters(new URLSearchParams(key)), [key])
  const [verified, setVerified] = useState<ReadonlySet<string>>(() => new Set())
  const markVerified = useCallback((k: string) => setVerified((prev) => (prev.has(k) ? prev : new Set(prev).add(k))), [])
  const link = useLinkCheck(key, verified, markVerified)
  // React Router commits a navigation inside a transition, so a control bound to the address alone
  // would show the old state until that transition commits (a radio clicked, still unchecked). The
  // person's choice is shown at once from this urgent state, made against the address it started
  // from (`from`) and still shown once the address has become the one it wrote (`to`), as the same
  // object; once the address moves elsewhere (back/forward, a corrected link) the address rules again.
  const [chosen, setChosen] = useState<{ from: string; to: string; filters: SearchFilters } | null>(null)
  if (chosen !== null && chosen.from !== key) setChosen(chosen.to === key ? { ...chosen, from: key } : null)
  const shown = chosen !== null && (chosen.from === key || chosen.to === key) ? chosen.filters : fromAddress
  // what a change starts from: the search on screen and its address (read in event handlers only)
  const current = useRef({ key, shown })
  useLayoutEffect(() => {
    current.current = { key, shown }
  }, [key, shown])
  const pending = useRef<{ replace: boolean; cancel: () => void } | null>(null)
  useEffect(() => () => pending.current?.cancel(), [])
  const setFilters = useCallback<SetFilters>(
    (change, options = {}) => {
      const { key: from, shown: before } = current.current
      // filters chosen here carry the service's own names: nothing to check
      const nextParams = filtersToSearchParams(typeof change === 'function' ? change(before) : change)
      const to = nextParams.toString()
      // exactly what the address will say, so nothing changes again when the navigation commits
      const filters = keepUnchanged(before, searchParamsToFilters(nextParams))
      current.current = { key: from, shown: filters }
      setChosen({ from, to, filters })
      markVerified(to)
      // a change still waiting for its frame is taken over: one entry, pushed if either change pushes
      const replace = (options.replace ?? false) && (pending.current?.replace ?? true)
      pending.current?.cancel()
      pending.current = {
        replace,
        cancel: afterNextPaint(() => {
          pending.current = null
          navigate(`?${to}`, { replace, preventScrollReset: true })
        }),
      }
    },
    [navigate, markVerified],
  )
  return [shown, setFilters, link] as const
}
