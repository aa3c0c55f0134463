import { queryOptions } from '@tanstack/react-query'
import { z } from 'zod/mini'
import { api, lazySchema } from '@/lib/api-client'
import { idSchema, listOf, optionalId, optionalName } from '@/api/schemas'
import { searchKeys } from './keys'

export const level2Schema = lazySchema(() =>
  z.looseObject({
    id: idSchema(),
    name: z.string(),
    code: optionalName(),
    level1_id: optionalId(),
    level1_name: optionalName(),
  }),
)
export type Level2 = z.infer<ReturnType<typeof level2Schema>>
const level2ListSchema = lazySchema(() => listOf(level2Schema()))

export const getLevel2 = (country: string, states: string[], signal?: AbortSignal) =>
  api('/api/locations/level2/', { query: { country, states }, schema: level2ListSchema, signal })

/** Counties of the chosen states (all of the country's when none is chosen). */
export const level2Options = (country: string, states: string[]) =>
  queryOptions({
    queryKey: searchKeys.level2(country, states),
    queryFn: ({ signal }) => getLevel2(country, states, signal),
    staleTime: 60 * 60_000,
  })

export const getLevel2One = (id: string, signal?: AbortSignal) =>
  api(`/api/locations/level2/${encodeURIComponent(id)}/`, { schema: level2Schema, signal })

/** One county by id (404 when the service doesn't know it). */
export const level2OneOptions = (id: string) =>
  queryOptions({
    queryKey: searchKeys.level2One(id),
    queryFn: ({ signal }) => getLevel2One(id, signal),
    staleTime: 60 * 60_000,
  })
