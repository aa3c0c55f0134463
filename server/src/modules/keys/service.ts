import { randomBytes, randomUUID } from 'node:crypto'
import type { KeyScope } from '../../app-env.ts'
import type { Db, Queryable } from '../../db/db.ts'
import { badRequest, HttpError, notFound } from '../../lib/errors.ts'
import { hashApiKey } from '../auth/credentials.ts'
import { capPeriodStart, keySpend } from './scope.ts'

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'
export const API_KEY_PREFIX_LENGTH = 8
/** Extension `api_key_names`: a key's name is 1–60 characters once trimmed (migration 029). */
export const MAX_KEY_NAME = 60

/** `lds_` + 40 base62 characters (~238 bits), drawn without modulo bias. */
export function newApiKey(): string {
  let out = ''
  while (out.length < 40) {
    for (const b of randomBytes(48)) {
      if (b < 248 && out.length < 40) out += BASE62[b % 62]
    }
  }
  return `lds_${out}`
}

interface KeyRow {
  id: string
  token_key: string
  created_at: Date
  expiry: Date | null
  scope: KeyScope
  monthly_credit_cap: number | null
  name: string | null
}
const KEY_COLUMNS = 'id, token_key, created_at, expiry, scope, monthly_credit_cap, name'
const toJson = (k: KeyRow, spent: number, periodStart: Date) => ({
  id: k.id,
  token_key: k.token_key,
  name: k.name,
  created: new Date(k.created_at).toISOString(),
  expiry: k.expiry ? new Date(k.expiry).toISOString() : null,
  scope: k.scope,
  monthly_credit_cap: k.monthly_credit_cap,
  credits_spent_this_period: spent,
  period_start: periodStart.toISOString(),
})

/** The account's keys that have not been revoked (expired ones too), newest first, with what each spent this period. */
export async function listKeys(db: Db, userId: number, now: Date) {
  const { rows } = await db.query<KeyRow>(
    `SELECT ${KEY_COLUMNS} FROM api_keys WHERE user_id = $1 AND revoked_at IS NULL ORDER BY created_at DESC, id`,
    [userId],
  )
  const spent = await keySpend(
    db,
    rows.map((r) => r.id),
    now,
  )
  return rows.map((r) => toJson(r, spent.get(r.id) ?? 0, capPeriodStart(now)))
}

/**
 * A new key for an account whose address is confirmed, within `limit` active keys; the full key is
 * in this answer only (only its SHA-256 is stored).
 */
export async function createKey(
  db: Db,
  userId: number,
  key: { expiry: Date | null; scope: KeyScope; monthlyCreditCap: number | null; name: string | null },
  limit: number,
  now: Date,
) {
  const token = newApiKey()
  const row = await db.tx(async (q) => {
    // The account row lock serialises concurrent creations, so two at once cannot both pass the cap.
    const account = (
      await q.query<{ email_confirmed_at: Date | null }>('SELECT email_confirmed_at FROM users WHERE id = $1 FOR UPDATE', [userId])
    ).rows[0]
    // a key outlives the session that made it: only for an account whose address is confirmed
    if (!account?.email_confirmed_at) {
      throw new HttpError(403, {
        detail: 'Confirm your email address first: API keys are for confirmed accounts.',
        code: 'email_not_confirmed',
      })
    }
    const active = (
      await q.query<{ n: number }>(
        'SELECT count(*)::int AS n FROM api_keys WHERE user_id = $1 AND revoked_at IS NULL AND (expiry IS NULL OR expiry > $2)',
        [userId, now],
      )
    ).rows[0]!.n
    if (active >= limit) {
      throw badRequest(
        {
          non_field_errors: [
            {
              code: 'api_key_limit',
              message: `An account can hold at most ${limit} active API keys: revoke one first.`,
              params: { limit },
            },
          ],
        },
        `An account can hold at most ${limit} active API keys.`,
      )
    }
    const { rows } = await q.query<KeyRow>(
      `INSERT INTO api_keys (id, user_id, token_key, key_hash, created_at, expiry, scope, monthly_credit_cap, name)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9) RETURNING ${KEY_COLUMNS}`,
      [
        randomUUID(),
        userId,
        token.slice(0, API_KEY_PREFIX_LENGTH),
        hashApiKey(token),
        now,
        key.expiry,
        key.scope,
        key.monthlyCreditCap,
        key.name,
      ],
    )
    return rows[0]!
  })
  return { token, api_key: toJson(row, 0, capPeriodStart(now)) }
}

/** Revokes one of the account's keys, at once and for good; 404 when it has no such key. */
export async function revokeKey(db: Db, userId: number, keyId: string, now: Date): Promise<void> {
  const { rows } = await db.query(
    'UPDATE api_keys SET revoked_at = $3 WHERE id = $1 AND user_id = $2 AND revoked_at IS NULL RETURNING id',
    [keyId, userId, now],
  )
  if (!rows.length) throw notFound('API key not found.')
}

/** The account's API keys that still work (prefix and creation date), as the password-change answer and mail list them. */
export async function activeKeys(q: Queryable, userId: number, now: Date) {
  return (
    await q.query<{ id: string; prefix: string; created: Date; expiry: Date | null }>(
      `SELECT id, token_key AS prefix, created_at AS created, expiry FROM api_keys
        WHERE user_id = $1 AND revoked_at IS NULL AND (expiry IS NULL OR expiry > $2) ORDER BY created_at`,
      [userId, now],
    )
  ).rows
}
