import type { Queryable } from '../db/db.ts'

/**
 * The back-off of password guesses (sign-in and every check of the current password), in the
 * database so that it holds across client addresses and service instances: after FREE_FAILURES
 * failures for one key, each further one doubles the wait from 30 s up to 15 minutes; the right
 * password clears it; a quiet hour forgets it. Keys (login_failures.email_lower):
 * - the typed address, lower case (sign-in from a device that never signed in to the account);
 * - `device:<device id>:<account id>` (sign-in from a device that did: modules/auth/device.ts), so a stranger's
 *   guesses elsewhere never lock the owner's own devices out;
 * - `password:<account id>` (the current password asked by PATCH /api/user/profile/ and
 *   POST /api/user/password/ in a signed-in session).
 */
export const FREE_FAILURES = 5
const BASE_MS = 30_000
const MAX_MS = 15 * 60_000
const QUIET_MS = 3_600_000

export const deviceKey = (deviceId: string, userId: number) => `device:${deviceId}:${userId}`
export const passwordCheckKey = (userId: number) => `password:${userId}`

interface Row {
  failures: number
  blocked_until: Date | null
  last_failure_at: Date
}

const read = async (q: Queryable, key: string) =>
  (await q.query<Row>('SELECT failures, blocked_until, last_failure_at FROM login_failures WHERE email_lower = $1', [key])).rows[0]

/** Seconds to wait before the next try for `key`, or 0. */
export async function waitSeconds(q: Queryable, key: string, now: Date): Promise<number> {
  const row = await read(q, key)
  if (!row?.blocked_until || new Date(row.blocked_until) <= now) return 0
  return Math.max(1, Math.ceil((new Date(row.blocked_until).getTime() - now.getTime()) / 1000))
}

/** Counts one failure for `key`; returns the failures counted within the last quiet hour, this one included. */
export async function recordFailure(q: Queryable, key: string, now: Date): Promise<number> {
  const row = await read(q, key)
  const earlier = row && now.getTime() - new Date(row.last_failure_at).getTime() < QUIET_MS ? row.failures : 0
  const count = earlier + 1
  const over = count - FREE_FAILURES
  const blockedUntil = over >= 0 ? new Date(now.getTime() + Math.min(MAX_MS, BASE_MS * 2 ** over)) : null
  await q.query(
    `INSERT INTO login_failures (email_lower, failures, blocked_until, last_failure_at) VALUES ($1, $2, $3, $4)
     ON CONFLICT (email_lower) DO UPDATE SET failures = $2, blocked_until = $3, last_failure_at = $4`,
    [key, count, blockedUntil, now],
  )
  return count
}

export async function clearFailures(q: Queryable, key: string): Promise<void> {
  await q.query('DELETE FROM login_failures WHERE email_lower = $1', [key])
}
