import type { Db } from '../db/db.ts'
import type { Config } from '../config.ts'
import { Clock } from '../lib/clock.ts'
import { addMonths } from '../modules/exports/credits.ts'
import { startExport, type ExportFormat, type ExportRow } from '../modules/exports/service.ts'
import { filtersHash, normaliseFilters, type FiltersInput } from '../modules/search/filters.ts'
import { hashPassword } from '../modules/auth/password.ts'
import { FREE_PLAN } from '../modules/plans/service.ts'
import { processExport } from '../jobs/export-worker.ts'

const DAY_MS = 86_400_000

/** Plans (interface 2.2): one free plan without fresh exports, three paid ones with them. */
export const PLANS = [
  { plan_type: FREE_PLAN, monthly_credits: 100, price: '0.00', link_days: 3, fresh: false, sellable: false },
  { plan_type: 'Starter', monthly_credits: 1_000, price: '29.00', link_days: 7, fresh: true, sellable: true },
  { plan_type: 'Pro', monthly_credits: 5_000, price: '99.00', link_days: 14, fresh: true, sellable: true },
  { plan_type: 'Business', monthly_credits: 25_000, price: '349.00', link_days: 30, fresh: true, sellable: true },
] as const

export const DEMO_EMAIL = 'demo@example.com'
export const DEMO_PASSWORD = 'demo-password'
const DEMO_PLAN = 'Pro'

async function seedPlans(db: Db, now: Date): Promise<void> {
  for (const p of PLANS) {
    const key = p.plan_type.toLowerCase()
    await db.query(
      `INSERT INTO plans (plan_type, monthly_credits, price_per_month, link_expiration_days, product_id, price_id,
                          is_active, is_sellable, allows_fresh_exports, created_at, updated_at)
       VALUES ($1, $2, $3, $4, $5, $6, true, $7, $8, $9, $9) ON CONFLICT (plan_type) DO NOTHING`,
      [p.plan_type, p.monthly_credits, p.price, p.link_days, `prod_leads_${key}`, `price_leads_${key}_monthly`, p.sellable, p.fresh, now],
    )
  }
}

/** The categories with most companies in a country: demo searches that match something on any seed size. */
async function topCategories(db: Db, country: string, n: number): Promise<number[]> {
  const { rows } = await db.query<{ id: number }>(
    `SELECT cat AS id FROM (SELECT unnest(category_ids) AS cat FROM companies WHERE country_code = $1) s
      GROUP BY cat ORDER BY count(*) DESC, cat LIMIT $2`,
    [country, n],
  )
  return rows.map((r) => r.id)
}

/**
 * The demo account of decisions.md: on a paid plan, purchased credits of which some expire within
 * 7 days (and one lot already expired), and a history of past exports made through the same code
 * path as the API (start = charge + queue, then the worker writes the real file), dated in the past.
 */
export async function seedAccounts(db: Db, opts: { now: Date; config: Config }): Promise<void> {
  const { now, config } = opts
  await seedPlans(db, now)
  const plan = (
    await db.query<{ id: number; monthly_credits: number }>('SELECT id, monthly_credits FROM plans WHERE plan_type = $1', [DEMO_PLAN])
  ).rows[0]!
  const periodStart = new Date(now.getTime() - 12 * DAY_MS)
  const user = (
    await db.query<{ id: number }>(
      `INSERT INTO users (email, password_hash, first_name, last_name, preferred_language, plan_id, remaining_credits,
                          current_period_start, current_period_end, created_at, email_confirmed_at)
       VALUES ($1, $2, 'Dana', 'Weber', 'en', $3, $4, $5, $6, $7, $7) RETURNING id`,
      [
        DEMO_EMAIL,
        await hashPassword(DEMO_PASSWORD),
        plan.id,
        plan.monthly_credits,
        periodStart,
        addMonths(periodStart, 1),
        new Date(now.getTime() - 400 * DAY_MS),
      ],
    )
  ).rows[0]!

  // `remaining`: what each lot holds once the history below is made. The history is charged as any
  // export is, the credits that expire first (40 days ago the expired lot was live and expired first;
  // since then the lot expiring soon, before the period's end). The lots hold plenty while it runs, so
  // none runs dry at a point a real account would not have; then each holds its `remaining`, bought as
  // that plus what it paid.
  const lots = [
    { remaining: 500, boughtDaysAgo: 85, expiresInDays: 5 }, // expiring soon
    { remaining: 2_000, boughtDaysAgo: 20, expiresInDays: 160 },
    { remaining: 300, boughtDaysAgo: 400, expiresInDays: -35 }, // expired: never counts
  ]
  const lotIds: number[] = []
  for (const l of lots) {
    const { rows } = await db.query<{ id: number }>(
      'INSERT INTO credit_lots (user_id, amount, remaining, purchased_at, expires_at) VALUES ($1, $2, $2, $3, $4) RETURNING id',
      [
        user.id,
        l.remaining + 1_000_000,
        new Date(now.getTime() - l.boughtDaysAgo * DAY_MS),
        new Date(now.getTime() + l.expiresInDays * DAY_MS),
      ],
    )
    lotIds.push(rows[0]!.id)
  }

  const [de1] = await topCategories(db, 'DE', 1)
  const [gb1] = await topCategories(db, 'GB', 1)
  const history: { daysAgo: number; filters: FiltersInput; format: ExportFormat; maxLeads: number | null; fail?: boolean }[] = [
    { daysAgo: 40, filters: { countries: ['DE'], category: de1 ? [de1] : [] }, format: 'csv', maxLeads: null },
    { daysAgo: 9, filters: { countries: ['FR'], email: true }, format: 'excel', maxLeads: 250 },
    { daysAgo: 4, filters: { countries: ['ES'], phone_number: true }, format: 'csv', maxLeads: 100, fail: true },
    { daysAgo: 2, filters: { countries: ['GB'], category: gb1 ? [gb1] : [], website: true }, format: 'csv', maxLeads: null },
  ]
  for (const h of history) {
    const at = new Date(now.getTime() - h.daysAgo * DAY_MS)
    const filters = normaliseFilters(h.filters)
    const preview = (
      await db.query<{ id: number }>(
        `INSERT INTO searches (user_id, kind, filters, filters_hash, created_at) VALUES ($1, 'preview', $2, $3, $4)
         ON CONFLICT (user_id, filters_hash) WHERE kind = 'preview' DO UPDATE SET created_at = EXCLUDED.created_at RETURNING id`,
        [user.id, JSON.stringify(filters), filtersHash(filters), at],
      )
    ).rows[0]!
    let started
    try {
      started = await startExport(db, { userId: user.id, searchId: preview.id, format: h.format, maxLeads: h.maxLeads, now: at })
    } catch {
      continue // a tiny seed where this search matches nothing: the history simply has one entry fewer
    }
    if (h.fail) await db.query('UPDATE users SET fail_next_export = true WHERE id = $1', [user.id])
    const row = (await db.query<ExportRow>("UPDATE searches SET status = 'PROCESSING' WHERE id = $1 RETURNING *", [started.search_id]))
      .rows[0]!
    const clockThen = new Clock()
    clockThen.advance((at.getTime() + 60_000 - Date.now()) / 1000)
    await processExport({ db, clock: clockThen, config }, row)
  }
  for (const [i, l] of lots.entries()) {
    await db.query('UPDATE credit_lots SET amount = amount - remaining + $2, remaining = $2 WHERE id = $1', [lotIds[i], l.remaining])
  }
  // The subscription balance is the current period's: exports before it were paid from the last one.
  await db.query(
    `UPDATE users SET remaining_credits = greatest(0, $2 - coalesce(
       (SELECT sum(from_subscription) FROM credit_charges WHERE user_id = $1 AND created_at >= $3), 0))
     WHERE id = $1`,
    [user.id, plan.monthly_credits, periodStart],
  )
}
