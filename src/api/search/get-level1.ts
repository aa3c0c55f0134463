import { queryOptions } from '@tanstack/react-query'
import { z } from 'zod/mini'
import { api, lazySchema } from '@/lib/api-client'
import { idSchema, listOf, optionalName } from '@/api/schemas'
import { searchKeys } from './keys'

export const level1Schema = lazySchema(() =>
  z.looseObject({
    id: idSchema(),
    name: z.string(),
    code: optionalName(),
    country: optionalName(),
  }),
)
export type Level1 = z.infer<ReturnType<typeof level1Schema>>
const level1ListSchema = lazySchema(() => listOf(level1Schema()))

export const getLevel1 = (country: string, signal?: AbortSignal) =>
  api('/api/locations/level1/', { query: { country }, schema: level1ListSchema, signal })

export const level1Options = (country: string) =>
  queryOptions({
    queryKey: searchKeys.level1(country),
    queryFn: ({ signal }) => getLevel1(country, signal),
    staleTime: 60 * 60_000,
  })
