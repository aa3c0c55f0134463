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

/** Verifies a JWT of the given type against the service clock; null when invalid or expired. */
export async function verifyToken(
  secret: string,
  token: string,
  type: 'access' | 'refresh',
  now: Date,
): Promise<{ userId: number; jti: string } | null> {
  try {
    const { payload } = await jwtVerify(token, key(secret), { algorithms: ['HS256'], currentDate: now })
    if (payload.token_type !== type || !payload.sub || !payload.jti) return null
    return { userId: Number(payload.sub), jti: payload.jti }
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
    const found = await db.query<{ id: number }>('SELECT id FROM users WHERE id = $1', [claims.userId])
    if (!found.rows[0]) throw tokenNotValid('User not found')
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
