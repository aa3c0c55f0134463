import { z } from 'zod/mini'
import { api, ApiError } from '@/lib/api-client'
import { looseNumber, opaqueId } from '@/api/schemas'

/*
 * The fresh-data request itself, without React Query's mutation code: the navigation's watched-search
 * badge asks dry runs on every page, so it must not pull the mutation hooks into the first load.
 */
export const VALIDATION_CODES = ['ok', 'no_new_leads', 'insufficient_credits', 'fresh_exports_not_allowed', 'not_completed'] as const

/** Counts that may be missing, null or a numeric string: 0 when unknown. */
const orZero = z.pipe(
  looseNumber(),
  z.transform((v) => v ?? 0),
)

export const deltaResultSchema = z.object({
  status: z.string(),
  validation_code: z.pipe(
    z.nullish(z.string()),
    z.transform((v) => v ?? 'ok'),
  ),
  search_id: opaqueId(),
  lead_count: orZero,
  required_credits: orZero,
  available_credits: orZero,
  freshness: z.nullish(
    z.object({
      original_exported_at: z.nullish(z.string()),
      /** Reference service: the latest export of this search (original or fresh data), the cut-off for "new". */
      last_exported_at: z.nullish(z.string()),
      original_lead_count: z.nullish(z.number()),
      current_total: z.nullish(z.number()),
      new_since_export: z.nullish(z.number()),
      capped: z.nullish(z.boolean()),
    }),
  ),
  freshness_checked_at: z.nullish(z.string()),
})
export type DeltaResult = z.infer<typeof deltaResultSchema>

/**
 * `{dry_run: true}` only validates (charges nothing); `{}` validates and, when valid, starts the
 * export and charges (decisions.md). A rejection arrives as 403/409 (or 200) with the same body, so
 * it is a verdict to show, not an error.
 */
export async function requestDelta(searchId: string, dryRun: boolean): Promise<DeltaResult> {
  try {
    return await api(`/api/user/search-history/${encodeURIComponent(searchId)}/download-delta/`, {
      method: 'POST',
      body: dryRun ? { dry_run: true } : {},
      schema: deltaResultSchema,
    })
  } catch (err) {
    if (err instanceof ApiError && (err.status === 403 || err.status === 409 || err.status === 402 || err.status === 400)) {
      const verdict = deltaResultSchema.safeParse({ search_id: searchId, ...err.body })
      if (verdict.success && err.validationCode) return verdict.data
    }
    throw err
  }
}

export const deltaStarted = (r: DeltaResult) => r.status.toLowerCase() === 'started'
