import { queryOptions } from '@tanstack/react-query'
import { z } from 'zod/mini'
import { api, lazySchema } from '@/lib/api-client'
import { listOf } from '@/api/schemas'
import { searchKeys } from './keys'

export const countrySchema = lazySchema(() =>
  z.looseObject({
    code: z.pipe(
      z.string(),
      z.transform((c) => c.toUpperCase()),
    ),
    name: z.optional(z.string()),
    language: z.nullish(z.string()),
    company_count: z.nullish(z.number()),
  }),
)
export type Country = z.infer<ReturnType<typeof countrySchema>>
const countryListSchema = lazySchema(() => listOf(countrySchema()))

export const getCountries = (signal?: AbortSignal) => api('/api/locations/countries/', { schema: countryListSchema, signal })

export const countriesOptions = () =>
  queryOptions({
    queryKey: searchKeys.countries(),
    queryFn: ({ signal }) => getCountries(signal),
    staleTime: 60 * 60_000,
  })
