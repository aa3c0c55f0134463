import type { Config } from '../../config.ts'
import type { Db, Queryable } from '../../db/db.ts'
import { clearFailures, FREE_FAILURES, passwordCheckKey, recordFailure, waitSeconds } from '../../lib/backoff.ts'
import type { Clock } from '../../lib/clock.ts'
import { badRequest, HttpError, notFound, tokenNotValid } from '../../lib/errors.ts'
import { renderMail } from '../../lib/mail-templates.ts'
import { sendMail } from '../../lib/mail.ts'
import { throttled } from '../../lib/rate-limit.ts'
import type { User } from '../../lib/schemas.ts'
import { newCancelLink } from '../auth/email-change.ts'
import { hashPassword, verifyPassword } from '../auth/password.ts'
import { emailTaken, mailPasswordChanged, sendConfirmation, setPassword } from '../auth/service.ts'
import { endSession, endSessions, issueSession } from '../auth/sessions.ts'
import { loadAccountWithBalance } from '../exports/credits.ts'
import { activeKeys } from '../keys/service.ts'
import { planToJson } from '../plans/service.ts'
import { activeWebhooks } from '../webhooks/service.ts'

/** Who asks: the account, whether with an API key, and the session of a signed-in token. */
export interface Caller {
  userId: number
  viaApiKey: boolean
  session: string | null
}

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
async function checkCurrentPassword(db: Db, clock: Clock, caller: Caller, password: string | undefined) {
  if (!password)
    throw badRequest({ current_password: [{ code: 'password_required', message: 'Enter your current password to change this.' }] })
  const { userId } = caller
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
    if (caller.session) await endSession(db, caller.session, now)
    else await endSessions(db, userId, now) // an access token without a session of its own: end them all
    throw tokenNotValid('Too many wrong passwords: this session has been ended. Sign in again.')
  }
  throw badRequest({ current_password: [{ code: 'wrong_password', message: 'The current password is not correct.' }] })
}

export interface ProfileChange {
  email?: string
  first_name?: string
  last_name?: string
  preferred_language?: string
  current_password?: string
}

/**
 * Names and language change at once. A new address needs the current password in a signed-in
 * session: it changes only when the link mailed to it is used (confirm-email, modules/auth), and the
 * old address hears of it at once, with a link that cancels it, so an intruder cannot move the
 * account silently.
 */
export async function updateProfile(db: Db, config: Config, clock: Clock, caller: Caller, change: ProfileChange): Promise<User> {
  const { userId } = caller
  const now = clock.now()
  const current = (
    await db.query<{ email: string; preferred_language: string }>('SELECT email, preferred_language FROM users WHERE id = $1', [userId])
  ).rows[0]
  if (!current) throw notFound()
  // Setting the address it already has is no change (the account form sends every field).
  const newEmail = change.email !== undefined && change.email.toLowerCase() !== current.email.toLowerCase() ? change.email : undefined
  if (newEmail !== undefined) {
    if (caller.viaApiKey) throw keysCannot()
    await checkCurrentPassword(db, clock, caller, change.current_password)
  }

  const sets: string[] = []
  const params: unknown[] = [userId]
  for (const f of ['first_name', 'last_name', 'preferred_language'] as const) {
    const v = change[f]
    if (v === undefined) continue
    params.push(v)
    sets.push(`${f} = $${params.length}`)
  }
  await db.tx(async (q) => {
    if (sets.length) await q.query(`UPDATE users SET ${sets.join(', ')} WHERE id = $1`, params)
    if (newEmail !== undefined) {
      const taken = await q.query('SELECT 1 FROM users WHERE lower(email) = lower($1) AND id <> $2', [newEmail, userId])
      if (taken.rows.length) throw emailTaken()
      await q.query('UPDATE users SET pending_email = $2 WHERE id = $1', [userId, newEmail])
      const language = change.preferred_language ?? current.preferred_language
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
  return profileOf(db, userId, clock.now())
}

/**
 * A new password, with the current one, in a signed-in session: every session ends (setPassword),
 * the caller gets a new one, and the API keys and webhook endpoints that still work are listed here
 * and in the mail, so that the owner can remove any they did not add.
 */
export async function changePassword(db: Db, config: Config, clock: Clock, caller: Caller, passwords: { current: string; next: string }) {
  const { userId } = caller
  if (caller.viaApiKey) throw keysCannot()
  await checkCurrentPassword(db, clock, caller, passwords.current)
  const now = clock.now()
  const passwordHash = await hashPassword(passwords.next)
  const tokens = await db.tx(async (q) => {
    await setPassword(q, userId, passwordHash, now)
    return issueSession(q, config.secret, userId, now)
  })
  await mailPasswordChanged(db, config, userId, now)
  const keys = await activeKeys(db, userId, now)
  const webhooks = await activeWebhooks(db, userId)
  return {
    ...tokens,
    api_keys: keys.map((k) => ({ id: k.id, prefix: k.prefix, created: epoch(k.created)!, expiry: epoch(k.expiry) })),
    webhooks: webhooks.map((w) => ({ id: w.id, url: w.url, created_at: new Date(w.created_at).toISOString() })),
  }
}
