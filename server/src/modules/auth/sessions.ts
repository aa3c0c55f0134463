import { randomUUID } from 'node:crypto'
import type { Db, Queryable } from '../../db/db.ts'
import { badRequest, tokenNotValid } from '../../lib/errors.ts'
import { issuedAtSeconds, signAccessToken, signRefreshToken, verifyToken } from './credentials.ts'

/**
 * Sessions: a family of refresh tokens (refresh_tokens.family_id), each used once. The access tokens
 * of a session carry its family (`fam`), so ending the family ends them too (requireAuth, credentials.ts).
 */
export const REFRESH_TOKEN_SECONDS = 14 * 86_400
/** A rotated refresh token presented again within this many seconds gets the same successor (a retry, two tabs). */
export const REFRESH_GRACE_SECONDS = 30

export interface TokenPair {
  access: string
  refresh: string
}

async function issueTokens(
  q: Queryable,
  secret: string,
  userId: number,
  familyId: string,
  now: Date,
  replacing?: string,
): Promise<TokenPair> {
  const jti = randomUUID()
  const user = (await q.query<{ tokens_valid_after: Date | null }>('SELECT tokens_valid_after FROM users WHERE id = $1', [userId])).rows[0]
  // Normally now; the second after a password reset for tokens issued within the reset's second.
  const nowSeconds = issuedAtSeconds(now, user?.tokens_valid_after)
  await q.query('INSERT INTO refresh_tokens (jti, user_id, family_id, expires_at, created_at) VALUES ($1, $2, $3, $4, $5)', [
    jti,
    userId,
    familyId,
    new Date(now.getTime() + REFRESH_TOKEN_SECONDS * 1000),
    now,
  ])
  await q.query('UPDATE refresh_tokens SET replaced_by = $2 WHERE jti = $1', [replacing ?? '', jti])
  return {
    access: await signAccessToken(secret, userId, nowSeconds, familyId),
    refresh: await signRefreshToken(secret, userId, jti, nowSeconds, REFRESH_TOKEN_SECONDS),
  }
}

/** A new session (refresh-token family) for the account: what sign-in and a password change hand out. */
export const issueSession = (q: Queryable, secret: string, userId: number, now: Date) => issueTokens(q, secret, userId, randomUUID(), now)

/**
 * The successor of a token rotated moments ago, signed again: HS256 over the same claims gives the
 * same string, so a retried or concurrent refresh gets exactly the refresh token the first one got.
 */
async function successorTokens(
  q: Queryable,
  secret: string,
  successor: { jti: string; user_id: number; family_id: string; created_at: Date },
  now: Date,
): Promise<TokenPair> {
  const user = (
    await q.query<{ tokens_valid_after: Date | null }>('SELECT tokens_valid_after FROM users WHERE id = $1', [successor.user_id])
  ).rows[0]
  const issued = issuedAtSeconds(new Date(successor.created_at), user?.tokens_valid_after)
  return {
    access: await signAccessToken(secret, successor.user_id, issuedAtSeconds(now, user?.tokens_valid_after), successor.family_id),
    refresh: await signRefreshToken(secret, successor.user_id, successor.jti, issued, REFRESH_TOKEN_SECONDS),
  }
}

/**
 * POST /api/token/refresh/: rotates a refresh token. Within the grace window a rotated token gets
 * the successor it got before; later, presenting it again ends its whole session.
 */
export async function refreshSession(db: Db, secret: string, refresh: string, now: Date): Promise<TokenPair> {
  const claims = await verifyToken(secret, refresh, 'refresh', now)
  if (!claims) throw tokenNotValid('Token is invalid or expired')
  // The verdict is returned, not thrown, so that a family revocation commits.
  const outcome = await db.tx(async (q) => {
    const row = (
      await q.query<{
        user_id: number
        family_id: string
        rotated_at: Date | null
        revoked_at: Date | null
        expires_at: Date
        replaced_by: string | null
      }>('SELECT user_id, family_id, rotated_at, revoked_at, expires_at, replaced_by FROM refresh_tokens WHERE jti = $1 FOR UPDATE', [
        claims.jti,
      ])
    ).rows[0]
    if (!row || row.user_id !== claims.userId || row.revoked_at || new Date(row.expires_at) <= now) {
      return { ok: false as const, detail: 'Token is invalid or expired' }
    }
    if (row.rotated_at) {
      // Within the grace window a retry or a second tab gets the successor it (or the other) got,
      // as long as that successor is itself still unused.
      // A request that read the clock before the rotation it waited on has a negative age: it is
      // concurrent, not a replay (treating it as reuse ended the session of two tabs refreshing at once).
      const age = now.getTime() - new Date(row.rotated_at).getTime()
      if (age <= REFRESH_GRACE_SECONDS * 1000 && row.replaced_by) {
        const successor = (
          await q.query<{ jti: string; user_id: number; family_id: string; created_at: Date }>(
            'SELECT jti, user_id, family_id, created_at FROM refresh_tokens WHERE jti = $1 AND rotated_at IS NULL AND revoked_at IS NULL',
            [row.replaced_by],
          )
        ).rows[0]
        if (successor) return { ok: true as const, tokens: await successorTokens(q, secret, successor, now) }
      }
      // Reuse of a rotated token: someone else may hold the family, so end all of it.
      await endSession(q, row.family_id, now)
      return { ok: false as const, detail: 'Token has already been used; this session has been ended' }
    }
    await q.query('UPDATE refresh_tokens SET rotated_at = $2 WHERE jti = $1', [claims.jti, now])
    return { ok: true as const, tokens: await issueTokens(q, secret, row.user_id, row.family_id, now, claims.jti) }
  })
  if (!outcome.ok) throw tokenNotValid(outcome.detail)
  return outcome.tokens
}

/**
 * POST /api/auth/logout/: ends the session of a refresh token. Expired tokens may sign out too: the
 * signature is what proves the caller held it.
 */
export async function signOut(db: Db, secret: string, refresh: string, now: Date): Promise<void> {
  const claims = await verifyToken(secret, refresh, 'refresh', new Date(0))
  if (!claims) throw badRequest({ refresh: [{ code: 'token_not_valid', message: 'Not a refresh token of this service.' }] })
  await db.query(
    `UPDATE refresh_tokens SET revoked_at = $2
        WHERE family_id = (SELECT family_id FROM refresh_tokens WHERE jti = $1 AND user_id = $3) AND revoked_at IS NULL`,
    [claims.jti, now, claims.userId],
  )
}

/** One session ends now: its refresh tokens, and with them its access tokens. */
export async function endSession(q: Queryable, familyId: string, now: Date): Promise<void> {
  await q.query('UPDATE refresh_tokens SET revoked_at = $2 WHERE family_id = $1 AND revoked_at IS NULL', [familyId, now])
}

/** Every session of the account ends now: its access tokens at once, its refresh tokens too. */
export async function endSessions(q: Queryable, userId: number, now: Date): Promise<void> {
  await q.query('UPDATE users SET tokens_valid_after = $2 WHERE id = $1', [userId, now])
  await q.query('UPDATE refresh_tokens SET revoked_at = $2 WHERE user_id = $1 AND revoked_at IS NULL', [userId, now])
}
