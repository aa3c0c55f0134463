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
import { rateLimit, throttled } from '../lib/rate-limit.ts'
import { authErrors, emailSchema, jsonBody, jsonError, languageSchema, nameSchema, safeString } from '../lib/schemas.ts'
import type { Queryable } from '../db/db.ts'
import { authed, security } from '../lib/authed.ts'
import type { Config } from '../config.ts'
import type { Deps } from '../app-env.ts'
import { afterAnswer } from '../lib/after-answer.ts'
import { clearFailures, deviceKey, FREE_FAILURES, passwordCheckKey, recordFailure, waitSeconds } from '../lib/backoff.ts'
import { deviceCookieOf, knownDevice, rememberDevice } from '../lib/device.ts'

export const REFRESH_TOKEN_SECONDS = 14 * 86_400
const RESET_TOKEN_SECONDS = 3600
/** A sign-up confirmation link lives a week; a new-address link a day. */
export const SIGNUP_CONFIRM_SECONDS = 7 * 86_400
export const EMAIL_CHANGE_CONFIRM_SECONDS = 86_400
/** A rotated refresh token presented again within this many seconds gets the same successor (a retry, two tabs). */
export const REFRESH_GRACE_SECONDS = 30
/** Failed sign-ins for one address before the back-off starts; it then doubles from 30 s up to 15 min (lib/backoff.ts). */
export const LOGIN_FREE_FAILURES = FREE_FAILURES
/** Password-reset mails per account and hour; past it the answer is the same 202 and no mail goes out. */
export const RESET_MAILS_PER_HOUR = 3

export const PASSWORD_MIN = 8
export const PASSWORD_MAX = 128
export const passwordSchema = safeString()
  .refine((s) => s.length >= PASSWORD_MIN, {
    message: `Use at least ${PASSWORD_MIN} characters.`,
    params: { code: 'password_too_short', limit: PASSWORD_MIN },
  })
  .refine((s) => s.length <= PASSWORD_MAX, {
    message: `Use at most ${PASSWORD_MAX} characters.`,
    params: { code: 'password_too_long', limit: PASSWORD_MAX },
  })
  .openapi({ minLength: PASSWORD_MIN, maxLength: PASSWORD_MAX })

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
  .object({
    username: safeString().min(1).max(254).openapi({ description: 'The account email.' }),
    password: safeString().min(1).max(1024),
  })
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
    201: {
      description:
        "Created. The account can sign in at once; the free plan's credits arrive when the address is confirmed through the mailed link (POST /api/auth/confirm-email/).",
      content: { 'application/json': { schema: z.object({ id: z.number().int(), email: z.string() }) } },
    },
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
    401: jsonError('Wrong credentials (`code: invalid_credentials`)'),
    429: jsonError(
      'Too many attempts: from this address, or for this account (after 5 failed sign-ins each further one doubles the wait, from 30 s up to 15 min; a success resets it). A device that signed in to the account before (the HttpOnly `leads.device` cookie this answer sets) has a back-off of its own, so guesses made elsewhere do not lock it out. `retry_after` in seconds.',
    ),
  },
})

const refreshRoute = createRoute({
  method: 'post',
  path: '/api/token/refresh',
  tags: ['Authentication'],
  summary: 'Rotate a refresh token',
  description:
    'Each refresh token can be used once; the answer carries a new one. Presenting a rotated token again within 30 seconds (a retry, a second tab) gets the same new refresh token; later, it revokes its whole family, and the access tokens of that family stop working at once.',
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
  description:
    'Always 202, in the same time whether or not the account exists: the account is looked up and the mail sent after the answer. The mail goes to the local outbox (DATA_DIR/outbox).',
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

const logoutRoute = createRoute({
  method: 'post',
  path: '/api/auth/logout',
  tags: ['Authentication'],
  summary: 'Sign out: end the session of a refresh token',
  description:
    "Revokes the refresh token's whole family; the access tokens issued in that session stop working at once. Always 204 for a token this service signed (already ended, expired or not).",
  'x-extension': true,
  request: { body: jsonBody(z.object({ refresh: safeString().min(1).max(4096) })) },
  responses: {
    204: { description: 'Signed out' },
    400: jsonError('Invalid input, or not a refresh token of this service (on `refresh`)'),
    429: tooMany,
  },
})

const confirmEmailRoute = createRoute({
  method: 'post',
  path: '/api/auth/confirm-email',
  tags: ['Authentication'],
  summary: 'Confirm an address with the token from the mail',
  description:
    "A sign-up link confirms the account and grants the free plan's credits; an email-change link makes the new address the sign-in address.",
  'x-extension': true,
  request: { body: jsonBody(z.object({ token: safeString().min(1).max(200) })) },
  responses: {
    200: {
      description: 'Confirmed',
      content: {
        'application/json': { schema: z.object({ detail: z.string(), kind: z.enum(['signup', 'email_change']), email: z.string() }) },
      },
    },
    400: jsonError(
      'The link is invalid, used or expired (`code: confirmation_invalid` on `token`), or the new address was taken meanwhile',
    ),
    429: tooMany,
  },
})

const resendConfirmationRoute = createRoute({
  method: 'post',
  path: '/api/auth/confirm-email/resend',
  tags: ['Authentication'],
  summary: 'Mail the sign-up confirmation link again',
  'x-extension': true,
  middleware: authed,
  security,
  responses: {
    202: { description: 'Sent (at most 3 an hour)', content: { 'application/json': { schema: z.object({ detail: z.string() }) } } },
    409: jsonError('The address is already confirmed (`code: already_confirmed`)'),
    ...authErrors,
  },
})

const isUniqueViolation = (err: unknown) => typeof err === 'object' && err !== null && (err as { code?: unknown }).code === '23505'

async function issueTokens(q: Queryable, secret: string, userId: number, familyId: string, now: Date, replacing?: string) {
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
) {
  const user = (
    await q.query<{ tokens_valid_after: Date | null }>('SELECT tokens_valid_after FROM users WHERE id = $1', [successor.user_id])
  ).rows[0]
  const issued = issuedAtSeconds(new Date(successor.created_at), user?.tokens_valid_after)
  return {
    access: await signAccessToken(secret, successor.user_id, issuedAtSeconds(now, user?.tokens_valid_after), successor.family_id),
    refresh: await signRefreshToken(secret, successor.user_id, successor.jti, issued, REFRESH_TOKEN_SECONDS),
  }
}

/** Mails a one-use confirmation link (sign-up or new address); only its hash is stored. */
export async function sendConfirmation(
  q: Queryable,
  config: Config,
  user: { id: number; preferred_language: string | null },
  kind: 'signup' | 'email_change',
  to: string,
  now: Date,
  extra: { credits?: number } = {},
) {
  const token = randomBytes(32).toString('base64url')
  const seconds = kind === 'signup' ? SIGNUP_CONFIRM_SECONDS : EMAIL_CHANGE_CONFIRM_SECONDS
  await q.query(
    'INSERT INTO email_confirmations (token_hash, user_id, kind, new_email, expires_at, created_at) VALUES ($1, $2, $3, $4, $5, $6)',
    [sha256(token), user.id, kind, kind === 'email_change' ? to : null, new Date(now.getTime() + seconds * 1000), now],
  )
  const link = `${config.publicUrl}/confirm-email?token=${encodeURIComponent(token)}`
  const mail =
    kind === 'signup'
      ? renderMail('signup_confirm', user.preferred_language, { link, credits: extra.credits ?? 0 })
      : renderMail('email_change_confirm', user.preferred_language, { link, new_email: to })
  await sendMail(config.dataDir, { to, now, ...mail })
}

const confirmationInvalid = () =>
  badRequest({ token: [{ code: 'confirmation_invalid', message: 'This confirmation link is invalid, already used or expired.' }] })

const sha256 = (s: string) => createHash('sha256').update(s).digest('hex')

/** Per-address budgets, one per route, so that flooding one cannot starve another. */
const limitOf = (pick: (l: Config['limits']) => number) => rateLimit((config) => pick(config.limits))

export function registerAuthRoutes(app: OpenAPIHono<AppEnv>) {
  const budgets = {
    login: limitOf((l) => l.login),
    refresh: limitOf((l) => l.refresh),
    signup: limitOf((l) => l.signup),
    reset: limitOf((l) => l.reset),
    confirm: limitOf((l) => l.confirm),
  }
  const budgetOf = (p: string) =>
    p.startsWith('/api/token/') || p.startsWith('/api/auth/logout')
      ? budgets.refresh
      : p.startsWith('/api/auth/login')
        ? budgets.login
        : p.startsWith('/api/auth/sign-up')
          ? budgets.signup
          : p.startsWith('/api/auth/password-reset')
            ? budgets.reset
            : budgets.confirm
  for (const p of ['/api/auth/*', '/api/token/*']) app.use(p, (c, next) => budgetOf(c.req.path)(c, next))

  app.openapi(signUpRoute, async (c) => {
    const body = c.req.valid('json')
    const { db, clock, config } = c.var.deps
    const now = clock.now()
    const passwordHash = await hashPassword(body.password)
    let user: { id: number; email: string }
    try {
      user = await db.tx(async (q) => {
        const taken = await q.query('SELECT 1 FROM users WHERE lower(email) = lower($1)', [body.email])
        if (taken.rows.length) throw emailTaken()
        const plan = (
          await q.query<{ id: number; monthly_credits: number }>('SELECT id, monthly_credits FROM plans WHERE plan_type = $1', [FREE_PLAN])
        ).rows[0]
        // No credits and no billing period until the address is confirmed (confirm-email grants both),
        // so a throwaway address cannot farm the free plan's credits.
        const { rows } = await q.query<{ id: number; email: string; preferred_language: string }>(
          `INSERT INTO users (email, password_hash, first_name, last_name, preferred_language, plan_id, remaining_credits, created_at)
           VALUES ($1, $2, $3, $4, $5, $6, 0, $7) RETURNING id, email, preferred_language`,
          [body.email, passwordHash, body.first_name ?? '', body.last_name ?? '', body.preferred_language ?? 'en', plan?.id ?? null, now],
        )
        const created = rows[0]!
        await sendConfirmation(q, config, created, 'signup', created.email, now, { credits: Math.max(0, plan?.monthly_credits ?? 0) })
        return created
      })
    } catch (err) {
      if (isUniqueViolation(err)) throw emailTaken()
      throw err
    }
    return c.json({ id: user.id, email: user.email }, 201)
  })

  app.openapi(loginRoute, async (c) => {
    const { username, password } = c.req.valid('json')
    const { db, clock, config } = c.var.deps
    const now = clock.now()
    const emailKey = username.trim().toLowerCase()
    const found = (
      await db.query<{ id: number; password_hash: string }>('SELECT id, password_hash FROM users WHERE lower(email) = $1', [emailKey])
    ).rows[0]
    // A device that signed in to this account before has a back-off of its own; any other is counted
    // per typed address, existing account or not (the answer must not tell which), in the database so
    // that guesses spread over several addresses and several service instances add up.
    const device = found ? knownDevice(config.secret, deviceCookieOf(c), found.id) : null
    const key = device ? deviceKey(device, found!.id) : emailKey
    const wait = await waitSeconds(db, key, now)
    if (wait) throw throttled(wait, `Too many failed sign-ins for this account. Try again in ${wait} seconds.`)
    const ok = await verifyPassword(password, found?.password_hash ?? (await dummyPasswordHash()))
    if (!found || !ok) {
      await recordFailure(db, key, now)
      throw new HttpError(401, { detail: 'No active account found with the given credentials', code: 'invalid_credentials' })
    }
    await clearFailures(db, key)
    rememberDevice(c, found.id)
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
          if (successor) return { ok: true as const, tokens: await successorTokens(q, config.secret, successor, now) }
        }
        // Reuse of a rotated token: someone else may hold the family, so end all of it.
        await q.query('UPDATE refresh_tokens SET revoked_at = $2 WHERE family_id = $1 AND revoked_at IS NULL', [row.family_id, now])
        return { ok: false as const, detail: 'Token has already been used; this session has been ended' }
      }
      await q.query('UPDATE refresh_tokens SET rotated_at = $2 WHERE jti = $1', [claims.jti, now])
      return { ok: true as const, tokens: await issueTokens(q, config.secret, row.user_id, row.family_id, now, claims.jti) }
    })
    if (!outcome.ok) throw tokenNotValid(outcome.detail)
    return c.json(outcome.tokens, 200)
  })

  app.openapi(logoutRoute, async (c) => {
    const { refresh } = c.req.valid('json')
    const { db, clock, config } = c.var.deps
    const now = clock.now()
    // Expired tokens may sign out too: the signature is what proves the caller held it.
    const claims = await verifyToken(config.secret, refresh, 'refresh', new Date(0))
    if (!claims) throw badRequest({ refresh: [{ code: 'token_not_valid', message: 'Not a refresh token of this service.' }] })
    await db.query(
      `UPDATE refresh_tokens SET revoked_at = $2
        WHERE family_id = (SELECT family_id FROM refresh_tokens WHERE jti = $1 AND user_id = $3) AND revoked_at IS NULL`,
      [claims.jti, now, claims.userId],
    )
    return c.body(null, 204)
  })

  app.openapi(confirmEmailRoute, async (c) => {
    const { token } = c.req.valid('json')
    const { db, clock } = c.var.deps
    const now = clock.now()
    const result = await db
      .tx(async (q) => {
        const row = (
          await q.query<{ user_id: number; kind: 'signup' | 'email_change'; new_email: string | null }>(
            `UPDATE email_confirmations SET used_at = $2 WHERE token_hash = $1 AND used_at IS NULL AND expires_at > $2
           RETURNING user_id, kind, new_email`,
            [sha256(token), now],
          )
        ).rows[0]
        if (!row) throw confirmationInvalid()
        if (row.kind === 'signup') {
          const user = (
            await q.query<{ email: string; email_confirmed_at: Date | null; monthly_credits: number | null }>(
              `SELECT u.email, u.email_confirmed_at, p.monthly_credits FROM users u LEFT JOIN plans p ON p.id = u.plan_id WHERE u.id = $1 FOR UPDATE OF u`,
              [row.user_id],
            )
          ).rows[0]!
          // Credits once: only the first confirmation starts the billing period and grants them.
          if (!user.email_confirmed_at) {
            await q.query(
              `UPDATE users SET email_confirmed_at = $2, remaining_credits = $3, current_period_start = $2, current_period_end = $4 WHERE id = $1`,
              [row.user_id, now, Math.max(0, user.monthly_credits ?? 0), user.monthly_credits === null ? null : addMonths(now, 1)],
            )
          }
          await q.query(`UPDATE email_confirmations SET used_at = $2 WHERE user_id = $1 AND kind = 'signup' AND used_at IS NULL`, [
            row.user_id,
            now,
          ])
          return { kind: row.kind, email: user.email }
        }
        const pending = (
          await q.query<{ pending_email: string | null }>('SELECT pending_email FROM users WHERE id = $1 FOR UPDATE', [row.user_id])
        ).rows[0]
        // A later change request replaces an earlier one: only the newest address can be confirmed.
        if (!pending?.pending_email || pending.pending_email.toLowerCase() !== row.new_email!.toLowerCase()) throw confirmationInvalid()
        const taken = await q.query('SELECT 1 FROM users WHERE lower(email) = lower($1) AND id <> $2', [row.new_email, row.user_id])
        if (taken.rows.length) throw emailTaken('token')
        await q.query(
          'UPDATE users SET email = $2, pending_email = NULL, email_confirmed_at = COALESCE(email_confirmed_at, $3) WHERE id = $1',
          [row.user_id, row.new_email, now],
        )
        return { kind: row.kind, email: row.new_email! }
      })
      .catch((err: unknown) => {
        if (isUniqueViolation(err)) throw emailTaken('token')
        throw err
      })
    return c.json({ detail: result.kind === 'signup' ? 'Your address is confirmed.' : 'Your new address is confirmed.', ...result }, 200)
  })

  app.openapi(resendConfirmationRoute, async (c) => {
    const { db, clock, config } = c.var.deps
    const now = clock.now()
    const user = (
      await db.query<{
        id: number
        email: string
        preferred_language: string
        email_confirmed_at: Date | null
        monthly_credits: number | null
      }>(
        `SELECT u.id, u.email, u.preferred_language, u.email_confirmed_at, p.monthly_credits FROM users u LEFT JOIN plans p ON p.id = u.plan_id WHERE u.id = $1`,
        [c.var.user.id],
      )
    ).rows[0]
    if (!user) throw tokenNotValid('User not found')
    if (user.email_confirmed_at) throw new HttpError(409, { detail: 'This address is already confirmed.', code: 'already_confirmed' })
    const recent = (
      await db.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM email_confirmations WHERE user_id = $1 AND kind = 'signup' AND created_at > $2`,
        [user.id, new Date(now.getTime() - 3_600_000)],
      )
    ).rows[0]!.n
    if (recent >= RESET_MAILS_PER_HOUR + 1) throw throttled(3600, 'Too many confirmation mails this hour. Try again later.')
    await sendConfirmation(db, config, user, 'signup', user.email, now, { credits: Math.max(0, user.monthly_credits ?? 0) })
    return c.json({ detail: 'A new confirmation link has been sent.' }, 202)
  })

  app.openapi(resetRequestRoute, async (c) => {
    const { email } = c.req.valid('json')
    const deps = c.var.deps
    // Nothing about the account before the answer: looking it up, counting its recent mails and
    // writing one took measurably longer for an existing account (issue 22). Done after it instead.
    afterAnswer(deps, () => sendResetMail(deps, email))
    return c.json({ detail: 'If an account exists for this address, a reset link has been sent.' }, 202)
  })

  app.openapi(resetConfirmRoute, async (c) => {
    const { token, password } = c.req.valid('json')
    const { db, clock, config } = c.var.deps
    const now = clock.now()
    const passwordHash = await hashPassword(password)
    const userId = await db.tx(async (q) => {
      const used = await q.query<{ user_id: number }>(
        'UPDATE password_resets SET used_at = $2 WHERE token_hash = $1 AND used_at IS NULL AND expires_at > $2 RETURNING user_id',
        [sha256(token), now],
      )
      const id = used.rows[0]?.user_id
      if (!id) return null
      await setPassword(q, id, passwordHash, now)
      // Other open reset links end with the old password.
      await q.query('UPDATE password_resets SET used_at = $2 WHERE user_id = $1 AND used_at IS NULL', [id, now])
      return id
    })
    if (!userId)
      throw badRequest({ token: [{ code: 'reset_link_invalid', message: 'This reset link is invalid, already used or expired.' }] })
    await mailPasswordChanged(db, config, userId, now)
    return c.json({ detail: 'Your password has been changed.' }, 200)
  })
}

/**
 * The work of a reset request, after its answer: past RESET_MAILS_PER_HOUR no mail goes out (a flood
 * cannot fill the owner's inbox), and nothing of it ever reaches the requester.
 */
export async function sendResetMail(deps: Pick<Deps, 'db' | 'clock' | 'config'>, email: string): Promise<void> {
  const { db, clock, config } = deps
  const now = clock.now()
  const user = (
    await db.query<{ id: number; email: string; preferred_language: string | null; recent: number }>(
      `SELECT id, email, preferred_language,
              (SELECT count(*)::int FROM password_resets r WHERE r.user_id = u.id AND r.created_at > $2) AS recent
         FROM users u WHERE lower(email) = lower($1)`,
      [email, new Date(now.getTime() - 3_600_000)],
    )
  ).rows[0]
  if (!user || user.recent >= RESET_MAILS_PER_HOUR) return
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

export const emailTaken = (field = 'email') =>
  badRequest({ [field]: [{ code: 'email_taken', message: 'An account with this email already exists.' }] })

/**
 * A new password ends every session: access tokens issued up to now stop working at once
 * (tokens_valid_after, lib/auth.ts) and every refresh token is revoked. It also cancels every pending
 * email change (whoever asked for it knew the old password). API keys and webhooks stay: the mail and
 * the answer list them so the owner can remove them.
 */
export async function setPassword(q: Queryable, userId: number, passwordHash: string, now: Date) {
  await q.query('UPDATE users SET password_hash = $2, pending_email = NULL WHERE id = $1', [userId, passwordHash])
  await endSessions(q, userId, now)
  await q.query(`UPDATE email_confirmations SET used_at = $2 WHERE user_id = $1 AND kind = 'email_change' AND used_at IS NULL`, [
    userId,
    now,
  ])
  await q.query('DELETE FROM login_failures WHERE email_lower IN ((SELECT lower(email) FROM users WHERE id = $1), $2)', [
    userId,
    passwordCheckKey(userId),
  ])
}

/** Every session of the account ends now: its access tokens at once, its refresh tokens too. */
export async function endSessions(q: Queryable, userId: number, now: Date) {
  await q.query('UPDATE users SET tokens_valid_after = $2 WHERE id = $1', [userId, now])
  await q.query('UPDATE refresh_tokens SET revoked_at = $2 WHERE user_id = $1 AND revoked_at IS NULL', [userId, now])
}

/** The account's webhook endpoints (they keep receiving events after a password change): listed like the keys. */
export async function activeWebhooks(q: Queryable, userId: number) {
  return (
    await q.query<{ id: string; url: string; created_at: Date }>(
      'SELECT id, url, created_at FROM webhook_endpoints WHERE user_id = $1 ORDER BY created_at, id',
      [userId],
    )
  ).rows
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

export async function mailPasswordChanged(q: Queryable, config: Config, userId: number, now: Date) {
  const user = (
    await q.query<{ email: string; preferred_language: string }>('SELECT email, preferred_language FROM users WHERE id = $1', [userId])
  ).rows[0]
  if (!user) return
  const keys = await activeKeys(q, userId, now)
  const webhooks = await activeWebhooks(q, userId)
  await sendMail(config.dataDir, {
    to: user.email,
    now,
    ...renderMail('password_changed', user.preferred_language, {
      keys: keys.map((k) => ({ prefix: k.prefix, created: new Date(k.created) })),
      keys_url: `${config.publicUrl}/api-keys`,
      webhooks: webhooks.map((w) => ({ url: w.url })),
      webhooks_url: `${config.publicUrl}/webhooks`,
    }),
  })
}
