import type { Queryable } from '../db/db.ts'
import { HttpError } from './errors.ts'

/**
 * Everything about an account's credits, in one place (interface part 1 and 8, decisions.md):
 * subscription credits reset each billing period; purchased credits are lots that can expire
 * (expired lots never count); charges take subscription credits first, then purchased lots,
 * earliest-expiring first, and are recorded per export so a failed export's retry costs nothing.
 */

export const EXPIRING_SOON_DAYS = 7
const DAY_MS = 86_400_000

export interface PlanRow {
  id: number
  plan_type: string
  monthly_credits: number
  price_per_month: string
  link_expiration_days: number
  product_id: string
  price_id: string
  is_active: boolean
  is_sellable: boolean
  allows_fresh_exports: boolean
  created_at: Date
  updated_at: Date
}

export interface AccountRow {
  id: number
  email: string
  first_name: string
  last_name: string
  preferred_language: string
  plan_id: number | null
  remaining_credits: number
  current_period_start: Date | null
  current_period_end: Date | null
  /** null until the sign-up address is confirmed (issue 9): no credits, no exports before. */
  email_confirmed_at: Date | null
  pending_email: string | null
}

export interface Account extends AccountRow {
  plan: PlanRow | null
}

export interface Balance {
  subscription: number
  purchased: number
  purchasedExpiringSoon: number
  /** What an export can spend now: subscription + non-expired purchased. */
  available: number
}

export function addMonths(d: Date, months: number): Date {
  const out = new Date(d.getTime())
  const day = out.getUTCDate()
  out.setUTCDate(1)
  out.setUTCMonth(out.getUTCMonth() + months)
  const lastDay = new Date(Date.UTC(out.getUTCFullYear(), out.getUTCMonth() + 1, 0)).getUTCDate()
  out.setUTCDate(Math.min(day, lastDay))
  return out
}

const ACCOUNT_COLUMNS =
  'u.id, u.email, u.first_name, u.last_name, u.preferred_language, u.plan_id, u.remaining_credits, u.current_period_start, u.current_period_end, u.email_confirmed_at, u.pending_email'

/**
 * Loads the account (with `lock`: SELECT … FOR UPDATE, inside a transaction) and rolls its billing
 * period over when the clock has passed its end: a new period of one month (as many as needed) and
 * the subscription credits reset to the plan's monthly credits. Lazy, so the test clock shows renewals.
 */
export async function loadAccount(q: Queryable, userId: number, now: Date, lock = false): Promise<Account | null> {
  const row = (
    await q.query<AccountRow>(`SELECT ${ACCOUNT_COLUMNS} FROM users u WHERE u.id = $1${lock ? ' FOR UPDATE' : ''}`, [
      userId,
    ])
  ).rows[0]
  if (!row) return null
  const plan = row.plan_id
    ? ((await q.query<PlanRow>('SELECT * FROM plans WHERE id = $1', [row.plan_id])).rows[0] ?? null)
    : null
  const account: Account = { ...row, plan }
  if (plan && row.current_period_end && new Date(row.current_period_end) <= now) {
    let start = new Date(row.current_period_end)
    let end = addMonths(start, 1)
    while (end <= now) {
      start = end
      end = addMonths(start, 1)
    }
    // Conditional on the old period end: two readers rolling over at once apply it once.
    const updated = await q.query<AccountRow>(
      `UPDATE users u SET current_period_start = $2, current_period_end = $3, remaining_credits = $4
       WHERE u.id = $1 AND u.current_period_end = $5 RETURNING ${ACCOUNT_COLUMNS}`,
      [userId, start, end, Math.max(0, plan.monthly_credits), row.current_period_end],
    )
    const fresh = updated.rows[0] ?? (await q.query<AccountRow>(`SELECT ${ACCOUNT_COLUMNS} FROM users u WHERE u.id = $1`, [userId])).rows[0]
    if (fresh) Object.assign(account, fresh)
  }
  return account
}

export async function balanceOf(q: Queryable, account: AccountRow, now: Date): Promise<Balance> {
  const soon = new Date(now.getTime() + EXPIRING_SOON_DAYS * DAY_MS)
  const { rows } = await q.query<{ purchased: number; soon: number }>(
    `SELECT coalesce(sum(remaining) FILTER (WHERE expires_at > $2), 0)::int AS purchased,
            coalesce(sum(remaining) FILTER (WHERE expires_at > $2 AND expires_at <= $3), 0)::int AS soon
       FROM credit_lots WHERE user_id = $1`,
    [account.id, now, soon],
  )
  const purchased = rows[0]?.purchased ?? 0
  const subscription = Math.max(0, account.remaining_credits)
  return {
    subscription,
    purchased,
    purchasedExpiringSoon: rows[0]?.soon ?? 0,
    available: subscription + purchased,
  }
}

export const insufficientCredits = (required: number, available: number) =>
  new HttpError(403, {
    detail: `Not enough credits: this export needs ${required} and ${available} are available.`,
    code: 'insufficient_credits',
    validation_code: 'insufficient_credits',
    required_credits: required,
    available_credits: available,
  })

/**
 * Takes `amount` credits from a LOCKED account (loadAccount(…, lock = true) in the same transaction):
 * subscription credits first, then purchased lots earliest-expiring first. The caller has checked
 * the balance; a shortfall here is a bug and aborts the transaction.
 */
export async function chargeCredits(
  q: Queryable,
  account: AccountRow,
  amount: number,
  searchId: number,
  now: Date,
): Promise<{ fromSubscription: number; fromPurchased: number }> {
  const fromSubscription = Math.min(Math.max(0, account.remaining_credits), amount)
  if (fromSubscription > 0) {
    await q.query('UPDATE users SET remaining_credits = remaining_credits - $2 WHERE id = $1', [
      account.id,
      fromSubscription,
    ])
  }
  let rest = amount - fromSubscription
  if (rest > 0) {
    const lots = await q.query<{ id: number; remaining: number }>(
      `SELECT id, remaining FROM credit_lots WHERE user_id = $1 AND expires_at > $2 AND remaining > 0
        ORDER BY expires_at, id FOR UPDATE`,
      [account.id, now],
    )
    for (const lot of lots.rows) {
      if (rest === 0) break
      const take = Math.min(lot.remaining, rest)
      await q.query('UPDATE credit_lots SET remaining = remaining - $2 WHERE id = $1', [lot.id, take])
      rest -= take
    }
    if (rest > 0) throw new Error(`chargeCredits: ${rest} credits short for account ${account.id}`)
  }
  await q.query(
    'INSERT INTO credit_charges (user_id, search_id, from_subscription, from_purchased, created_at) VALUES ($1, $2, $3, $4, $5)',
    [account.id, searchId, fromSubscription, amount - fromSubscription, now],
  )
  return { fromSubscription, fromPurchased: amount - fromSubscription }
}
