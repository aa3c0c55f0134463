import { queryOptions } from '@tanstack/react-query'
import { z } from 'zod'
import { api } from '@/lib/api-client'
import { searchKeys } from '../search-keys'

export const countrySchema = z.looseObject({
  code: z.string().transform((c) => c.toUpperCase()),
  name: z.string().optional(),
  language: z.string().nullish(),
  company_count: z.number().nullish(),
})
export type Country = z.infer<typeof countrySchema>

export const getCountries = (signal?: AbortSignal) =>
  api('/api/locations/countries', { schema: z.array(countrySchema), signal })

export const countriesOptions = () =>
  queryOptions({
    queryKey: searchKeys.countries(),
    queryFn: ({ signal }) => getCountries(signal),
    staleTime: 60 * 60_000,
  })
