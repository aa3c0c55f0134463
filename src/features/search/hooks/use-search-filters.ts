import { useCallback, useMemo } from 'react'
import { useSearchParams } from 'react-router'
import { filtersToSearchParams, searchParamsToFilters, type SearchFilters } from '../filters'

/**
 * The search lives in the address bar: every change is a history entry (so back/forward step
 * through it), except typing in a field, which replaces the current entry.
 */
export function useSearchFilters() {
  const [params, setParams] = useSearchParams()
  const key = params.toString()
  const filters = useMemo(() => searchParamsToFilters(new URLSearchParams(key)), [key])
  const setFilters = useCallback(
    (next: SearchFilters, options: { replace?: boolean } = {}) =>
      setParams(filtersToSearchParams(next), { replace: options.replace ?? false, preventScrollReset: true }),
    [setParams],
  )
  return [filters, setFilters] as const
}
