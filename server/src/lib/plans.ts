import type { PlanRow } from './credits.ts'
import type { SubscriptionPlan } from './schemas.ts'

export const FREE_PLAN = 'Free'

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
