import type { Db } from '../../db/db.ts'
import { badRequest, notFound } from '../../lib/errors.ts'
import { insertGeneratedCompanies } from '../../seed/companies.ts'
import { addMonths, balanceOf, loadAccount } from '../exports/credits.ts'

const DAY_MS = 86_400_000

/** The caller's next export fails in the worker (the retry and the export.failed webhook can be tested). */
export async function failNextExport(db: Db, userId: number): Promise<void> {
  await db.query('UPDATE users SET fail_next_export = true WHERE id = $1', [userId])
}

/** `count` generated companies created at `createdAt`, in the given countries (all when none); 400 for an unknown country. */
export async function addCompanies(db: Db, count: number, countries: string[] | undefined, createdAt: Date): Promise<number> {
  const codes = countries?.map((s) => s.toUpperCase())
  if (codes) {
    const known = await db.query<{ code: string }>('SELECT code FROM countries WHERE code = ANY($1::bpchar[])', [codes])
    const missing = codes.filter((code) => !known.rows.some((r) => r.code.trim() === code))
    if (missing.length) throw badRequest({ countries: [`Unknown country: ${missing.join(', ')}.`] })
  }
  return insertGeneratedCompanies(db, { count, countries: codes, createdAt })
}

export interface Grant {
  subscription?: number
  purchased?: number
  /** days from now; null: never; undefined: 90 */
  purchased_expires_in_days?: number | null
  period_ends_in_days?: number | null
  plan_type?: string
}

/** Sets the account's credits, billing period or plan, or adds a purchased lot; answers the balance then. */
export async function grantCredits(db: Db, userId: number, grant: Grant, now: Date) {
  await db.tx(async (q) => {
    await loadAccount(q, userId, now, true)
    if (grant.plan_type !== undefined) {
      const plan = (await q.query<{ id: number }>('SELECT id FROM plans WHERE plan_type = $1', [grant.plan_type])).rows[0]
      if (!plan) throw badRequest({ plan_type: [`Unknown plan: ${grant.plan_type}.`] })
      await q.query('UPDATE users SET plan_id = $2 WHERE id = $1', [userId, plan.id])
    }
    if (grant.subscription !== undefined) {
      await q.query('UPDATE users SET remaining_credits = $2 WHERE id = $1', [userId, grant.subscription])
    }
    if (grant.period_ends_in_days !== undefined) {
      const end = grant.period_ends_in_days === null ? null : new Date(now.getTime() + grant.period_ends_in_days * DAY_MS)
      await q.query('UPDATE users SET current_period_start = $2, current_period_end = $3 WHERE id = $1', [
        userId,
        end && addMonths(end, -1),
        end,
      ])
    }
    if (grant.purchased !== undefined) {
      const days = grant.purchased_expires_in_days === undefined ? 90 : grant.purchased_expires_in_days
      const expires = days === null ? null : new Date(now.getTime() + days * DAY_MS)
      await q.query('INSERT INTO credit_lots (user_id, amount, remaining, purchased_at, expires_at) VALUES ($1, $2, $2, $3, $4)', [
        userId,
        grant.purchased,
        now,
        expires,
      ])
    }
  })
  const account = await loadAccount(db, userId, now)
  if (!account) throw notFound()
  return {
    remaining_credits: account.remaining_credits,
    purchased_credits_available: (await balanceOf(db, account, now)).purchased,
    plan_type: account.plan?.plan_type ?? null,
  }
}
