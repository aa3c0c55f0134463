import { queryOptions } from '@tanstack/react-query'
import { z } from 'zod/mini'
import { api, lazySchema } from '@/lib/api-client'
import { idSchema } from '@/api/schemas'
import { mapKeys } from './keys'

/** GET /api/map/labels (extension `geo`): states and cities with their positions, named in the reader's language where known. */
export const mapLabelsSchema = lazySchema(() =>
  z.array(z.looseObject({ id: idSchema(), name: z.string(), level: z.number(), latitude: z.number(), longitude: z.number() })),
)
export type MapLabel = z.infer<ReturnType<typeof mapLabelsSchema>>[number]

export const getMapLabels = (lang: string, signal?: AbortSignal) =>
  api('/api/map/labels', { query: { lng: lang }, schema: mapLabelsSchema, signal })

/** Fixed reference data: asked once per language and session. */
export const mapLabelsOptions = (lang: string) =>
  queryOptions({ queryKey: mapKeys.labels(lang), queryFn: ({ signal }) => getMapLabels(lang, signal), staleTime: Infinity })
