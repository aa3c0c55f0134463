import { queryOptions } from '@tanstack/react-query'
import { z } from 'zod/mini'
import { api, lazySchema } from '@/lib/api-client'
import { idSchema, listOf, optionalId, optionalName } from '@/api/schemas'
import { searchKeys } from './keys'

export const level3Schema = lazySchema(() =>
  z.looseObject({
    id: idSchema(),
    name: z.string(),
    code: optionalName(),
    level2_id: optionalId(),
    level2_name: optionalName(),
    level1_id: optionalId(),
    level1_name: optionalName(),
  }),
)
export type Level3 = z.infer<ReturnType<typeof level3Schema>>
const level3ListSchema = lazySchema(() => listOf(level3Schema()))

export const getLevel3 = (country: string, states: string[], counties: string[], signal?: AbortSignal) =>
  api('/api/locations/level3/', { query: { country, states, counties }, schema: level3ListSchema, signal })

/** Cities of the chosen states and counties. */
export const level3Options = (country: string, states: string[], counties: string[]) =>
  queryOptions({
    queryKey: searchKeys.level3(country, states, counties),
    queryFn: ({ signal }) => getLevel3(country, states, counties, signal),
    staleTime: 60 * 60_000,
  })
