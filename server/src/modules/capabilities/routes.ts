import { createRoute, z } from '@hono/zod-openapi'
import { openApiApp } from '../../lib/openapi-app.ts'
import { authErrors } from '../../lib/schemas.ts'
import { authed, security } from '../auth/authed.ts'
import { capabilitiesOf } from './service.ts'

const CapabilitiesSchema = z
  .record(z.string(), z.object({ version: z.number().int() }).passthrough())
  .openapi('Capabilities', { example: { facets: { version: 1, limit: 8 } } })

const capabilitiesRoute = createRoute({
  method: 'get',
  path: '/api/capabilities',
  tags: ['Extensions'],
  summary: 'Extensions of this service beyond the interface',
  description: 'A client hides every extension not named here; a service without this endpoint (404) has none.',
  middleware: authed,
  security,
  'x-extension': true,
  responses: {
    200: { description: 'Extension name → {version, ...}', content: { 'application/json': { schema: CapabilitiesSchema } } },
    ...authErrors,
  },
})

export function capabilityRoutes() {
  const app = openApiApp()
  app.openapi(capabilitiesRoute, (c) => c.json(capabilitiesOf(c.var.deps.config), 200))
  return app
}
