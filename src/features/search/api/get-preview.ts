import { keepPreviousData, queryOptions } from '@tanstack/react-query'
import { z } from 'zod/mini'
import { api, lazySchema } from '@/lib/api-client'
import type { PreviewQuery } from '../filters'
import { searchKeys } from '../search-keys'
import { list, text } from './schemas'

export const leadRowSchema = lazySchema(() =>
  z.looseObject({
    name: text(),
    email: z.pipe(
      z.nullish(z.union([z.array(z.string()), z.string()])),
      z.transform((v) => (v === null || v === undefined ? [] : Array.isArray(v) ? v : [v])),
    ),
    phone: text(),
    address: text(),
    city: text(),
    zipcode: text(),
    country: text(),
    level1_location: text(),
    level2_location: text(),
    website: text(),
    categories: list(z.string()),
    rating: z.nullish(z.number()),
    review_count: z.nullish(z.number()),
    place_id: text(),
  }),
)
export type LeadRow = z.infer<ReturnType<typeof leadRowSchema>>

export const previewSchema = lazySchema(() =>
  z.looseObject({
    totalCount: z.number(),
    search_id: z.pipe(z.union([z.number(), z.string()]), z.transform(String)),
    results: list(leadRowSchema()),
  }),
)
export type Preview = z.infer<ReturnType<typeof previewSchema>>

/** `lang`: the sample rows' category names come in the person's language. */
export const getPreview = (query: PreviewQuery, lang: string, signal?: AbortSignal) =>
  api('/api/companies', { query: { ...query, lang }, schema: previewSchema, signal })

/**
 * The free preview. The previous answer stays in place while the next loads, and a superseded
 * request is aborted because the fetcher hands React Query's signal to fetch.
 */
export const previewOptions = (query: PreviewQuery, lang: string) =>
  queryOptions({
    queryKey: searchKeys.preview(query, lang),
    queryFn: ({ signal }) => getPreview(query, lang, signal),
    placeholderData: keepPreviousData,
    staleTime: 60_000,
  })
