import { queryOptions } from '@tanstack/react-query'
import { z } from 'zod/mini'
import { api, lazySchema } from '@/lib/api-client'
import { listKeys } from './keys'

/** The match report: rows by status, and the matched ones by the rule that matched them. */
const reportSchema = lazySchema(() =>
  z.looseObject({
    total_rows: z.number(),
    matched: z.number(),
    ambiguous: z.number(),
    unmatched: z.number(),
    pending: z.optional(z.number()),
    by_rule: z.record(z.string(), z.number()),
  }),
)
export type MatchReport = z.output<ReturnType<typeof reportSchema>>

export const getReport = (listId: string, signal?: AbortSignal) =>
  api(`/api/lists/${encodeURIComponent(listId)}/report/`, { schema: reportSchema, signal })

export const reportOptions = (listId: string) =>
  queryOptions({
    queryKey: listKeys.report(listId),
    queryFn: ({ signal }) => getReport(listId, signal),
  })
