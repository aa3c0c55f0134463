import type { ApiKeyCredential, KeyScope } from '../../app-env.ts'
import type { Queryable } from '../../db/db.ts'
import { HttpError } from '../../lib/errors.ts'

/**
 * Scoped API keys (issue 12, extension `scoped_api_keys`). What a request's key may do is read once
 * by requireAuth (`c.var.apiKey`); a password session has no key and no limits here.
 */
export const KEY_SCOPES = ['read', 'export'] as const satisfies readonly KeyScope[]
export type { ApiKeyCredential }

/** Refuses a read-only key before anything else is looked at: `what` says what it tried. */
export function refuseReadOnlyKey(c: { var: { apiKey: ApiKeyCredential | null } }, what: string): void {
  if (c.var.apiKey?.scope !== 'read') return
  throw new HttpError(403, {
    detail: `This API key is read-only: it can search, preview, read the history and download, not ${what}. Use a key with export rights.`,
    code: 'api_key_read_only',
  })
}

/** The first instant of `now`'s calendar month (UTC): a key's cap counts from here. */
export function capPeriodStart(now: Date): Date {
  return new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1))
}

/** Credits charged this period by exports the key started (failed ones too: they were charged). */
export async function keySpend(q: Queryable, keyIds: string[], now: Date): Promise<Map<string, number>> {
  const spent = new Map<string, number>(keyIds.map((id) => [id, 0]))
  if (!keyIds.length) return spent
  const { rows } = await q.query<{ api_key_id: string; credits: number }>(
    `SELECT api_key_id, coalesce(sum(credits_charged), 0)::int AS credits FROM searches
      WHERE api_key_id = ANY($1) AND kind = 'export' AND created_at >= $2 GROUP BY api_key_id`,
    [keyIds, capPeriodStart(now)],
  )
  for (const r of rows) spent.set(r.api_key_id, r.credits)
  return spent
}

/**
 * Inside the transaction that charges, after the account row is locked (so concurrent exports of the
 * account, and of the key, are counted one after another): refuses a charge that would take the key
 * past its cap.
 */
export async function checkKeyCap(q: Queryable, key: ApiKeyCredential | null, credits: number, now: Date): Promise<void> {
  if (!key || key.monthlyCap === null) return
  const spent = (await keySpend(q, [key.id], now)).get(key.id) ?? 0
  if (spent + credits <= key.monthlyCap) return
  const left = Math.max(0, key.monthlyCap - spent)
  throw new HttpError(403, {
    detail: `This API key may spend ${key.monthlyCap} credits a month; ${spent} are spent and this export needs ${credits}. Cap the export at ${left} leads or use another key.`,
    code: 'api_key_cap_reached',
    validation_code: 'api_key_cap_reached',
    cap: key.monthlyCap,
    spent,
    required_credits: credits,
  })
}
