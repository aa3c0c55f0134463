import { createRoute, z } from '@hono/zod-openapi'
import { openApiApp } from '../../lib/openapi-app.ts'
import { authErrors, jsonBody, jsonError, safeString } from '../../lib/schemas.ts'
import { authed, security } from '../auth/authed.ts'
import { addCompanies, failNextExport, grantCredits } from './service.ts'

/**
 * Test hooks (decisions.md), live only with LEADS_TEST_CLOCK=1: routes/index.ts registers them only
 * then, so otherwise every path under /api/_test/ answers 404 and none is listed in /api/schema/.
 * The guard below stays as a second lock should a caller register them regardless.
 */
const TEN_YEARS = 10 * 366 * 86_400

const clockRoute = createRoute({
  method: 'post',
  path: '/api/_test/clock',
  tags: ['Test hooks'],
  summary: 'Move the service clock forward (LEADS_TEST_CLOCK=1 only)',
  request: { body: jsonBody(z.object({ advance_seconds: z.number().int().min(0).max(TEN_YEARS) })) },
  responses: {
    200: { description: 'The new time', content: { 'application/json': { schema: z.object({ now: z.string() }) } } },
    400: jsonError('Invalid input'),
    404: jsonError('Test clock not enabled'),
  },
})

const failRoute = createRoute({
  method: 'post',
  path: '/api/_test/fail-next-export',
  tags: ['Test hooks'],
  summary: 'The caller’s next export fails in the worker',
  middleware: authed,
  security,
  responses: {
    200: { description: 'Armed', content: { 'application/json': { schema: z.object({ detail: z.string() }) } } },
    404: jsonError('Test clock not enabled'),
    ...authErrors,
  },
})

const newCompaniesRoute = createRoute({
  method: 'post',
  path: '/api/_test/new-companies',
  tags: ['Test hooks'],
  summary: 'Add companies created now (fresh data for download-delta)',
  middleware: authed,
  security,
  request: {
    body: jsonBody(
      z.object({
        count: z.number().int().min(1).max(10_000),
        countries: z
          .array(safeString().regex(/^[A-Za-z]{2}$/, 'A two-letter country code.'))
          .min(1)
          .max(20)
          .optional(),
      }),
    ),
  },
  responses: {
    201: {
      description: 'Created',
      content: { 'application/json': { schema: z.object({ created: z.number().int(), created_at: z.string() }) } },
    },
    400: jsonError('Invalid input'),
    404: jsonError('Test clock not enabled'),
    ...authErrors,
  },
})

const grantRoute = createRoute({
  method: 'post',
  path: '/api/_test/grant-credits',
  tags: ['Test hooks'],
  summary: 'Set the caller’s subscription credits or billing period, add a purchased lot, or switch plan',
  middleware: authed,
  security,
  request: {
    body: jsonBody(
      z.object({
        subscription: z.number().int().min(0).max(100_000_000).optional(),
        purchased: z.number().int().min(1).max(100_000_000).optional(),
        purchased_expires_in_days: z
          .number()
          .int()
          .min(-3650)
          .max(3650)
          .nullable()
          .optional()
          .openapi({ description: 'When the added lot expires, in days from now (default 90); null: never.' }),
        period_ends_in_days: z.number().int().min(1).max(3650).nullable().optional().openapi({
          description:
            'Moves the billing period to end this many days from now (a month long); null: no period, so the subscription credits never expire.',
        }),
        plan_type: safeString().min(1).max(20).optional(),
      }),
    ),
  },
  responses: {
    200: {
      description: 'The balance now',
      content: {
        'application/json': {
          schema: z.object({
            remaining_credits: z.number().int(),
            purchased_credits_available: z.number().int(),
            plan_type: z.string().nullable(),
          }),
        },
      },
    },
    400: jsonError('Invalid input or unknown plan'),
    404: jsonError('Test clock not enabled'),
    ...authErrors,
  },
})

export function testHookRoutes() {
  const app = openApiApp()
  app.use('/api/_test/*', async (c, next) => {
    if (!c.var.deps.config.testClock) return c.json({ detail: 'Not found.' }, 404)
    await next()
  })

  app.openapi(clockRoute, async (c) => {
    const { clock } = c.var.deps
    clock.advance(c.req.valid('json').advance_seconds)
    return c.json({ now: clock.now().toISOString() }, 200)
  })

  app.openapi(failRoute, async (c) => {
    await failNextExport(c.var.deps.db, c.var.user.id)
    return c.json({ detail: 'Your next export will fail.' }, 200)
  })

  app.openapi(newCompaniesRoute, async (c) => {
    const { count, countries } = c.req.valid('json')
    const { db, clock } = c.var.deps
    const createdAt = clock.now()
    const created = await addCompanies(db, count, countries, createdAt)
    return c.json({ created, created_at: createdAt.toISOString() }, 201)
  })

  app.openapi(grantRoute, async (c) => {
    const { db, clock } = c.var.deps
    return c.json(await grantCredits(db, c.var.user.id, c.req.valid('json'), clock.now()), 200)
  })

  return app
}
