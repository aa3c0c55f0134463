import { keepPreviousData, queryOptions } from '@tanstack/react-query'
import { z } from 'zod'
import { api } from '@/lib/api-client'
import type { PreviewQuery } from '../filters'
import { searchKeys } from '../search-keys'

const text = z.union([z.string(), z.number()]).nullish().transform((v) => (v === null || v === undefined ? '' : String(v)))

export const leadRowSchema = z.looseObject({
  name: text,
  email: z
    .union([z.array(z.string()), z.string(), z.null()])
    .optional()
    .transform((v) => (v === null || v === undefined ? [] : Array.isArray(v) ? v : [v])),
  phone: text,
  address: text,
  city: text,
  zipcode: text,
  country: text,
  level1_location: text,
  level2_location: text,
  website: text,
  categories: z.array(z.string()).nullish().transform((v) => v ?? []),
  rating: z.number().nullish(),
  review_count: z.number().nullish(),
  place_id: text,
})
export type LeadRow = z.infer<typeof leadRowSchema>

export const previewSchema = z.looseObject({
  totalCount: z.number().int(),
  search_id: z.union([z.number(), z.string()]).transform(String),
  results: z.array(leadRowSchema).nullish().transform((v) => v ?? []),
})
export type Preview = z.infer<typeof previewSchema>

export const getPreview = (query: PreviewQuery, signal?: AbortSignal) =>
  api('/api/companies', { query, schema: previewSchema, signal })

/**
 * The free preview. The previous answer stays in place while the next loads, and a superseded
 * request is aborted because the fetcher hands React Query's signal to fetch.
 */
export const previewOptions = (query: PreviewQuery) =>
  queryOptions({
    queryKey: searchKeys.preview(query),
    queryFn: ({ signal }) => getPreview(query, signal),
    placeholderData: keepPreviousData,
    staleTime: 60_000,
  })
