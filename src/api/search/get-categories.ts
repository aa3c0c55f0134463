import { queryOptions } from '@tanstack/react-query'
import { z } from 'zod/mini'
import { api, lazySchema } from '@/lib/api-client'
import { idSchema, listOf, optionalName } from '@/api/schemas'
import { searchKeys } from './keys'

export const categorySchema = lazySchema(() =>
  z.looseObject({
    id: idSchema(),
    slug: optionalName(),
    name: z.string(),
    name_en: optionalName(),
  }),
)
export type Category = z.infer<ReturnType<typeof categorySchema>>
const categoryListSchema = lazySchema(() => listOf(categorySchema()))

export const CATEGORY_LIMIT = 20

export const getCategories = (q: string, lang: string, signal?: AbortSignal) =>
  api('/api/categories/', { query: { q, limit: CATEGORY_LIMIT, lang }, schema: categoryListSchema, signal })

/** Type-ahead: the service searches English and localized names and answers in `lang`. */
export const categoriesOptions = (q: string, lang: string) =>
  queryOptions({
    queryKey: searchKeys.categories(q, lang),
    queryFn: ({ signal }) => getCategories(q, lang, signal),
    staleTime: 10 * 60_000,
  })

export const getCategoriesByIds = (ids: string[], lang: string, signal?: AbortSignal) =>
  api('/api/categories/', { query: { ids, lang }, schema: categoryListSchema, signal })

/** Exactly these categories (ids the service doesn't know are left out of the answer). */
export const categoriesByIdsOptions = (ids: readonly string[], lang: string) => {
  const sorted = [...new Set(ids)].sort()
  return queryOptions({
    queryKey: searchKeys.categoriesByIds(sorted, lang),
    queryFn: ({ signal }) => getCategoriesByIds(sorted, lang, signal),
    staleTime: 10 * 60_000,
  })
}
