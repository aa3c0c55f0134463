import { createRoute, z } from '@hono/zod-openapi'
import type { Context } from 'hono'
import type { AppEnv } from '../../app-env.ts'
import { HttpError } from '../../lib/errors.ts'
import { openApiApp } from '../../lib/openapi-app.ts'
import { authErrors, jsonBody, jsonError, safeString } from '../../lib/schemas.ts'
import { DELIVERY_ERROR_CODES, SIGNATURE_HEADER, TEST_EVENT, WEBHOOK_EVENTS } from '../../lib/webhooks.ts'
import { authed, security } from '../auth/authed.ts'
import { refuseReadOnlyKey } from '../keys/scope.ts'
import {
  createEndpoint,
  deleteEndpoint,
  listDeliveries,
  listEndpoints,
  resumeEndpoint,
  RESUME_INTERVAL_SECONDS,
  rotateSecret,
  sendTestEvent,
} from './service.ts'
import { MAX_URL_LENGTH } from './target.ts'

const WebhookSchema = z
  .object({
    id: z.string(),
    url: z.string(),
    events: z.array(z.enum(WEBHOOK_EVENTS)),
    secret_hint: z.string().openapi({ description: 'The last characters of the signing secret (the secret itself is shown once).' }),
    created_at: z.string().openapi({ format: 'date-time' }),
    secret_rotated_at: z.string().nullable().openapi({ format: 'date-time' }),
    health: z.enum(['healthy', 'unhealthy']).openapi({
      description:
        '`unhealthy` after several deliveries in a row got no answer in time: its deliveries then wait, one is tried again at `next_retry_at`, and the owner can resume it at once (POST …/resume/).',
    }),
    unhealthy_since: z.string().nullable().openapi({ format: 'date-time' }),
    next_retry_at: z.string().nullable().openapi({ format: 'date-time', description: 'When an unhealthy endpoint is tried again.' }),
    consecutive_timeouts: z.number().int(),
  })
  .openapi('Webhook')

const errorCode = z.enum(DELIVERY_ERROR_CODES as [string, ...string[]]).openapi({
  description: `What went wrong, as a category (never the receiver's own words): ${DELIVERY_ERROR_CODES.map((c) => `\`${c}\``).join(', ')}.`,
})
const AttemptSchema = z.object({
  at: z.string().openapi({ format: 'date-time' }),
  attempt: z.number().int(),
  status_code: z.number().int().nullable(),
  error_code: errorCode.nullable(),
  error: z.string().nullable().openapi({ description: 'The category in English.' }),
  duration_ms: z.number().int(),
})

const DeliverySchema = z
  .object({
    id: z.number().int(),
    event_id: z.string(),
    event_type: z.string(),
    status: z.enum(['pending', 'delivering', 'succeeded', 'failed']),
    attempts: z.number().int(),
    last_status_code: z.number().int().nullable(),
    last_error_code: errorCode.nullable(),
    last_error: z.string().nullable().openapi({ description: 'The category in English.' }),
    last_attempt_at: z.string().nullable().openapi({ format: 'date-time' }),
    next_attempt_at: z.string().nullable().openapi({ format: 'date-time', description: 'When the next try is due (pending only).' }),
    created_at: z.string().openapi({ format: 'date-time' }),
    attempt_log: z.array(AttemptSchema),
  })
  .openapi('WebhookDelivery')

const CreateBody = z
  .object({
    url: safeString().max(MAX_URL_LENGTH).openapi({ example: 'https://example.com/hooks/leads' }),
    events: z
      .array(z.enum(WEBHOOK_EVENTS, { message: `Must be one of ${WEBHOOK_EVENTS.join(', ')}.` }))
      .min(1, 'Choose at least one event.')
      .max(WEBHOOK_EVENTS.length)
      .optional()
      .openapi({ description: 'Default: every event.' }),
  })
  .strict()
  .openapi('WebhookCreate')

const WithSecret = z.object({
  webhook: WebhookSchema,
  secret: z.string().openapi({ description: 'Shown once: store it to verify signatures.' }),
})
const idParams = z.object({
  id: safeString()
    .regex(/^wh_[A-Za-z0-9_-]{8,40}$/, 'Not a webhook id.')
    .openapi({ param: { name: 'id', in: 'path' } }),
})
const ext = { middleware: authed, security, tags: ['Webhooks'], 'x-extension': true as const }
const keysCannot = jsonError('Called with an API key: managing webhooks needs a password sign-in (`api_key_not_allowed`)')

const listRoute = createRoute({
  ...ext,
  method: 'get',
  path: '/api/user/webhooks',
  summary: 'The account’s webhook endpoints (extension `webhooks`)',
  responses: { 200: { description: 'Endpoints', content: { 'application/json': { schema: z.array(WebhookSchema) } } }, ...authErrors },
})
const createRouteDef = createRoute({
  ...ext,
  method: 'post',
  path: '/api/user/webhooks',
  summary: 'Add an endpoint; the signing secret is in this answer only',
  description: `Each delivery is a POST of the event as JSON with \`${SIGNATURE_HEADER}: t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>" under the secret>\`, \`Leads-Event-Id\` and \`Leads-Event-Type\`. A non-2xx answer (a redirect too: none is followed) or no answer within the timeout is retried with back-off. The URL must be https and resolve to public addresses only, checked again at every delivery.`,
  request: { body: jsonBody(CreateBody) },
  responses: {
    201: { description: 'Created', content: { 'application/json': { schema: WithSecret } } },
    400: jsonError('Invalid input: `webhook_https_required`, `webhook_address_blocked`, `webhook_limit`…'),
    403: jsonError("Called with an API key (`api_key_not_allowed`), or the account's address is not confirmed yet (`email_not_confirmed`)"),
    ...authErrors,
    429: jsonError('More endpoints added this hour than allowed (`throttled`, see Retry-After), or the rate limit'),
  },
})
const deleteRoute = createRoute({
  ...ext,
  method: 'delete',
  path: '/api/user/webhooks/{id}',
  summary: 'Remove an endpoint (its queued deliveries are dropped)',
  request: { params: idParams },
  responses: { 204: { description: 'Removed' }, 403: keysCannot, 404: jsonError('No such endpoint of the caller'), ...authErrors },
})
const rotateRoute = createRoute({
  ...ext,
  method: 'post',
  path: '/api/user/webhooks/{id}/rotate-secret',
  summary: 'Replace the signing secret; the new one is in this answer only',
  request: { params: idParams },
  responses: {
    200: { description: 'Rotated', content: { 'application/json': { schema: WithSecret } } },
    403: keysCannot,
    404: jsonError('No such endpoint of the caller'),
    ...authErrors,
  },
})
const testRoute = createRoute({
  ...ext,
  method: 'post',
  path: '/api/user/webhooks/{id}/test',
  summary: `Queue a \`${TEST_EVENT}\` event to this endpoint`,
  description:
    'Test events are counted per account (whatever endpoint they go to; `tests_per_minute` in capabilities) and sent in a lane of their own with a shorter timeout.',
  request: { params: idParams },
  responses: {
    202: {
      description: 'Queued',
      content: { 'application/json': { schema: z.object({ delivery_id: z.number().int(), event_id: z.string() }) } },
    },
    403: jsonError('A read-only API key (`api_key_read_only`), or an unconfirmed address (`email_not_confirmed`)'),
    404: jsonError('No such endpoint of the caller'),
    ...authErrors,
  },
})
const resumeRoute = createRoute({
  ...ext,
  method: 'post',
  path: '/api/user/webhooks/{id}/resume',
  summary: 'Make an unhealthy endpoint healthy again: its waiting deliveries are tried at once',
  description: `At most once every ${RESUME_INTERVAL_SECONDS} seconds per endpoint.`,
  request: { params: idParams },
  responses: {
    200: { description: 'Resumed', content: { 'application/json': { schema: WebhookSchema } } },
    403: keysCannot,
    404: jsonError('No such endpoint of the caller'),
    ...authErrors,
  },
})
const deliveriesRoute = createRoute({
  ...ext,
  method: 'get',
  path: '/api/user/webhooks/{id}/deliveries',
  summary: 'The endpoint’s latest deliveries, newest first, with every attempt',
  request: {
    params: idParams,
    query: z
      .object({
        limit: safeString()
          .regex(/^\d{1,3}$/, 'Must be a whole number from 1 to 100.')
          .transform(Number)
          .refine((n) => n >= 1 && n <= 100, 'Must be a whole number from 1 to 100.')
          .optional()
          .openapi({ param: { name: 'limit', in: 'query' }, type: 'integer', default: 20 }),
      })
      .strict(),
  },
  responses: {
    200: { description: 'Deliveries', content: { 'application/json': { schema: z.array(DeliverySchema) } } },
    404: jsonError('No such endpoint of the caller'),
    ...authErrors,
  },
})

/**
 * Adding, rotating, removing and resuming endpoints need a password sign-in: a stolen API key must not
 * plant an endpoint (or learn a secret) that outlives the key's revocation and a password change.
 */
function refuseApiKeys(c: Context<AppEnv>) {
  if (c.var.apiKey) {
    throw new HttpError(403, {
      detail: 'API keys cannot manage webhooks. Sign in with the password to do that.',
      code: 'api_key_not_allowed',
    })
  }
}

export function webhookRoutes() {
  const app = openApiApp()

  app.openapi(listRoute, async (c) => c.json(await listEndpoints(c.var.deps.db, c.var.user.id), 200))

  app.openapi(createRouteDef, async (c) => {
    refuseApiKeys(c)
    const body = c.req.valid('json')
    const { db, clock, config } = c.var.deps
    return c.json(await createEndpoint(db, c.var.user.id, body, config, clock), 201)
  })

  app.openapi(deleteRoute, async (c) => {
    refuseApiKeys(c)
    await deleteEndpoint(c.var.deps.db, c.var.user.id, c.req.valid('param').id)
    return c.body(null, 204)
  })

  app.openapi(rotateRoute, async (c) => {
    refuseApiKeys(c)
    const { db, clock, config } = c.var.deps
    return c.json(await rotateSecret(db, config.secret, c.var.user.id, c.req.valid('param').id, clock.now()), 200)
  })

  app.openapi(testRoute, async (c) => {
    refuseReadOnlyKey(c, 'manage webhooks')
    const { id } = c.req.valid('param')
    const { db, clock, config, kickWebhooks } = c.var.deps
    const queued = await sendTestEvent(db, c.var.user.id, id, config.webhooks.testsPerMinute, clock)
    kickWebhooks()
    return c.json({ delivery_id: queued.id, event_id: queued.event_id }, 202)
  })

  app.openapi(resumeRoute, async (c) => {
    refuseApiKeys(c)
    const { db, clock, kickWebhooks } = c.var.deps
    const webhook = await resumeEndpoint(db, c.var.user.id, c.req.valid('param').id, clock)
    kickWebhooks()
    return c.json(webhook, 200)
  })

  app.openapi(deliveriesRoute, async (c) => {
    const { id } = c.req.valid('param')
    const limit = c.req.valid('query').limit ?? 20
    return c.json(await listDeliveries(c.var.deps.db, c.var.user.id, id, limit), 200)
  })

  return app
}
