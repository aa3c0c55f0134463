import { createHash } from 'node:crypto'
import { SignJWT, jwtVerify } from 'jose'
import { randomUUID } from 'node:crypto'
import type { MiddlewareHandler } from 'hono'
import type { AppEnv } from '../app-env.ts'
import { tokenNotValid, unauthorized } from './errors.ts'

export const ACCESS_TOKEN_SECONDS = 60 * 60

const key = (secret: string) => new TextEncoder().encode(secret)

export async function signAccessToken(secret: string, userId: number, nowSeconds: number): Promise<string> {
  return new SignJWT({ token_type: 'access' })
    .setProtectedHeader({ alg: 'HS256' })
    .setSubject(String(userId))
    .setIssuedAt(nowSeconds)
    .setExpirationTime(nowSeconds + ACCESS_TOKEN_SECONDS)
    .setJti(randomUUID())
    .sign(key(secret))
}

export async function signRefreshToken(
  secret: string,
  userId: number,
  jti: string,
  nowSeconds: number,
  lifetimeSeconds: number,
): Promise<string> {
  return new SignJWT({ token_type: 'refresh' })
    .setProtectedHeader({ alg: 'HS256' })
    .setSubject(String(userId))
    .setIssuedAt(nowSeconds)
    .setExpirationTime(nowSeconds + lifetimeSeconds)
    .setJti(jti)
    .sign(key(secret))
}

/**
 * Tokens carry `iat` in whole seconds, so a token issued earlier in the second of a password reset
 * and one issued later in it would look alike. The choice: `users.tokens_valid_after` holds the exact
 * reset instant, and the first second whose tokens are valid is the one AFTER the reset's second
 * (floor + 1) — so every token issued before the reset, same second included, is refused. A token
 * issued after the reset but still in its second gets its `iat` (and `exp`) stamped with that next
 * second instead (`issuedAtSeconds`): at most one second ahead, never refused, never shorter-lived.
 */
export function firstValidIatSeconds(tokensValidAfter: Date | null | undefined): number | null {
  return tokensValidAfter ? Math.floor(new Date(tokensValidAfter).getTime() / 1000) + 1 : null
}

/** The `iat` for a token issued now to an account whose tokens are valid after `tokensValidAfter`. */
export function issuedAtSeconds(now: Date, tokensValidAfter: Date | null | undefined): number {
  const nowSeconds = Math.floor(now.getTime() / 1000)
  return Math.max(nowSeconds, firstValidIatSeconds(tokensValidAfter) ?? nowSeconds)
}

/** Verifies a JWT of the given type against the service clock; null when invalid or expired. */
export async function verifyToken(
  secret: string,
  token: string,
  type: 'access' | 'refresh',
  now: Date,
): Promise<{ userId: number; jti: string; iat: number } | null> {
  try {
    const { payload } = await jwtVerify(token, key(secret), { algorithms: ['HS256'], currentDate: now })
    if (payload.token_type !== type || !payload.sub || !payload.jti || typeof payload.iat !== 'number') return null
    return { userId: Number(payload.sub), jti: payload.jti, iat: payload.iat }
  } catch {
    return null
  }
}

export const hashApiKey = (token: string) => createHash('sha256').update(token).digest('hex')

const looksLikeJwt = (token: string) => token.split('.').length === 3

/**
 * Resolves the caller from `Authorization: Bearer <jwt>`, `Bearer <api key>` or `Token <api key>`
 * (part 5; decisions.md: Bearer is tried as a JWT first). Sets c.var.user and c.var.credential.
 */
export const requireAuth: MiddlewareHandler<AppEnv> = async (c, next) => {
  const header = c.req.header('authorization')
  if (!header) throw unauthorized()
  const [scheme, token] = header.trim().split(/\s+/, 2)
  if (!token || !/^(bearer|token)$/i.test(scheme ?? '')) throw tokenNotValid()
  const { db, clock, config } = c.var.deps
  const now = clock.now()
  if (/^bearer$/i.test(scheme!) && looksLikeJwt(token)) {
    const claims = await verifyToken(config.secret, token, 'access', now)
    if (!claims) throw tokenNotValid()
    const found = (
      await db.query<{ id: number; tokens_valid_after: Date | null }>('SELECT id, tokens_valid_after FROM users WHERE id = $1', [
        claims.userId,
      ])
    ).rows[0]
    if (!found) throw tokenNotValid('User not found')
    // Issued before the last password reset (see firstValidIatSeconds for the same-second rule).
    const firstValid = firstValidIatSeconds(found.tokens_valid_after)
    if (firstValid !== null && claims.iat < firstValid) throw tokenNotValid('Token was issued before the password was changed')
    c.set('user', { id: claims.userId })
    c.set('credential', `jwt:${claims.userId}`)
    return next()
  }
  const row = (
    await db.query<{ id: string; user_id: number; expiry: Date | null; revoked_at: Date | null }>(
      'SELECT id, user_id, expiry, revoked_at FROM api_keys WHERE key_hash = $1',
      [hashApiKey(token)],
    )
  ).rows[0]
  if (!row || row.revoked_at || (row.expiry && new Date(row.expiry) <= now)) throw tokenNotValid('Invalid API key.')
  c.set('user', { id: row.user_id })
  c.set('credential', `key:${row.id}`)
  return next()
}
