import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi'
import type { AppEnv } from '../app-env.ts'
import type { PlanRow } from '../lib/credits.ts'
import { planToJson } from '../lib/plans.ts'
import { SubscriptionPlanSchema } from '../lib/schemas.ts'

const plansRoute = createRoute({
  method: 'get',
  path: '/api/plans',
  tags: ['Credits & Profile'],
  summary: 'Subscription plans (public)',
  responses: {
    200: { description: 'Active plans, cheapest first', content: { 'application/json': { schema: z.array(SubscriptionPlanSchema) } } },
  },
})

export function registerPlanRoutes(app: OpenAPIHono<AppEnv>) {
  app.openapi(plansRoute, async (c) => {
    const { rows } = await c.var.deps.db.query<PlanRow>(
      'SELECT * FROM plans WHERE is_active ORDER BY price_per_month, monthly_credits, id',
    )
    return c.json(rows.map(planToJson), 200)
  })
}
