import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi'
import type { AppEnv } from '../app-env.ts'
import { authed, security } from '../lib/authed.ts'
import { countCompaniesAt } from '../lib/company-counts.ts'
import { readDataVersion } from '../lib/data-version.ts'
import { filtersQuerySchema, normaliseFilters } from '../lib/filters.ts'
import { ownedCount } from '../lib/lead-sets.ts'
import { authErrors, jsonError } from '../lib/schemas.ts'

const OwnedSchema = z
  .object({
    totalCount: z.number().int().openapi({ description: 'The same count as GET /api/companies/.' }),
    owned_count: z.number().int().openapi({ description: 'Of those, the leads this account received in an earlier export (by place_id).' }),
    new_count: z
      .number()
      .int()
      .openapi({ description: 'totalCount − owned_count: what an export with `skip_owned` holds and costs (before a cap).' }),
  })
  .openapi('OwnedLeads')

const ownedRoute = createRoute({
  method: 'get',
  path: '/api/companies/owned',
  tags: ['Search', 'Extensions'],
  summary: 'How many leads of a search this account already has (free)',
  description:
    'Extension (listed as `skip_owned` at /api/capabilities/). Same filters as GET /api/companies/. A lead counts as owned once ' +
    'any export of this account holds it, whatever its status: a running export is charged and will deliver it, a failed one ' +
    'was charged and its retry delivers it at no new charge.',
  middleware: authed,
  security,
  'x-extension': true,
  request: { query: filtersQuerySchema.omit({ paginate: true, page: true }).strict() },
  responses: {
    200: { description: 'Owned and new leads', content: { 'application/json': { schema: OwnedSchema } } },
    400: jsonError('Invalid filters'),
    ...authErrors,
  },
})

export function registerOwnedRoutes(app: OpenAPIHono<AppEnv>) {
  app.openapi(ownedRoute, async (c) => {
    const { db, clock } = c.var.deps
    const now = clock.now()
    const filters = normaliseFilters(c.req.valid('query'))
    const [{ count: totalCount }, owned] = await Promise.all([
      readDataVersion(db).then((version) => countCompaniesAt(db, version, filters, now)),
      ownedCount(db, c.var.user.id, filters, now),
    ])
    return c.json({ totalCount, owned_count: owned, new_count: Math.max(0, totalCount - owned) }, 200)
  })
}
