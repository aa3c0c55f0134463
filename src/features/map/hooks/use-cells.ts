import { useQuery } from '@tanstack/react-query'
import { useMemo } from 'react'
import { cellsOptions, type CellsArea } from '@/api/search/get-cells'
import { previewQuery, type SearchFilters } from '@/domain/search-filters'

/**
 * The cells of the search in the map's box. The territory is left out: the map shows where the
 * search's leads are, to draw around them, and the territory lies on top as an outline (its own count
 * is the page's). `area` is null until the map has a box.
 */
export function useCells(filters: SearchFilters, area: CellsArea | null) {
  const query = useMemo(() => previewQuery({ ...filters, territory: null }), [filters])
  return useQuery({ ...cellsOptions(query, area ?? { bbox: '', zoom: 0 }), enabled: area !== null })
}
