import { queryOptions } from '@tanstack/react-query'
import { z } from 'zod/mini'
import { api } from '@/lib/api-client'
import type { PreviewQuery } from '@/domain/search-filters'
import { exportKeys } from '@/api/exports/keys'

/** The reference service's `skip_owned` extension: how many leads of a search this account already has. */
export const ownedSchema = z.looseObject({ totalCount: z.number(), owned_count: z.number(), new_count: z.number() })
export type Owned = z.infer<typeof ownedSchema>

/** Cached per filter set; a superseded request is aborted. Free, like the count. */
export const ownedOptions = (query: PreviewQuery) =>
  queryOptions({
    queryKey: exportKeys.owned(query),
    queryFn: ({ signal }) => api('/api/companies/owned/', { query, schema: ownedSchema, signal }),
    staleTime: 30_000,
  })
