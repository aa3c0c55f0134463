import { queryOptions } from '@tanstack/react-query'
import { z } from 'zod/mini'
import { api, lazySchema } from '@/lib/api-client'
import { listKeys } from './keys'

/** Field → the index (from 0) of the column holding it. */
const mappingSchema = () => z.record(z.string(), z.number())

/** A list as GET /api/lists/ and the mapping's 202 answer give it (extension `lists`). */
export const listFields = () => ({
  id: z.pipe(z.union([z.number(), z.string()]), z.transform(String)),
  name: z.string(),
  status: z.string(),
  file_type: z.optional(z.string()),
  encoding: z.nullish(z.string()),
  delimiter: z.nullish(z.string()),
  headers: z.array(z.string()),
  proposed_mapping: mappingSchema(),
  mapping: z.nullish(mappingSchema()),
  default_country: z.nullish(z.string()),
  total_rows: z.number(),
  /** Rows the matching job has done so far: the progress while queued or matching. */
  matched_rows: z.number(),
  error: z.nullish(z.string()),
  created_at: z.string(),
  completed_at: z.nullish(z.string()),
})
export const listSchema = lazySchema(() => z.looseObject(listFields()))
export type List = z.output<ReturnType<typeof listSchema>>

/** While the service matches a list its page is polled; once it is done (or stopped) polling stops. */
export const isMatching = (status: string | undefined) => status === 'queued' || status === 'matching'
export const POLL_MS = 2000

const listsSchema = lazySchema(() => z.array(listSchema()))

export const getLists = (signal?: AbortSignal) => api('/api/lists/', { schema: listsSchema, signal })

export const listsOptions = () =>
  queryOptions({
    queryKey: listKeys.index(),
    queryFn: ({ signal }) => getLists(signal),
    refetchInterval: (q) => (q.state.data?.some((l) => isMatching(l.status)) ? POLL_MS : false),
  })
