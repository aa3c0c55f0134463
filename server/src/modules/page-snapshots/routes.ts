import { timingSafeEqual, createHash } from 'node:crypto'
import { createRoute, z } from '@hono/zod-openapi'
import type { Context } from 'hono'
import type { AppEnv } from '../../app-env.ts'
import { HttpError } from '../../lib/errors.ts'
import { openApiApp } from '../../lib/openapi-app.ts'
import { clientAddress, failedAuth, throttled } from '../../lib/rate-limit.ts'
import { jsonError, safeString } from '../../lib/schemas.ts'
import { countryPage } from './service.ts'

const SnapshotSchema = z
  .object({
    country: z.string(),
    country_name: z.string(),
    language: z.string(),
    generated_at: z.string().openapi({ format: 'date-time', description: 'When the newest section was stored.' }),
    sections: z.record(z.string(), z.unknown()).openapi({
      description: 'Latest snapshot of each section: `summary`, `top_categories`, `top_cities`.',
    }),
  })
  .openapi('PageSnapshot')

const snapshotRoute = createRoute({
  method: 'get',
  path: '/api/page-snapshots/{alpha2}',
  tags: ['Page snapshots'],
  summary: 'Country page data assembled from the stored snapshots (service token only)',
  description:
    "Gated by the `X-Service-Token` header, which must equal the service's PAGE_SNAPSHOT_TOKEN (at least 16 characters). A missing or wrong token counts against the caller's address like a failed sign-in to the API (FAILED_AUTH_PER_MINUTE): past it, 429 before any token is looked at.",
  security: [{ serviceToken: [] }],
  request: {
    params: z.object({
      alpha2: safeString()
        .regex(/^[a-zA-Z]{2}$/, 'Must be a two-letter country code.')
        .openapi({ param: { name: 'alpha2', in: 'path' }, example: 'DE' }),
    }),
    headers: z.object({ 'x-service-token': safeString().optional().openapi({ description: 'The service token.' }) }),
  },
  responses: {
    200: { description: 'The country page payload', content: { 'application/json': { schema: SnapshotSchema } } },
    400: jsonError('Invalid country code'),
    401: jsonError('Service token missing'),
    403: jsonError('Service token wrong'),
    429: jsonError('Too many wrong or missing tokens from this address; see Retry-After'),
    404: jsonError('Unknown country or no snapshot'),
    503: jsonError('No service token is configured'),
  },
})

const digest = (s: string) => createHash('sha256').update(s).digest()

/** The service token (PAGE_SNAPSHOT_TOKEN) of the `X-Service-Token` header, checked as requireAuth checks an account's credential. */
function requireServiceToken(c: Context<AppEnv>): void {
  const deps = c.var.deps
  const { config } = deps
  if (!config.pageSnapshotToken) throw new HttpError(503, { detail: 'Page snapshots are not configured.', code: 'unavailable' })
  // guessing the token costs the guesser: the failed-authentication budget of the address
  const address = `ip:${clientAddress(c)}`
  const limit = config.limits.failedAuth
  const blocked = failedAuth.over(deps, address, limit)
  if (blocked) throw throttled(blocked, `Too many failed authentications from this address. Expected available in ${blocked} seconds.`)
  const given = c.req.header('x-service-token')
  if (!given) {
    failedAuth.hit(deps, address, limit)
    throw new HttpError(401, { detail: 'Service token missing.', code: 'not_authenticated' })
  }
  // compare fixed-length digests so the comparison takes the same time whatever was sent
  if (!timingSafeEqual(digest(given), digest(config.pageSnapshotToken))) {
    failedAuth.hit(deps, address, limit)
    throw new HttpError(403, { detail: 'Service token not valid.', code: 'forbidden' })
  }
}

/** Country pages for the public site: no account, a service token of their own. */
export function pageSnapshotRoutes() {
  const app = openApiApp()
  app.openAPIRegistry.registerComponent('securitySchemes', 'serviceToken', {
    type: 'apiKey',
    in: 'header',
    name: 'X-Service-Token',
  })

  app.openapi(snapshotRoute, async (c) => {
    requireServiceToken(c)
    return c.json(await countryPage(c.var.deps.db, c.req.valid('param').alpha2), 200)
  })
  return app
}
