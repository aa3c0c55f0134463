import { createHash, randomBytes, randomUUID } from 'node:crypto'
import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi'
import type { AppEnv } from '../app-env.ts'
import { issuedAtSeconds, signAccessToken, signRefreshToken, verifyToken } from '../lib/auth.ts'
import { addMonths, loadAccount } from '../lib/credits.ts'
import { badRequest, HttpError, tokenNotValid } from '../lib/errors.ts'
import { sendMail } from '../lib/mail.ts'
import { renderMail } from '../lib/mail-templates.ts'
import { dummyPasswordHash, hashPassword, verifyPassword } from '../lib/password.ts'
import { FREE_PLAN } from '../lib/plans.ts'
import { rateLimit } from '../lib/rate-limit.ts'
import { emailSchema, jsonBody, jsonError, languageSchema, nameSchema, safeString } from '../lib/schemas.ts'
import type { Queryable } from '../db/db.ts'

export const REFRESH_TOKEN_SECONDS = 14 * 86_400
const RESET_TOKEN_SECONDS = 3600

const passwordSchema = safeString().min(8, 'Use at least 8 characters.').max(128, 'Use at most 128 characters.')

const SignUpBody = z
  .object({
    email: emailSchema,
    password: passwordSchema,
    first_name: nameSchema.optional(),
    last_name: nameSchema.optional(),
    preferred_language: languageSchema.optional(),
  })
  .openapi('SignUpRequest')

const LoginBody = z
  .object({ username: safeString().min(1).max(254).openapi({ description: 'The account email.' }), password: safeString().min(1).max(1024) })
  .openapi('LoginRequest')

const LoginUser = z
  .object({
    id: z.string(),
    email: z.string(),
    first_name: z.string(),
    last_name: z.string(),
    remaining_credits: z.number().int(),
    subscription_plan: z.string().nullable().openapi({ description: 'Plan name.' }),
  })
  .openapi('LoginUser')

const TokenPair = z.object({ access: z.string(), refresh: z.string() }).openapi('TokenPair')

const tooMany = jsonError('Too many attempts from this address; see Retry-After.')

const signUpRoute = createRoute({
  method: 'post',
  path: '/api/auth/sign-up',
  tags: ['Authentication'],
  summary: 'Register an account (free plan)',
  request: { body: jsonBody(SignUpBody) },
  responses: {
    201: { description: 'Created', content: { 'application/json': { schema: z.object({ id: z.number().int(), email: z.string() }) } } },
    400: jsonError('Invalid input or email already registered'),
    429: tooMany,
  },
})

const loginRoute = createRoute({
  method: 'post',
  path: '/api/auth/login',
  tags: ['Authentication'],
  summary: 'Log in with email and password',
  request: { body: jsonBody(LoginBody) },
  responses: {
    200: {
      description: 'Tokens and the user',
      content: { 'application/json': { schema: TokenPair.extend({ user: LoginUser }).openapi('LoginResponse') } },
    },
    400: jsonError('Invalid input'),
    401: jsonError('Wrong credentials'),
    429: tooMany,
  },
})

const refreshRoute = createRoute({
  method: 'post',
  path: '/api/token/refresh',
  tags: ['Authentication'],
  summary: 'Rotate a refresh token',
  description:
    'Each refresh token can be used once; the answer carries a new one. Presenting a rotated token again revokes its whole family.',
  request: { body: jsonBody(z.object({ refresh: safeString().min(1).max(4096) })) },
  responses: {
    200: { description: 'New token pair', content: { 'application/json': { schema: TokenPair } } },
    400: jsonError('Invalid input'),
    401: jsonError('Refresh token invalid, expired, used or revoked (`code: token_not_valid`)'),
    429: tooMany,
  },
})

const resetRequestRoute = createRoute({
  method: 'post',
  path: '/api/auth/password-reset',
  tags: ['Authentication'],
  summary: 'Ask for a password-reset mail',
  description: 'Always 202, whether or not the account exists. The mail goes to the local outbox (DATA_DIR/outbox).',
  request: { body: jsonBody(z.object({ email: emailSchema })) },
  responses: {
    202: { description: 'Accepted', content: { 'application/json': { schema: z.object({ detail: z.string() }) } } },
    400: jsonError('Invalid input'),
    429: tooMany,
  },
})

const resetConfirmRoute = createRoute({
  method: 'post',
  path: '/api/auth/password-reset/confirm',
  tags: ['Authentication'],
  summary: 'Set a new password with the token from the mail',
  request: { body: jsonBody(z.object({ token: safeString().min(1).max(200), password: passwordSchema })) },
  responses: {
    200: { description: 'Password changed', content: { 'application/json': { schema: z.object({ detail: z.string() }) } } },
    400: jsonError('Invalid input, or the token is invalid, used or expired (on `token`)'),
    429: tooMany,
  },
})

const isUniqueViolation = (err: unknown) =>
  typeof err === 'object' && err !== null && (err as { code?: unknown }).code === '23505'

async function issueTokens(q: Queryable, secret: string, userId: number, familyId: string, now: Date) {
  const jti = randomUUID()
  const user = (await q.query<{ tokens_valid_after: Date | null }>('SELECT tokens_valid_after FROM users WHERE id = $1', [userId]))
    .rows[0]
  // Normally now; the second after a password reset for tokens issued within the reset's second.
  const nowSeconds = issuedAtSeconds(now, user?.tokens_valid_after)
  await q.query(
    'INSERT INTO refresh_tokens (jti, user_id, family_id, expires_at, created_at) VALUES ($1, $2, $3, $4, $5)',
    [jti, userId, familyId, new Date(now.getTime() + REFRESH_TOKEN_SECONDS * 1000), now],
  )
  return {
    access: await signAccessToken(secret, userId, nowSeconds),
    refresh: await signRefreshToken(secret, userId, jti, nowSeconds, REFRESH_TOKEN_SECONDS),
  }
}

const sha256 = (s: string) => createHash('sha256').update(s).digest('hex')

export function registerAuthRoutes(app: OpenAPIHono<AppEnv>) {
  // One budget per client address for all unauthenticated auth calls (login attempts included).
  const limit = rateLimit()
  for (const p of ['/api/auth/*', '/api/token/*']) app.use(p, limit)

  app.openapi(signUpRoute, async (c) => {
    const body = c.req.valid('json')
    const { db, clock } = c.var.deps
    const now = clock.now()
    const passwordHash = await hashPassword(body.password)
    try {
      const user = await db.tx(async (q) => {
        const taken = await q.query('SELECT 1 FROM users WHERE lower(email) = lower($1)', [body.email])
        if (taken.rows.length) throw badRequest({ email: ['An account with this email already exists.'] })
        const plan = (
          await q.query<{ id: number; monthly_credits: number }>('SELECT id, monthly_credits FROM plans WHERE plan_type = $1', [
            FREE_PLAN,
          ])
        ).rows[0]
        const { rows } = await q.query<{ id: number; email: string }>(
          `INSERT INTO users (email, password_hash, first_name, last_name, preferred_language, plan_id, remaining_credits,
                              current_period_start, current_period_end, created_at)
           VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $8) RETURNING id, email`,
          [
            body.email,
            passwordHash,
            body.first_name ?? '',
            body.last_name ?? '',
            body.preferred_language ?? 'en',
            plan?.id ?? null,
            Math.max(0, plan?.monthly_credits ?? 0),
            now,
            plan ? addMonths(now, 1) : null,
          ],
        )
        return rows[0]!
      })
      return c.json({ id: user.id, email: user.email }, 201)
    } catch (err) {
      if (isUniqueViolation(err)) throw badRequest({ email: ['An account with this email already exists.'] })
      throw err
    }
  })

  app.openapi(loginRoute, async (c) => {
    const { username, password } = c.req.valid('json')
    const { db, clock, config } = c.var.deps
    const now = clock.now()
    const found = (
      await db.query<{ id: number; password_hash: string }>('SELECT id, password_hash FROM users WHERE lower(email) = lower($1)', [
        username.trim(),
      ])
    ).rows[0]
    const ok = await verifyPassword(password, found?.password_hash ?? (await dummyPasswordHash()))
    if (!found || !ok) throw new HttpError(401, { detail: 'No active account found with the given credentials', code: 'invalid_credentials' })
    const tokens = await issueTokens(db, config.secret, found.id, randomUUID(), now)
    const account = (await loadAccount(db, found.id, now))!
    return c.json(
      {
        ...tokens,
        user: {
          id: String(account.id),
          email: account.email,
          first_name: account.first_name,
          last_name: account.last_name,
          remaining_credits: account.remaining_credits,
          subscription_plan: account.plan?.plan_type ?? null,
        },
      },
      200,
    )
  })

  app.openapi(refreshRoute, async (c) => {
    const { refresh } = c.req.valid('json')
    const { db, clock, config } = c.var.deps
    const now = clock.now()
    const claims = await verifyToken(config.secret, refresh, 'refresh', now)
    if (!claims) throw tokenNotValid('Token is invalid or expired')
    // The verdict is returned, not thrown, so that a family revocation commits.
    const outcome = await db.tx(async (q) => {
      const row = (
        await q.query<{ user_id: number; family_id: string; rotated_at: Date | null; revoked_at: Date | null; expires_at: Date }>(
          'SELECT user_id, family_id, rotated_at, revoked_at, expires_at FROM refresh_tokens WHERE jti = $1 FOR UPDATE',
          [claims.jti],
        )
      ).rows[0]
      if (!row || row.user_id !== claims.userId || row.revoked_at || new Date(row.expires_at) <= now) {
        return { ok: false as const, detail: 'Token is invalid or expired' }
      }
      if (row.rotated_at) {
        // Reuse of a rotated token: someone else may hold the family, so end all of it.
        await q.query('UPDATE refresh_tokens SET revoked_at = $2 WHERE family_id = $1 AND revoked_at IS NULL', [row.family_id, now])
        return { ok: false as const, detail: 'Token has already been used; this session has been ended' }
      }
      await q.query('UPDATE refresh_tokens SET rotated_at = $2 WHERE jti = $1', [claims.jti, now])
      return { ok: true as const, tokens: await issueTokens(q, config.secret, row.user_id, row.family_id, now) }
    })
    if (!outcome.ok) throw tokenNotValid(outcome.detail)
    return c.json(outcome.tokens, 200)
  })

  app.openapi(resetRequestRoute, async (c) => {
    const { email } = c.req.valid('json')
    const { db, clock, config } = c.var.deps
    const now = clock.now()
    const user = (
      await db.query<{ id: number; email: string; preferred_language: string | null }>(
        'SELECT id, email, preferred_language FROM users WHERE lower(email) = lower($1)',
        [email],
      )
    ).rows[0]
    if (user) {
      const token = randomBytes(32).toString('base64url')
      await db.query('INSERT INTO password_resets (token_hash, user_id, expires_at, created_at) VALUES ($1, $2, $3, $4)', [
        sha256(token),
        user.id,
        new Date(now.getTime() + RESET_TOKEN_SECONDS * 1000),
        now,
      ])
      const link = `${config.publicUrl}/reset-password?token=${encodeURIComponent(token)}`
      await sendMail(config.dataDir, {
        to: user.email,
        now,
        ...renderMail('password_reset', user.preferred_language, { link, hours: RESET_TOKEN_SECONDS / 3600 }),
      })
    }
    return c.json({ detail: 'If an account exists for this address, a reset link has been sent.' }, 202)
  })

  app.openapi(resetConfirmRoute, async (c) => {
    const { token, password } = c.req.valid('json')
    const { db, clock } = c.var.deps
    const now = clock.now()
    const passwordHash = await hashPassword(password)
    const done = await db.tx(async (q) => {
      const used = await q.query<{ user_id: number }>(
        'UPDATE password_resets SET used_at = $2 WHERE token_hash = $1 AND used_at IS NULL AND expires_at > $2 RETURNING user_id',
        [sha256(token), now],
      )
      const userId = used.rows[0]?.user_id
      if (!userId) return false
      // tokens_valid_after: access tokens issued up to now stop working at once (lib/auth.ts).
      await q.query('UPDATE users SET password_hash = $2, tokens_valid_after = $3 WHERE id = $1', [userId, passwordHash, now])
      // Other open reset links and every session of the account end with the old password.
      await q.query('UPDATE password_resets SET used_at = $2 WHERE user_id = $1 AND used_at IS NULL', [userId, now])
      await q.query('UPDATE refresh_tokens SET revoked_at = $2 WHERE user_id = $1 AND revoked_at IS NULL', [userId, now])
      return true
    })
    if (!done) throw badRequest({ token: ['This reset link is invalid, already used or expired.'] })
    return c.json({ detail: 'Your password has been changed.' }, 200)
  })
}
