import { queryOptions } from '@tanstack/react-query'
import { z } from 'zod/mini'
import { api, lazySchema } from '@/lib/api-client'
import { searchKeys } from './keys'
import { idSchema, list, optionalId, optionalName } from '@/api/schemas'

export const placeHitSchema = lazySchema(() =>
  z.looseObject({
    id: idSchema(),
    name: z.string(),
    level: z.pipe(
      z.union([z.number(), z.string()]),
      z.transform((l) => Number(String(l).replace(/\D/g, '')) || 1),
    ),
    country: optionalName(),
    level1_id: optionalId(),
    level1_name: optionalName(),
    level2_id: optionalId(),
    level2_name: optionalName(),
    /** Extension `place_names`: the place's name in another language that the query matched ("Munich" for München). */
    matched_name: optionalName(),
  }),
)
export type PlaceHit = z.infer<ReturnType<typeof placeHitSchema>>

const hits = lazySchema(() => list(placeHitSchema()))
/**
 * The interface writes this endpoint as "status 200 with no response body": such an answer is not an
 * error but a service that finds no places by name (null); the lists by level still work.
 */
export const placeSearchSchema = lazySchema(() =>
  z.union([
    z.looseObject({ level1: hits(), level2: hits(), level3: hits() }),
    z.pipe(
      z.undefined(),
      z.transform(() => null),
    ),
  ]),
)

export interface PlaceSearchParams {
  q: string
  country: string | undefined
  states: string[]
  counties: string[]
  /**
   * Extension `place_names`: the reader's language, so that "Köln" typed in German and "Cologne" in
   * English both find the city, each named as the reader calls it. Only for a service that lists the
   * extension: the interface knows no such parameter.
   */
  lng?: string | undefined
}

export const searchPlaces = (params: PlaceSearchParams, signal?: AbortSignal) =>
  api('/api/locations/search/', { query: { ...params }, schema: placeSearchSchema, signal })

/** Fuzzy search over all three levels (≤ 10 per level), narrowed by chosen states/counties; the language is part of the key. */
export const placeSearchOptions = (params: PlaceSearchParams) =>
  queryOptions({
    queryKey: searchKeys.places(params),
    queryFn: ({ signal }) => searchPlaces(params, signal),
    enabled: params.q.trim().length >= 2,
    staleTime: 5 * 60_000,
  })
