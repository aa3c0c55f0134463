import type { Db } from '../../db/db.ts'
import type { SubscriptionPlan } from '../../lib/schemas.ts'

export const FREE_PLAN = 'Free'

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

export function planToJson(p: PlanRow): SubscriptionPlan {
  return {
    id: p.id,
    plan_type: p.plan_type,
    monthly_credits: p.monthly_credits,
    price_per_month: Number(p.price_per_month).toFixed(2),
    link_expiration_days: p.link_expiration_days,
    product_id: p.product_id,
    price_id: p.price_id,
    is_active: p.is_active,
    is_sellable: p.is_sellable,
    allows_fresh_exports: p.allows_fresh_exports,
    created_at: new Date(p.created_at).toISOString(),
    updated_at: new Date(p.updated_at).toISOString(),
  }
}

/**
 * Plans are written only by the seed (like categories and places): one in-memory copy per
 * database, so this public list never waits for the database. A plan changed by hand in the
 * database shows here after a restart; accounts read their own plan live (modules/exports/credits.ts).
 */
const cache = new WeakMap<Db, Promise<SubscriptionPlan[]>>()

export function activePlans(db: Db): Promise<SubscriptionPlan[]> {
  let plans = cache.get(db)
  if (!plans) {
    plans = db
      .query<PlanRow>('SELECT * FROM plans WHERE is_active ORDER BY price_per_month, monthly_credits, id')
      .then(({ rows }) => rows.map(planToJson))
    cache.set(db, plans)
    plans.catch(() => cache.delete(db))
  }
  return plans
}
