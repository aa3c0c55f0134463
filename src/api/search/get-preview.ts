import { keepPreviousData, queryOptions } from '@tanstack/react-query'
import { z } from 'zod/mini'
import { api, lazySchema } from '@/lib/api-client'
import type { PreviewQuery } from '@/domain/search-filters'
import { searchKeys } from './keys'
import { list, looseNameList, looseNumber, opaqueId, text } from '@/api/schemas'

export const leadRowSchema = lazySchema(() =>
  z.looseObject({
    name: text(),
    email: looseNameList(),
    phone: text(),
    address: text(),
    city: text(),
    zipcode: text(),
    country: text(),
    level1_location: text(),
    level2_location: text(),
    website: text(),
    // the lead record's fields are "not shown" (interface 2.8): a decimal as a string ("4.50"),
    // categories as names or objects; one odd field must not cost the person their count
    categories: looseNameList(),
    rating: looseNumber(),
    review_count: looseNumber(),
    place_id: text(),
  }),
)
export type LeadRow = z.infer<ReturnType<typeof leadRowSchema>>

export const previewSchema = lazySchema(() =>
  z.looseObject({
    totalCount: z.number(),
    search_id: opaqueId(),
    // a row the dashboard cannot read at all is left out of the sample, not the whole answer
    results: z.pipe(
      list(z.catch(z.nullable(leadRowSchema()), null)),
      z.transform((rows) => rows.filter((r) => r !== null)),
    ),
    // extension `lists`: how many the lists left out, when the search leaves some out
    excluded_by_lists: looseNumber(),
  }),
)
export type Preview = z.infer<ReturnType<typeof previewSchema>>

/** `lang`: the sample rows' category names come in the person's language. */
export const getPreview = (query: PreviewQuery, lang: string, signal?: AbortSignal) =>
  api('/api/companies/', { query: { ...query, lang }, schema: previewSchema, signal })

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
