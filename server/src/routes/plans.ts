import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi'
import type { AppEnv } from '../app-env.ts'
import type { Db } from '../db/db.ts'
import type { PlanRow } from '../lib/credits.ts'
import { planToJson } from '../lib/plans.ts'
import { SubscriptionPlanSchema, type SubscriptionPlan } from '../lib/schemas.ts'

const plansRoute = createRoute({
  method: 'get',
  path: '/api/plans',
  tags: ['Credits & Profile'],
  summary: 'Subscription plans (public)',
  responses: {
    200: { description: 'Active plans, cheapest first', content: { 'application/json': { schema: z.array(SubscriptionPlanSchema) } } },
  },
})

/**
 * Plans are written only by the seed (like categories and places): one in-memory copy per
 * database, so this public list never waits for the database. A plan changed by hand in the
 * database shows here after a restart; accounts read their own plan live (lib/credits.ts).
 */
const cache = new WeakMap<Db, Promise<SubscriptionPlan[]>>()

function activePlans(db: Db): Promise<SubscriptionPlan[]> {
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

export function registerPlanRoutes(app: OpenAPIHono<AppEnv>) {
  app.openapi(plansRoute, async (c) => c.json(await activePlans(c.var.deps.db), 200))
}
