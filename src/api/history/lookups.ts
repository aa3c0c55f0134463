import { queryOptions } from '@tanstack/react-query'
import { z } from 'zod/mini'
import { api } from '@/lib/api-client'
import { listOf } from '@/api/schemas'
import { lookupKeys } from '@/api/history/keys'

/** Names for the ids a past search holds. Place and category names rarely change: cache them for the session. */
const forever = { staleTime: Infinity, gcTime: 60 * 60_000 } as const

/** Ids arrive as numbers or strings; kept as strings. */
const idSchema = z.pipe(z.union([z.string(), z.number()]), z.transform(String))

const idName = z.object({ id: idSchema, name: z.string() })

export const level1ListOptions = (country: string) =>
  queryOptions({
    queryKey: lookupKeys.level1(country),
    queryFn: ({ signal }) => api('/api/locations/level1/', { query: { country }, schema: listOf(idName), signal }),
    ...forever,
  })

export const level2Options = (id: string) =>
  queryOptions({
    queryKey: lookupKeys.level2(id),
    queryFn: ({ signal }) =>
      api(`/api/locations/level2/${encodeURIComponent(id)}/`, {
        schema: z.extend(idName, { level1_name: z.nullish(z.string()) }),
        signal,
      }),
    ...forever,
  })

export const level3ListOptions = (country: string) =>
  queryOptions({
    queryKey: lookupKeys.level3(country),
    queryFn: ({ signal }) =>
      api('/api/locations/level3/', {
        query: { country },
        // the parents tell apart places that share a name (Springfield, Springfield, …)
        schema: listOf(z.extend(idName, { level2_name: z.nullish(z.string()), level1_name: z.nullish(z.string()) })),
        signal,
      }),
    ...forever,
  })

const categorySchema = z.object({
  id: idSchema,
  name: z.nullish(z.string()),
  name_en: z.nullish(z.string()),
  slug: z.nullish(z.string()),
})

/** Names of the categories a past search holds, asked by id (a type-ahead's limit would miss some). */
export const categoriesOptions = (lang: string, ids: readonly string[]) =>
  queryOptions({
    queryKey: lookupKeys.categories(lang, [...ids].sort()),
    queryFn: ({ signal }) => api('/api/categories/', { query: { ids: [...ids].sort(), lang }, schema: listOf(categorySchema), signal }),
    ...forever,
  })
