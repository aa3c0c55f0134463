import { queryOptions } from '@tanstack/react-query'
import { z } from 'zod'
import { api } from '@/lib/api-client'
import { lookupKeys } from '../history-keys'

/** Names for the ids a past search holds. Place and category names rarely change: cache them for the session. */
const forever = { staleTime: Infinity, gcTime: 60 * 60_000 } as const

const idName = z.object({ id: z.union([z.string(), z.number()]).transform(String), name: z.string() })

export const level1ListOptions = (country: string) =>
  queryOptions({
    queryKey: lookupKeys.level1(country),
    queryFn: ({ signal }) =>
      api('/api/locations/level1', { query: { country }, schema: z.array(idName), signal }),
    ...forever,
  })

export const level2Options = (id: string) =>
  queryOptions({
    queryKey: lookupKeys.level2(id),
    queryFn: ({ signal }) =>
      api(`/api/locations/level2/${encodeURIComponent(id)}`, {
        schema: idName.extend({ level1_name: z.string().nullish() }),
        signal,
      }),
    ...forever,
  })

export const level3ListOptions = (country: string) =>
  queryOptions({
    queryKey: lookupKeys.level3(country),
    queryFn: ({ signal }) =>
      api('/api/locations/level3', { query: { country }, schema: z.array(idName), signal }),
    ...forever,
  })

const categorySchema = z.object({
  id: z.union([z.string(), z.number()]).transform(String),
  name: z.string().nullish(),
  name_en: z.string().nullish(),
  slug: z.string().nullish(),
})

export const categoriesOptions = (lang: string) =>
  queryOptions({
    queryKey: lookupKeys.categories(lang),
    queryFn: ({ signal }) =>
      api('/api/categories', { query: { limit: 100, lang }, schema: z.array(categorySchema), signal }),
    ...forever,
  })
