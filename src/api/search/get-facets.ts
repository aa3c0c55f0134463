import { queryOptions } from '@tanstack/react-query'
import { z } from 'zod/mini'
import { api, lazySchema } from '@/lib/api-client'
import type { PreviewQuery } from '@/domain/search-filters'
import { searchKeys } from './keys'

const bucket = lazySchema(() =>
  z.looseObject({
    id: z.pipe(z.union([z.number(), z.string()]), z.transform(String)),
    name: z.string(),
    count: z.number(),
  }),
)

/** The reference service's `facets` extension: coverage of a search in one answer. */
export const facetsSchema = lazySchema(() =>
  z.looseObject({
    totalCount: z.number(),
    with_email: z.number(),
    with_phone: z.number(),
    with_website: z.number(),
    level1: z.nullable(z.array(z.extend(bucket(), { country: z.string() }))),
    categories: z.array(bucket()),
  }),
)
export type Facets = z.infer<ReturnType<typeof facetsSchema>>

export const getFacets = (query: PreviewQuery, lang: string, signal?: AbortSignal) =>
  api('/api/companies/facets/', { query: { ...query, lang }, schema: facetsSchema, signal })

/** Cached per filter set and language; a superseded request is aborted (the signal goes to fetch). */
export const facetsOptions = (query: PreviewQuery, lang: string) =>
  queryOptions({
    queryKey: searchKeys.facets(query, lang),
    queryFn: ({ signal }) => getFacets(query, lang, signal),
    staleTime: 60_000,
  })
