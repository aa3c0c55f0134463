import { createHash, randomBytes } from 'node:crypto'
import type { Deps } from '../../app-env.ts'
import type { Config } from '../../config.ts'
import type { Db, Queryable } from '../../db/db.ts'
import { clearFailures, deviceKey, passwordCheckKey, recordFailure, waitSeconds } from '../../lib/backoff.ts'
import { badRequest, HttpError, tokenNotValid } from '../../lib/errors.ts'
import { renderMail } from '../../lib/mail-templates.ts'
import { sendMail } from '../../lib/mail.ts'
import { throttled } from '../../lib/rate-limit.ts'
import { addMonths, loadAccount } from '../exports/credits.ts'
import { activeKeys } from '../keys/service.ts'
import { FREE_PLAN } from '../plans/service.ts'
import { activeWebhooks } from '../webhooks/service.ts'
import { knownDevice } from './device.ts'
import { dummyPasswordHash, hashPassword, verifyPassword } from './password.ts'
import { endSessions, issueSession } from './sessions.ts'

const RESET_TOKEN_SECONDS = 3600
/** A sign-up confirmation link lives a week; a new-address link a day. */
export const SIGNUP_CONFIRM_SECONDS = 7 * 86_400
export const EMAIL_CHANGE_CONFIRM_SECONDS = 86_400
/** Password-reset mails per account and hour; past it the answer is the same 202 and no mail goes out. */
export const RESET_MAILS_PER_HOUR = 3

const sha256 = (s: string) => createHash('sha256').update(s).digest('hex')

const isUniqueViolation = (err: unknown) => typeof err === 'object' && err !== null && (err as { code?: unknown }).code === '23505'

export const emailTaken = (field = 'email') =>
  badRequest({ [field]: [{ code: 'email_taken', message: 'An account with this email already exists.' }] })

const confirmationInvalid = () =>
  badRequest({ token: [{ code: 'confirmation_invalid', message: 'This confirmation link is invalid, already used or expired.' }] })

/**
 * A new account on the free plan. It can sign in at once, but has no credits and no billing period
 * until its address is confirmed (confirmEmail grants both), so a throwaway address cannot farm the
 * free plan's credits.
 */
export async function signUp(
  db: Db,
  config: Config,
  account: { email: string; password: string; first_name?: string; last_name?: string; preferred_language?: string },
  now: Date,
): Promise<{ id: number; email: string }> {
  const passwordHash = await hashPassword(account.password)
  try {
    const created = await db.tx(async (q) => {
      const taken = await q.query('SELECT 1 FROM users WHERE lower(email) = lower($1)', [account.email])
      if (taken.rows.length) throw emailTaken()
      const plan = (
        await q.query<{ id: number; monthly_credits: number }>('SELECT id, monthly_credits FROM plans WHERE plan_type = $1', [FREE_PLAN])
      ).rows[0]
      const { rows } = await q.query<{ id: number; email: string; preferred_language: string }>(
        `INSERT INTO users (email, password_hash, first_name, last_name, preferred_language, plan_id, remaining_credits, created_at)
           VALUES ($1, $2, $3, $4, $5, $6, 0, $7) RETURNING id, email, preferred_language`,
        [
          account.email,
          passwordHash,
          account.first_name ?? '',
          account.last_name ?? '',
          account.preferred_language ?? 'en',
          plan?.id ?? null,
          now,
        ],
      )
      const user = rows[0]!
      await sendConfirmation(q, config, user, 'signup', user.email, now, { credits: Math.max(0, plan?.monthly_credits ?? 0) })
      return user
    })
    return { id: created.id, email: created.email }
  } catch (err) {
    if (isUniqueViolation(err)) throw emailTaken()
    throw err
  }
}

/**
 * The account a sign-in names, when the password is right. A device that signed in to this account
 * before (its `leads.device` cookie, device.ts) has a back-off of its own; any other is counted per
 * typed address, existing account or not (the answer must not tell which), in the database so that
 * guesses spread over several addresses and several service instances add up.
 */
export async function checkCredentials(
  db: Db,
  secret: string,
  login: { username: string; password: string; deviceCookie: string | undefined },
  now: Date,
): Promise<number> {
  const emailKey = login.username.trim().toLowerCase()
  const found = (
    await db.query<{ id: number; password_hash: string }>('SELECT id, password_hash FROM users WHERE lower(email) = $1', [emailKey])
  ).rows[0]
  const device = found ? knownDevice(secret, login.deviceCookie, found.id) : null
  const key = device ? deviceKey(device, found!.id) : emailKey
  const wait = await waitSeconds(db, key, now)
  if (wait) throw throttled(wait, `Too many failed sign-ins for this account. Try again in ${wait} seconds.`)
  const ok = await verifyPassword(login.password, found?.password_hash ?? (await dummyPasswordHash()))
  if (!found || !ok) {
    await recordFailure(db, key, now)
    throw new HttpError(401, { detail: 'No active account found with the given credentials', code: 'invalid_credentials' })
  }
  await clearFailures(db, key)
  return found.id
}

/** A new session for an account whose credentials were checked, with the account as the sign-in answer shows it. */
export async function signIn(db: Db, secret: string, userId: number, now: Date) {
  const tokens = await issueSession(db, secret, userId, now)
  const account = (await loadAccount(db, userId, now))!
  return {
    ...tokens,
    user: {
      id: String(account.id),
      email: account.email,
      first_name: account.first_name,
      last_name: account.last_name,
      remaining_credits: account.remaining_credits,
      subscription_plan: account.plan?.plan_type ?? null,
    },
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

/**
 * Uses a confirmation link once. A sign-up link confirms the account and, the first time only,
 * starts its billing period with the plan's credits; an email-change link makes the newest
 * requested address the sign-in address, unless another account took it meanwhile.
 */
/**
 * Why a confirmation link cannot be used: a link used before whose address is confirmed is 409
 * `already_confirmed` (a person opening it twice, or a mail scanner having opened it first, sees that
 * nothing is left to do); anything else (unknown, expired, replaced) is 400 `confirmation_invalid`.
 * Only the holder of the link learns this, as they would by signing in.
 */
async function unusableConfirmation(q: Queryable, token: string): Promise<HttpError> {
  const used = (
    await q.query<{ one: number }>(
      `SELECT 1 AS one FROM email_confirmations c JOIN users u ON u.id = c.user_id
        WHERE c.token_hash = $1 AND c.used_at IS NOT NULL
          AND ((c.kind = 'signup' AND u.email_confirmed_at IS NOT NULL)
            OR (c.kind = 'email_change' AND lower(u.email) = lower(c.new_email)))`,
      [sha256(token)],
    )
  ).rows[0]
  return used ? new HttpError(409, { detail: 'This address is already confirmed.', code: 'already_confirmed' }) : confirmationInvalid()
}

export async function confirmEmail(db: Db, token: string, now: Date): Promise<{ kind: 'signup' | 'email_change'; email: string }> {
  return db
    .tx(async (q) => {
      const row = (
        await q.query<{ user_id: number; kind: 'signup' | 'email_change'; new_email: string | null }>(
          `UPDATE email_confirmations SET used_at = $2 WHERE token_hash = $1 AND used_at IS NULL AND expires_at > $2
           RETURNING user_id, kind, new_email`,
          [sha256(token), now],
        )
      ).rows[0]
      if (!row) throw await unusableConfirmation(q, token)
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
}

/** The sign-up link mailed again, at most RESET_MAILS_PER_HOUR more an hour; 409 once the address is confirmed. */
export async function resendConfirmation(db: Db, config: Config, userId: number, now: Date): Promise<void> {
  const user = (
    await db.query<{
      id: number
      email: string
      preferred_language: string
      email_confirmed_at: Date | null
      monthly_credits: number | null
    }>(
      `SELECT u.id, u.email, u.preferred_language, u.email_confirmed_at, p.monthly_credits FROM users u LEFT JOIN plans p ON p.id = u.plan_id WHERE u.id = $1`,
      [userId],
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

/** A new password with the token of a reset mail (once); the account's other open reset links end with the old password. */
export async function resetPassword(db: Db, config: Config, token: string, password: string, now: Date): Promise<void> {
  const passwordHash = await hashPassword(password)
  const userId = await db.tx(async (q) => {
    const used = await q.query<{ user_id: number }>(
      'UPDATE password_resets SET used_at = $2 WHERE token_hash = $1 AND used_at IS NULL AND expires_at > $2 RETURNING user_id',
      [sha256(token), now],
    )
    const id = used.rows[0]?.user_id
    if (!id) return null
    await setPassword(q, id, passwordHash, now)
    await q.query('UPDATE password_resets SET used_at = $2 WHERE user_id = $1 AND used_at IS NULL', [id, now])
    return id
  })
  if (!userId)
    throw badRequest({ token: [{ code: 'reset_link_invalid', message: 'This reset link is invalid, already used or expired.' }] })
  await mailPasswordChanged(db, config, userId, now)
}

/**
 * A new password ends every session: access tokens issued up to now stop working at once
 * (tokens_valid_after, credentials.ts) and every refresh token is revoked. It also cancels every pending
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

/** The notice of a new password, listing the API keys and webhook endpoints that still work. */
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
