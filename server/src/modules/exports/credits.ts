import { prepared, type Queryable } from '../../db/db.ts'
import { HttpError } from '../../lib/errors.ts'
import type { PlanRow } from '../plans/service.ts'

/**
 * Everything about an account's credits, in one place (interface part 1 and 8, decisions.md):
 * subscription credits reset each billing period; purchased credits are lots that can expire
 * (expired lots never count, a lot without a date never expires). A charge takes the credits that
 * expire first (spendingOrder: the subscription's expire at the period's end, each lot at its own
 * date, never-expiring ones last) and is recorded per export with the balances that paid, so a
 * failed export's retry costs nothing and the export's answer and history say who paid.
 */

export const EXPIRING_SOON_DAYS = 7
const DAY_MS = 86_400_000

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

/** Which balances paid an export (extension `credit_order`: `charged_from` on its answer and history entry). */
export interface ChargedFrom {
  subscription: number
  purchased: number
}

/** One spendable balance: the subscription's, or one purchased lot (`lotId`). */
export interface CreditSource {
  source: keyof ChargedFrom
  lotId: number | null
  credits: number
  /** null: never expires. */
  expiresAt: Date | null
}

/** A live purchased lot as read from credit_lots. */
export interface LotRow {
  id: number
  remaining: number
  expires_at: Date | string | null
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
 * The account with its plan in one round trip; the plan as one JSON column (null without a plan),
 * since every column of a result costs the driver work on each call.
 */
const ACCOUNT_AND_PLAN = `${ACCOUNT_COLUMNS}, to_jsonb(p) AS plan_json`
const ACCOUNT_AND_PLAN_FROM = 'users u LEFT JOIN plans p ON p.id = u.plan_id'

type PlanJson = Omit<PlanRow, 'price_per_month' | 'created_at' | 'updated_at'> & {
  price_per_month: number | string
  created_at: string
  updated_at: string
}
type AccountAndPlanRow = AccountRow & { plan_json: PlanJson | null }

function accountFrom({ plan_json: plan, ...row }: AccountAndPlanRow): Account {
  return {
    ...row,
    plan: plan && {
      ...plan,
      // as the columns read: numeric(10,2) as text, timestamps as dates
      price_per_month: Number(plan.price_per_month).toFixed(2),
      created_at: new Date(plan.created_at),
      updated_at: new Date(plan.updated_at),
    },
  }
}

/**
 * Loads the account (with `lock`: SELECT … FOR UPDATE, inside a transaction) and rolls its billing
 * period over when the clock has passed its end: a new period of one month (as many as needed) and
 * the subscription credits reset to the plan's monthly credits. Lazy, so the test clock shows renewals.
 * Unlocked, the plan comes in the same statement; locked, it is read after the lock is held, so a
 * plan changed by the transaction the lock waited for is the one seen (a join re-checked after the
 * wait would keep the plan row it first found).
 */
export async function loadAccount(q: Queryable, userId: number, now: Date, lock = false): Promise<Account | null> {
  if (!lock) {
    const row = (await q.query<AccountAndPlanRow>(`SELECT ${ACCOUNT_AND_PLAN} FROM ${ACCOUNT_AND_PLAN_FROM} WHERE u.id = $1`, [userId]))
      .rows[0]
    return row ? rollOver(q, accountFrom(row), now) : null
  }
  const row = (await q.query<AccountRow>(`SELECT ${ACCOUNT_COLUMNS} FROM users u WHERE u.id = $1 FOR UPDATE`, [userId])).rows[0]
  if (!row) return null
  const plan = row.plan_id ? ((await q.query<PlanRow>('SELECT * FROM plans WHERE id = $1', [row.plan_id])).rows[0] ?? null) : null
  return rollOver(q, { ...row, plan }, now)
}

async function rollOver(q: Queryable, account: Account, now: Date): Promise<Account> {
  const { plan } = account
  if (plan && account.current_period_end && new Date(account.current_period_end) <= now) {
    const userId = account.id
    let start = new Date(account.current_period_end)
    let end = addMonths(start, 1)
    while (end <= now) {
      start = end
      end = addMonths(start, 1)
    }
    // Conditional on the old period end: two readers rolling over at once apply it once.
    const updated = await q.query<AccountRow>(
      `UPDATE users u SET current_period_start = $2, current_period_end = $3, remaining_credits = $4
       WHERE u.id = $1 AND u.current_period_end = $5 RETURNING ${ACCOUNT_COLUMNS}`,
      [userId, start, end, Math.max(0, plan.monthly_credits), account.current_period_end],
    )
    const fresh = updated.rows[0] ?? (await q.query<AccountRow>(`SELECT ${ACCOUNT_COLUMNS} FROM users u WHERE u.id = $1`, [userId])).rows[0]
    if (fresh) Object.assign(account, fresh)
  }
  return account
}

/** Lots of `user_id = $1` that can be spent at `$2`: not expired (a lot without a date never is). */
const LIVE_LOTS = 'credit_lots WHERE user_id = $1 AND (expires_at IS NULL OR expires_at > $2)'

/** The purchased credits of `user_id = $1` at `$2` (not expired) and those expiring by `$3`. */
const LOTS = `coalesce(sum(remaining), 0)::int AS purchased,
              coalesce(sum(remaining) FILTER (WHERE expires_at <= $3), 0)::int AS soon
         FROM ${LIVE_LOTS}`

const balanceFrom = (account: AccountRow, lots: { purchased: number; soon: number } | undefined): Balance => {
  const purchased = lots?.purchased ?? 0
  const subscription = Math.max(0, account.remaining_credits)
  return { subscription, purchased, purchasedExpiringSoon: lots?.soon ?? 0, available: subscription + purchased }
}

const expiringSoonAfter = (now: Date) => new Date(now.getTime() + EXPIRING_SOON_DAYS * DAY_MS)

export async function balanceOf(q: Queryable, account: AccountRow, now: Date): Promise<Balance> {
  const { rows } = await q.query<{ purchased: number; soon: number }>(`SELECT ${LOTS}`, [account.id, now, expiringSoonAfter(now)])
  return balanceFrom(account, rows[0])
}

const expiryMs = (d: Date | string | null): number => (d === null ? Infinity : new Date(d).getTime())

/**
 * The account's spendable balances in the order a charge spends them (decisions.md "Credits"): the
 * earliest expiry first. Subscription credits expire at the period's end (never, without one), each
 * lot at its own date; a lot without a date never expires. At the same expiry the subscription goes
 * first, then lots by id, so the order is one and the same for every reader.
 */
export function spendingOrder(account: AccountRow, lots: readonly LotRow[]): CreditSource[] {
  const sources: (CreditSource & { rank: number })[] = lots
    .filter((l) => l.remaining > 0)
    .map((l) => ({
      source: 'purchased',
      lotId: l.id,
      credits: l.remaining,
      expiresAt: l.expires_at === null ? null : new Date(l.expires_at),
      rank: l.id,
    }))
  const subscription = Math.max(0, account.remaining_credits)
  if (subscription > 0) {
    const end = account.current_period_end
    sources.push({ source: 'subscription', lotId: null, credits: subscription, expiresAt: end === null ? null : new Date(end), rank: -1 })
  }
  return sources.sort((a, b) => expiryMs(a.expiresAt) - expiryMs(b.expiresAt) || a.rank - b.rank).map(({ rank: _rank, ...s }) => s)
}

/**
 * The account, its plan, its balance and its balances in spending order in one round trip (what the
 * profile shows); the billing period rolls over as in loadAccount. Purchased lots do not take part
 * in a rollover, so the lots read beside the account stay right.
 */
const ACCOUNT_WITH_BALANCE = prepared(
  `SELECT ${ACCOUNT_AND_PLAN}, l.purchased AS lots_purchased, l.soon AS lots_soon,
          (SELECT coalesce(json_agg(json_build_object('id', id, 'remaining', remaining, 'expires_at', expires_at)), '[]')
             FROM ${LIVE_LOTS} AND remaining > 0) AS lots_live
     FROM ${ACCOUNT_AND_PLAN_FROM} CROSS JOIN (SELECT ${LOTS}) l
    WHERE u.id = $1`,
)

export async function loadAccountWithBalance(
  q: Queryable,
  userId: number,
  now: Date,
): Promise<{ account: Account; balance: Balance; lots: CreditSource[] } | null> {
  const row = (
    await q.query<AccountAndPlanRow & { lots_purchased: number; lots_soon: number; lots_live: LotRow[] | string }>(ACCOUNT_WITH_BALANCE, [
      userId,
      now,
      expiringSoonAfter(now),
    ])
  ).rows[0]
  if (!row) return null
  const { lots_purchased: purchased, lots_soon: soon, lots_live: live, ...rest } = row
  const account = await rollOver(q, accountFrom(rest), now)
  const lots = typeof live === 'string' ? (JSON.parse(live) as LotRow[]) : live
  return { account, balance: balanceFrom(account, { purchased, soon }), lots: spendingOrder(account, lots) }
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
 * Takes `amount` credits from a LOCKED account (loadAccount(…, lock = true) in the same transaction),
 * in spendingOrder: the credits that expire first. The lots are locked too (in id order), so the
 * amounts read are the ones written. The caller has checked the balance; a shortfall here is a bug
 * and aborts the transaction. The charge is recorded with the balances that paid.
 */
export async function chargeCredits(q: Queryable, account: AccountRow, amount: number, searchId: number, now: Date): Promise<ChargedFrom> {
  const lots = (
    await q.query<LotRow>(`SELECT id, remaining, expires_at FROM ${LIVE_LOTS} AND remaining > 0 ORDER BY id FOR UPDATE`, [account.id, now])
  ).rows
  const paid: ChargedFrom = { subscription: 0, purchased: 0 }
  let rest = amount
  for (const from of spendingOrder(account, lots)) {
    if (rest === 0) break
    const take = Math.min(from.credits, rest)
    if (from.lotId === null) {
      await q.query('UPDATE users SET remaining_credits = remaining_credits - $2 WHERE id = $1', [account.id, take])
    } else {
      await q.query('UPDATE credit_lots SET remaining = remaining - $2 WHERE id = $1', [from.lotId, take])
    }
    paid[from.source] += take
    rest -= take
  }
  if (rest > 0) throw new Error(`chargeCredits: ${rest} credits short for account ${account.id}`)
  await q.query(
    'INSERT INTO credit_charges (user_id, search_id, from_subscription, from_purchased, created_at) VALUES ($1, $2, $3, $4, $5)',
    [account.id, searchId, paid.subscription, paid.purchased, now],
  )
  return paid
}
