import { queryOptions } from '@tanstack/react-query'
import { z } from 'zod/mini'
import { api, lazySchema } from '@/lib/api-client'
import { listKeys } from './keys'

/**
 * The price of filling in a list (extension `lists`): its matched rows and companies, those the account already
 * has, what it costs, and which columns the file keeps (the person's own), fills where empty, and adds.
 */
export const enrichmentQuoteSchema = lazySchema(() =>
  z.looseObject({
    matched_rows: z.number(),
    companies: z.number(),
    owned: z.number(),
    lead_count: z.number(),
    credits_required: z.number(),
    keeps: z.array(z.string()),
    fills: z.array(z.string()),
    fills_empty: z.array(z.string()),
  }),
)
export type EnrichmentQuote = z.output<ReturnType<typeof enrichmentQuoteSchema>>

export const getEnrichmentQuote = (listId: string, skipOwned: boolean, signal?: AbortSignal) =>
  api(`/api/lists/${encodeURIComponent(listId)}/enrichment/`, {
    query: { skip_owned: String(skipOwned) },
    schema: enrichmentQuoteSchema,
    signal,
  })

/**
 * Under the list's own key: whatever makes the list stale (a match changed by hand, a new enrichment) makes
 * its price stale too. Always asked afresh when the confirmation opens: the price is what gets charged.
 */
export const enrichmentQuoteOptions = (listId: string, skipOwned: boolean) =>
  queryOptions({
    queryKey: [...listKeys.detail(listId), 'enrichment', { skipOwned }] as const,
    queryFn: ({ signal }) => getEnrichmentQuote(listId, skipOwned, signal),
    staleTime: 0,
  })
