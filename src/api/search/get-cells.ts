import { keepPreviousData, queryOptions } from '@tanstack/react-query'
import { z } from 'zod/mini'
import { api, lazySchema } from '@/lib/api-client'
import type { PreviewQuery } from '@/domain/search-filters'
import { searchKeys } from './keys'

/** GET /api/companies/cells/ (extension `geo`): the search's leads per H3 cell of the map's box. */
export const cellsSchema = lazySchema(() =>
  z.looseObject({
    resolution: z.number(),
    cells: z.array(z.looseObject({ h3: z.string(), count: z.number(), owned: z.catch(z.number(), 0) })),
    total: z.number(),
    truncated: z.catch(z.boolean(), false),
  }),
)
export type Cells = z.infer<ReturnType<typeof cellsSchema>>
export type Cell = Cells['cells'][number]

/** The map's box as the service takes it: "west,south,east,north" in degrees. */
export interface CellsArea {
  bbox: string
  zoom: number
}

export const getCells = (query: PreviewQuery, bbox: string, zoom: number, signal?: AbortSignal) =>
  api('/api/companies/cells/', { query: { ...query, bbox, zoom: String(zoom) }, schema: cellsSchema, signal })

/**
 * The cells of the visible box. While the map moves the previous cells stay drawn, and a request for
 * a box already left is aborted (the fetcher hands React Query's signal to fetch).
 */
export const cellsOptions = (query: PreviewQuery, { bbox, zoom }: CellsArea) =>
  queryOptions({
    queryKey: searchKeys.cells(query, bbox, zoom),
    queryFn: ({ signal }) => getCells(query, bbox, zoom, signal),
    placeholderData: keepPreviousData,
    staleTime: 60_000,
  })
