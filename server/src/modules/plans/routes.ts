import { createRoute, z } from '@hono/zod-openapi'
import { openApiApp } from '../../lib/openapi-app.ts'
import { SubscriptionPlanSchema } from '../../lib/schemas.ts'
import { activePlans } from './service.ts'

const plansRoute = createRoute({
  method: 'get',
  path: '/api/plans',
  tags: ['Credits & Profile'],
  summary: 'Subscription plans (public)',
  responses: {
    200: { description: 'Active plans, cheapest first', content: { 'application/json': { schema: z.array(SubscriptionPlanSchema) } } },
  },
})

/** Public: its per-address budget is the one app.ts gives the documents anyone may fetch. */
export function planRoutes() {
  const app = openApiApp()
  app.openapi(plansRoute, async (c) => c.json(await activePlans(c.var.deps.db), 200))
  return app
}
