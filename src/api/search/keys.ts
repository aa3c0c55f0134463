import type { PreviewQuery } from '@/domain/search-filters'

export const searchKeys = {
  all: ['search'] as const,
  countries: () => [...searchKeys.all, 'countries'] as const,
  level1: (country: string) => [...searchKeys.all, 'level1', country] as const,
  level2: (country: string, states: string[]) => [...searchKeys.all, 'level2', country, states] as const,
  level2One: (id: string) => [...searchKeys.all, 'level2-one', id] as const,
  level3: (country: string, states: string[], counties: string[]) => [...searchKeys.all, 'level3', country, states, counties] as const,
  places: (params: { q: string; country: string | undefined; states: string[]; counties: string[]; lng?: string | undefined }) =>
    [...searchKeys.all, 'places', params] as const,
  categories: (q: string, lang: string) => [...searchKeys.all, 'categories', lang, q] as const,
  categoriesByIds: (ids: string[], lang: string) => [...searchKeys.all, 'categories-by-id', lang, ids] as const,
  preview: (query: PreviewQuery, lang: string) => [...searchKeys.all, 'preview', query, lang] as const,
  facets: (query: PreviewQuery, lang: string) => [...searchKeys.all, 'facets', query, lang] as const,
  /** Counts per map cell (extension `geo`) of a search in a box at a zoom ("west,south,east,north"). */
  cells: (query: PreviewQuery, bbox: string, zoom: number) => [...searchKeys.all, 'cells', query, bbox, zoom] as const,
  /** A link's query checked against the service (its chips' names by id), in the language asked. */
  linkCheck: (query: string | null, lang: string) => [...searchKeys.all, 'api-link', query, lang] as const,
}
