import { createHash, randomUUID, webcrypto } from 'node:crypto'
import { SignJWT, jwtVerify } from 'jose'
import type { MiddlewareHandler } from 'hono'
import type { AppEnv, KeyScope } from '../../app-env.ts'
import { prepared } from '../../db/db.ts'
import { HttpError, tokenNotValid, unauthorized } from '../../lib/errors.ts'
import { clientAddress, failedAuth, throttled } from '../../lib/rate-limit.ts'

export const ACCESS_TOKEN_SECONDS = 60 * 60

/**
 * The HMAC key of a secret, imported once: given the raw bytes, jose imports a WebCrypto key on
 * every sign and verify (about half of a verify's time). A few secrets at most per process (one
 * per running service; tests run several).
 */
const importedKeys = new Map<string, Promise<webcrypto.CryptoKey>>()
function key(secret: string): Promise<webcrypto.CryptoKey> {
  let imported = importedKeys.get(secret)
  if (!imported) {
    imported = webcrypto.subtle.importKey('raw', new TextEncoder().encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, [
      'sign',
      'verify',
    ])
    if (importedKeys.size >= 32) importedKeys.delete(importedKeys.keys().next().value!)
    importedKeys.set(secret, imported)
  }
  return imported
}

/** `fam`: the session (refresh-token family) the access token belongs to; ending it ends the token. */
export async function signAccessToken(secret: string, userId: number, nowSeconds: number, familyId?: string): Promise<string> {
  return new SignJWT({ token_type: 'access', ...(familyId ? { fam: familyId } : {}) })
    .setProtectedHeader({ alg: 'HS256' })
    .setSubject(String(userId))
    .setIssuedAt(nowSeconds)
    .setExpirationTime(nowSeconds + ACCESS_TOKEN_SECONDS)
    .setJti(randomUUID())
    .sign(await key(secret))
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
    .sign(await key(secret))
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

type Claims = { userId: number; jti: string; iat: number; familyId: string | null }

/**
 * Access tokens whose signature and claims jose has accepted, by the token's exact text: every
 * request of a session presents the same token, and checking its HMAC again (WebCrypto, a job on
 * libuv's thread pool) cost more CPU than the rest of a cheap request. What a token says never
 * changes, and the memo holds only tokens that verified under the same secret; the time checks
 * (exp, nbf) are made again on every use against the service clock. Whether the token may still be
 * used (sign-out, password reset, ended session) is never memoized: requireAuth asks the database
 * each time. Bounded: the oldest entries go first.
 */
const verifiedAccess = new Map<string, { secret: string; claims: Claims; exp: number; nbf: number | undefined }>()
const MAX_VERIFIED = 10_000

/** Verifies a JWT of the given type against the service clock; null when invalid or expired. */
export async function verifyToken(secret: string, token: string, type: 'access' | 'refresh', now: Date): Promise<Claims | null> {
  const nowSeconds = Math.floor(now.getTime() / 1000)
  const known = type === 'access' ? verifiedAccess.get(token) : undefined
  if (known && known.secret === secret) {
    // jose's own rules: expired when exp <= now, not yet valid when nbf > now (no tolerance)
    if (known.exp <= nowSeconds || (known.nbf !== undefined && known.nbf > nowSeconds)) return null
    return known.claims
  }
  try {
    const { payload } = await jwtVerify(token, await key(secret), { algorithms: ['HS256'], currentDate: now })
    if (payload.token_type !== type || !payload.sub || !payload.jti || typeof payload.iat !== 'number') return null
    const claims = Object.freeze({
      userId: Number(payload.sub),
      jti: payload.jti,
      iat: payload.iat,
      familyId: typeof payload.fam === 'string' ? payload.fam : null,
    })
    if (type === 'access' && typeof payload.exp === 'number') {
      if (verifiedAccess.size >= MAX_VERIFIED) verifiedAccess.delete(verifiedAccess.keys().next().value!)
      verifiedAccess.set(token, { secret, claims, exp: payload.exp, nbf: payload.nbf })
    }
    return claims
  } catch {
    return null
  }
}

export const hashApiKey = (token: string) => createHash('sha256').update(token).digest('hex')

const looksLikeJwt = (token: string) => token.split('.').length === 3

/**
 * `Authorization` exactly as the interface writes it: the scheme, ONE space, the credential, nothing
 * after it (`Token <key> trailing-garbage` is refused, not read as `<key>`). The credential is a JWT or
 * an API key: URL-safe base64 characters and dots only.
 */
const AUTHORIZATION = /^(Bearer|Token) ([A-Za-z0-9._~+/=-]+)$/i

export function parseAuthorization(header: string): { scheme: 'bearer' | 'token'; credential: string } | null {
  const m = AUTHORIZATION.exec(header)
  return m ? { scheme: m[1]!.toLowerCase() as 'bearer' | 'token', credential: m[2]! } : null
}

const malformedHeader = () =>
  new HttpError(401, {
    detail: 'Malformed Authorization header: use "Bearer <access token or API key>" or "Token <API key>".',
    code: 'invalid_authorization_header',
  })

/**
 * Resolves the caller from `Authorization: Bearer <jwt>`, `Bearer <api key>` or `Token <api key>`
 * (part 5; decisions.md: Bearer is tried as a JWT first). Sets c.var.user and c.var.credential.
 * Failures count against the client address (config.limits.failedAuth); past that budget the address
 * gets 429 before any credential is looked at, so guessing keys costs the guesser, not the service.
 */
export const requireAuth: MiddlewareHandler<AppEnv> = async (c, next) => {
  const deps = c.get('deps')
  const address = `ip:${clientAddress(c)}`
  const limit = deps.config.limits.failedAuth
  const blocked = failedAuth.over(deps, address, limit)
  if (blocked) throw throttled(blocked, `Too many failed authentications from this address. Expected available in ${blocked} seconds.`)
  try {
    await authenticate(c)
  } catch (err) {
    if (err instanceof HttpError && err.status === 401) failedAuth.hit(deps, address, limit)
    throw err
  }
  return next()
}

/**
 * What decides, on every request, whether a credential may still be used: read from the database
 * each time (never cached), so a sign-out, a password reset, an ended session or a revoked key
 * takes effect at once on every instance. One round trip each, prepared (db.ts).
 */
const ACCESS_STATE = prepared(
  `SELECT id, tokens_valid_after,
          EXISTS (SELECT 1 FROM refresh_tokens WHERE family_id = $2 AND revoked_at IS NOT NULL) AS session_ended
     FROM users WHERE id = $1`,
)
const API_KEY_STATE = prepared('SELECT id, user_id, expiry, revoked_at, scope, monthly_credit_cap FROM api_keys WHERE key_hash = $1')

async function authenticate(c: Parameters<MiddlewareHandler<AppEnv>>[0]): Promise<void> {
  const header = c.req.header('authorization')
  if (!header) throw unauthorized()
  const parsed = parseAuthorization(header)
  if (!parsed) throw malformedHeader()
  const { scheme, credential: token } = parsed
  const { db, clock, config } = c.get('deps')
  const now = clock.now()
  if (scheme === 'bearer' && looksLikeJwt(token)) {
    const claims = await verifyToken(config.secret, token, 'access', now)
    if (!claims) throw tokenNotValid()
    const found = (
      await db.query<{ id: number; tokens_valid_after: Date | null; session_ended: boolean }>(ACCESS_STATE, [
        claims.userId,
        claims.familyId ?? '',
      ])
    ).rows[0]
    if (!found) throw tokenNotValid('User not found')
    // Issued before the last password reset (see firstValidIatSeconds for the same-second rule).
    const firstValid = firstValidIatSeconds(found.tokens_valid_after)
    if (firstValid !== null && claims.iat < firstValid) throw tokenNotValid('Token was issued before the password was changed')
    // Its session was signed out or ended by a reused refresh token: the access token ends with it.
    if (found.session_ended) throw tokenNotValid('This session has been ended')
    c.set('user', { id: claims.userId })
    c.set('credential', `jwt:${claims.userId}`)
    c.set('apiKey', null)
    c.set('session', claims.familyId)
    return
  }
  const row = (
    await db.query<{
      id: string
      user_id: number
      expiry: Date | null
      revoked_at: Date | null
      scope: KeyScope
      monthly_credit_cap: number | null
    }>(API_KEY_STATE, [hashApiKey(token)])
  ).rows[0]
  if (!row || row.revoked_at || (row.expiry && new Date(row.expiry) <= now)) throw tokenNotValid('Invalid API key.')
  c.set('user', { id: row.user_id })
  c.set('credential', `key:${row.id}`)
  c.set('apiKey', { id: row.id, scope: row.scope, monthlyCap: row.monthly_credit_cap })
  c.set('session', null)
}
