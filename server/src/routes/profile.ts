import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi'
import type { AppEnv } from '../app-env.ts'
import { refuseReadOnlyKey } from '../lib/key-scope.ts'
import type { Queryable } from '../db/db.ts'
import { authed, security } from '../lib/authed.ts'
import { loadAccountWithBalance } from '../lib/credits.ts'
import { badRequest, HttpError, notFound, tokenNotValid } from '../lib/errors.ts'
import { hashPassword, verifyPassword } from '../lib/password.ts'
import { sendMail } from '../lib/mail.ts'
import { renderMail } from '../lib/mail-templates.ts'
import { clearFailures, FREE_FAILURES, passwordCheckKey, recordFailure, waitSeconds } from '../lib/backoff.ts'
import { throttled } from '../lib/rate-limit.ts'
import type { Context } from 'hono'
import {
  activeKeys,
  activeWebhooks,
  emailTaken,
  endSessions,
  issueSession,
  mailPasswordChanged,
  passwordSchema,
  sendConfirmation,
  setPassword,
} from './auth.ts'
import { newCancelLink } from './email-change-cancel.ts'
import { planToJson } from '../lib/plans.ts'
import { authErrors, emailSchema, int32, jsonBody, jsonError, languageSchema, nameSchema, UserSchema, type User } from '../lib/schemas.ts'

const epoch = (d: Date | null) => (d ? Math.floor(new Date(d).getTime() / 1000) : null)

/** User (interface 2.1) as of `now`: the billing period rolls over lazily here too. */
export async function profileOf(q: Queryable, userId: number, now: Date): Promise<User> {
  const found = await loadAccountWithBalance(q, userId, now)
  if (!found) throw notFound()
  const { account, balance, lots } = found
  return {
    id: account.id,
    email: account.email,
    first_name: account.first_name,
    last_name: account.last_name,
    subscription_plan: account.plan ? planToJson(account.plan) : null,
    total_credits: account.plan?.monthly_credits ?? 0,
    remaining_credits: account.remaining_credits,
    purchased_credits_available: balance.purchased,
    purchased_credits_expiring_soon: balance.purchasedExpiringSoon,
    current_period_start: epoch(account.current_period_start),
    current_period_end: epoch(account.current_period_end),
    can_download_fresh_exports: account.plan?.allows_fresh_exports ?? false,
    preferred_language: account.preferred_language as User['preferred_language'],
    email_confirmed: account.email_confirmed_at !== null,
    pending_email: account.pending_email,
    credit_lots: lots.map((l) => ({ source: l.source, credits: l.credits, expires_at: l.expiresAt?.toISOString() ?? null })),
  }
}

/** Keys read and export; changing how the account signs in takes the password, in a signed-in session. */
const keysCannot = () =>
  new HttpError(403, {
    detail: 'API keys can read and export, not change the sign-in address or password. Sign in with the password to do that.',
    code: 'api_key_not_allowed',
  })

/**
 * The current password, checked; a wrong or missing one is a field error on `current_password`.
 * Guessing it with a stolen token is throttled like sign-in (lib/backoff.ts, per account whatever
 * session asks), and the FREE_FAILURES-th wrong one ends the session that sent it (issue 22).
 */
async function checkCurrentPassword(c: Context<AppEnv>, userId: number, password: string | undefined) {
  if (!password)
    throw badRequest({ current_password: [{ code: 'password_required', message: 'Enter your current password to change this.' }] })
  const { db, clock } = c.var.deps
  const now = clock.now()
  const key = passwordCheckKey(userId)
  const wait = await waitSeconds(db, key, now)
  if (wait) throw throttled(wait, `Too many wrong passwords for this account. Try again in ${wait} seconds.`)
  const row = (await db.query<{ password_hash: string }>('SELECT password_hash FROM users WHERE id = $1', [userId])).rows[0]
  if (row && (await verifyPassword(password, row.password_hash))) {
    await clearFailures(db, key)
    return
  }
  const failures = await recordFailure(db, key, now)
  if (failures >= FREE_FAILURES) {
    const session = c.var.session
    if (session) await db.query('UPDATE refresh_tokens SET revoked_at = $2 WHERE family_id = $1 AND revoked_at IS NULL', [session, now])
    else await endSessions(db, userId, now) // an access token without a session of its own: end them all
    throw tokenNotValid('Too many wrong passwords: this session has been ended. Sign in again.')
  }
  throw badRequest({ current_password: [{ code: 'wrong_password', message: 'The current password is not correct.' }] })
}

// Every field the interface calls writable, with its limits (part 8); unknown fields are ignored.
const ProfilePatch = z
  .object({
    email: emailSchema.optional(),
    first_name: nameSchema.optional(),
    last_name: nameSchema.optional(),
    preferred_language: languageSchema.optional(),
    current_password: z.string().max(1024).optional().openapi({
      description: 'Extension: required with `email` (and refused for API-key callers, 403 `api_key_not_allowed`).',
    }),
    remaining_credits: int32().nullable().optional().openapi({ description: 'Range-checked, then refused: read-only here.' }),
    current_period_start: int32().nullable().optional().openapi({ description: 'Range-checked, then refused: read-only here.' }),
    current_period_end: int32().nullable().optional().openapi({ description: 'Range-checked, then refused: read-only here.' }),
  })
  .openapi('ProfileUpdate')

const READ_ONLY = ['remaining_credits', 'current_period_start', 'current_period_end'] as const

const getProfile = createRoute({
  method: 'get',
  path: '/api/user/profile',
  tags: ['Credits & Profile'],
  summary: 'The caller’s profile and credits',
  middleware: authed,
  security,
  responses: { 200: { description: 'User', content: { 'application/json': { schema: UserSchema } } }, ...authErrors },
})

const patchProfile = createRoute({
  method: 'patch',
  path: '/api/user/profile',
  tags: ['Credits & Profile'],
  summary: 'Partial update of the profile',
  description:
    'first_name, last_name and preferred_language can be changed. A new email needs `current_password` and a signed-in session (not an API key): the new address gets a confirmation link, the old one a notice, and `email` changes only when the link is used (`pending_email` meanwhile). remaining_credits, current_period_start and current_period_end are range-checked and then refused with `errors.<field>: ["read-only"]` (decisions.md).',
  middleware: authed,
  security,
  request: { body: jsonBody(ProfilePatch) },
  responses: {
    200: { description: 'Updated user', content: { 'application/json': { schema: UserSchema } } },
    400: jsonError('Invalid input, read-only field, email taken, or current password missing or wrong'),
    403: jsonError(
      'An API key tried to change the email (`code: api_key_not_allowed`), or a read-only key any field (`code: api_key_read_only`)',
    ),
    ...authErrors,
  },
})

const ChangePassword = z.object({ current_password: z.string().min(1).max(1024), new_password: passwordSchema }).openapi('PasswordChange')

const changePassword = createRoute({
  method: 'post',
  path: '/api/user/password',
  tags: ['Credits & Profile'],
  summary: 'Change the password (ends every other session)',
  description:
    'Needs the current password and a signed-in session (403 `api_key_not_allowed` for API keys). Every session ends; the answer carries a fresh token pair for the caller and the API keys that still work, which are also mailed.',
  'x-extension': true,
  middleware: authed,
  security,
  request: { body: jsonBody(ChangePassword) },
  responses: {
    200: {
      description: 'Changed',
      content: {
        'application/json': {
          schema: z.object({
            access: z.string(),
            refresh: z.string(),
            api_keys: z.array(
              z.object({ id: z.string(), prefix: z.string(), created: z.number().int(), expiry: z.number().int().nullable() }),
            ),
            webhooks: z
              .array(z.object({ id: z.string(), url: z.string(), created_at: z.string().openapi({ format: 'date-time' }) }))
              .openapi({ description: 'The webhook endpoints that still receive events (also mailed): remove any you did not add.' }),
          }),
        },
      },
    },
    400: jsonError('Invalid input, or the current password is wrong (`wrong_password` on `current_password`)'),
    403: jsonError('API keys cannot change the password (`code: api_key_not_allowed`)'),
    ...authErrors,
    401: jsonError('Credential invalid or expired, or the 5th wrong current password in a row ended this session (`token_not_valid`)'),
    429: jsonError('Too many wrong current passwords for this account (the sign-in back-off), or the rate limit'),
  },
})

export function registerProfileRoutes(app: OpenAPIHono<AppEnv>) {
  app.openapi(getProfile, async (c) => {
    const { db, clock } = c.var.deps
    return c.json(await profileOf(db, c.var.user.id, clock.now()), 200)
  })

  app.openapi(patchProfile, async (c) => {
    const body = c.req.valid('json')
    refuseReadOnlyKey(c, 'change the profile')
    const { db, clock } = c.var.deps
    const userId = c.var.user.id
    const readOnly: Record<string, string[]> = {}
    for (const f of READ_ONLY) if (body[f] !== undefined) readOnly[f] = ['read-only']
    if (Object.keys(readOnly).length) throw badRequest(readOnly)

    const { config } = c.var.deps
    const now = clock.now()
    const current = (
      await db.query<{ email: string; preferred_language: string }>('SELECT email, preferred_language FROM users WHERE id = $1', [userId])
    ).rows[0]
    if (!current) throw notFound()
    // Setting the address it already has is no change (the account form sends every field).
    const newEmail = body.email !== undefined && body.email.toLowerCase() !== current.email.toLowerCase() ? body.email : undefined
    if (newEmail !== undefined) {
      if (c.var.credential.startsWith('key:')) throw keysCannot()
      await checkCurrentPassword(c, userId, body.current_password)
    }

    const sets: string[] = []
    const params: unknown[] = [userId]
    for (const f of ['first_name', 'last_name', 'preferred_language'] as const) {
      const v = body[f]
      if (v === undefined) continue
      params.push(v)
      sets.push(`${f} = $${params.length}`)
    }
    await db.tx(async (q) => {
      if (sets.length) await q.query(`UPDATE users SET ${sets.join(', ')} WHERE id = $1`, params)
      if (newEmail !== undefined) {
        const taken = await q.query('SELECT 1 FROM users WHERE lower(email) = lower($1) AND id <> $2', [newEmail, userId])
        if (taken.rows.length) throw emailTaken()
        // The address changes only when the link mailed to it is used (routes/auth.ts confirm-email);
        // the old address hears of it at once, so an intruder cannot move the account silently.
        await q.query('UPDATE users SET pending_email = $2 WHERE id = $1', [userId, newEmail])
        const language = body.preferred_language ?? current.preferred_language
        await sendConfirmation(q, config, { id: userId, preferred_language: language }, 'email_change', newEmail, now)
        // "this wasn't me": a one-use link for the old address that cancels (or undoes) the change and ends every session
        const cancel_link = await newCancelLink(q, config, { userId, oldEmail: current.email, newEmail }, now)
        await sendMail(config.dataDir, {
          to: current.email,
          now,
          ...renderMail('email_change_notice', language, { new_email: newEmail, cancel_link }),
        })
      }
    })
    return c.json(await profileOf(db, userId, clock.now()), 200)
  })

  app.openapi(changePassword, async (c) => {
    const { current_password, new_password } = c.req.valid('json')
    const { db, clock, config } = c.var.deps
    const userId = c.var.user.id
    if (c.var.credential.startsWith('key:')) throw keysCannot()
    await checkCurrentPassword(c, userId, current_password)
    const now = clock.now()
    const passwordHash = await hashPassword(new_password)
    const tokens = await db.tx(async (q) => {
      await setPassword(q, userId, passwordHash, now)
      return issueSession(q, config.secret, userId, now)
    })
    await mailPasswordChanged(db, config, userId, now)
    const keys = await activeKeys(db, userId, now)
    const webhooks = await activeWebhooks(db, userId)
    return c.json(
      {
        ...tokens,
        api_keys: keys.map((k) => ({ id: k.id, prefix: k.prefix, created: epoch(k.created)!, expiry: epoch(k.expiry) })),
        webhooks: webhooks.map((w) => ({ id: w.id, url: w.url, created_at: new Date(w.created_at).toISOString() })),
      },
      200,
    )
  })
}
