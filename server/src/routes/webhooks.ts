import { randomBytes } from 'node:crypto'
import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi'
import type { AppEnv } from '../app-env.ts'
import { authed, security } from '../lib/authed.ts'
import { badRequest, HttpError, notFound } from '../lib/errors.ts'
import { refuseReadOnlyKey } from '../lib/key-scope.ts'
import { authErrors, jsonBody, jsonError, safeString } from '../lib/schemas.ts'
import { seal } from '../lib/secret-box.ts'
import { checkWebhookUrl, MAX_URL_LENGTH } from '../lib/webhook-target.ts'
import { newSecret, queueTestEvent, SIGNATURE_HEADER, TEST_EVENT, WEBHOOK_EVENTS } from '../lib/webhooks.ts'

/** Test events one endpoint may be sent per minute (each is an outbound request the service makes). */
export const TEST_EVENTS_PER_MINUTE = 5

const iso = (d: Date | null) => (d ? new Date(d).toISOString() : null)

const WebhookSchema = z
  .object({
    id: z.string(),
    url: z.string(),
    events: z.array(z.enum(WEBHOOK_EVENTS)),
    secret_hint: z.string().openapi({ description: 'The last characters of the signing secret (the secret itself is shown once).' }),
    created_at: z.string().openapi({ format: 'date-time' }),
    secret_rotated_at: z.string().nullable().openapi({ format: 'date-time' }),
  })
  .openapi('Webhook')

const AttemptSchema = z.object({
  at: z.string().openapi({ format: 'date-time' }),
  attempt: z.number().int(),
  status_code: z.number().int().nullable(),
  error: z.string().nullable(),
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
    last_error: z.string().nullable(),
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

const WithSecret = z.object({ webhook: WebhookSchema, secret: z.string().openapi({ description: 'Shown once: store it to verify signatures.' }) })
const idParams = z.object({ id: safeString().regex(/^wh_[A-Za-z0-9_-]{8,40}$/, 'Not a webhook id.').openapi({ param: { name: 'id', in: 'path' } }) })
const ext = { middleware: authed, security, tags: ['Webhooks'], 'x-extension': true as const }

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
    403: jsonError('A read-only API key (`api_key_read_only`)'),
    ...authErrors,
  },
})
const deleteRoute = createRoute({
  ...ext,
  method: 'delete',
  path: '/api/user/webhooks/{id}',
  summary: 'Remove an endpoint (its queued deliveries are dropped)',
  request: { params: idParams },
  responses: { 204: { description: 'Removed' }, 403: jsonError('A read-only API key'), 404: jsonError('No such endpoint of the caller'), ...authErrors },
})
const rotateRoute = createRoute({
  ...ext,
  method: 'post',
  path: '/api/user/webhooks/{id}/rotate-secret',
  summary: 'Replace the signing secret; the new one is in this answer only',
  request: { params: idParams },
  responses: {
    200: { description: 'Rotated', content: { 'application/json': { schema: WithSecret } } },
    403: jsonError('A read-only API key'),
    404: jsonError('No such endpoint of the caller'),
    ...authErrors,
  },
})
const testRoute = createRoute({
  ...ext,
  method: 'post',
  path: '/api/user/webhooks/{id}/test',
  summary: `Queue a \`${TEST_EVENT}\` event to this endpoint (at most ${TEST_EVENTS_PER_MINUTE} a minute)`,
  request: { params: idParams },
  responses: {
    202: { description: 'Queued', content: { 'application/json': { schema: z.object({ delivery_id: z.number().int(), event_id: z.string() }) } } },
    403: jsonError('A read-only API key'),
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

interface EndpointRow {
  id: string
  url: string
  events: string[]
  secret_hint: string
  created_at: Date
  secret_rotated_at: Date | null
}
const toWebhook = (r: EndpointRow): z.infer<typeof WebhookSchema> => ({
  id: r.id,
  url: r.url,
  events: r.events.filter((e): e is (typeof WEBHOOK_EVENTS)[number] => (WEBHOOK_EVENTS as readonly string[]).includes(e)),
  secret_hint: `whsec_…${r.secret_hint}`,
  created_at: new Date(r.created_at).toISOString(),
  secret_rotated_at: iso(r.secret_rotated_at),
})
const ENDPOINT_COLUMNS = 'id, url, events, secret_hint, created_at, secret_rotated_at'

export function registerWebhookRoutes(app: OpenAPIHono<AppEnv>) {
  app.openapi(listRoute, async (c) => {
    const { rows } = await c.var.deps.db.query<EndpointRow>(`SELECT ${ENDPOINT_COLUMNS} FROM webhook_endpoints WHERE user_id = $1 ORDER BY created_at, id`, [
      c.var.user.id,
    ])
    return c.json(rows.map(toWebhook), 200)
  })

  app.openapi(createRouteDef, async (c) => {
    refuseReadOnlyKey(c, 'manage webhooks')
    const body = c.req.valid('json')
    const { db, clock, config } = c.var.deps
    const checked = checkWebhookUrl(body.url.trim(), config.webhooks.allowHttpLoopback)
    if (!(checked instanceof URL)) throw badRequest({ url: [checked] })
    const events = [...new Set(body.events ?? WEBHOOK_EVENTS)]
    const secret = newSecret()
    const id = `wh_${randomBytes(12).toString('base64url')}`
    const limit = config.webhooks.maxEndpoints
    const row = await db.tx(async (q) => {
      // the account row is the lock: concurrent additions cannot pass the limit together
      await q.query('SELECT id FROM users WHERE id = $1 FOR UPDATE', [c.var.user.id])
      const n = (await q.query<{ n: number }>('SELECT count(*)::int AS n FROM webhook_endpoints WHERE user_id = $1', [c.var.user.id])).rows[0]!.n
      if (n >= limit) {
        throw badRequest({
          non_field_errors: [{ code: 'webhook_limit', message: `An account can have at most ${limit} webhook endpoints: remove one first.`, params: { limit } }],
        })
      }
      return (
        await q.query<EndpointRow>(
          `INSERT INTO webhook_endpoints (id, user_id, url, events, secret_sealed, secret_hint, created_at)
           VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING ${ENDPOINT_COLUMNS}`,
          [id, c.var.user.id, checked.toString(), events, seal(config.secret, secret), secret.slice(-4), clock.now()],
        )
      ).rows[0]!
    })
    return c.json({ webhook: toWebhook(row), secret }, 201)
  })

  app.openapi(deleteRoute, async (c) => {
    refuseReadOnlyKey(c, 'manage webhooks')
    const { id } = c.req.valid('param')
    const { rows } = await c.var.deps.db.query('DELETE FROM webhook_endpoints WHERE id = $1 AND user_id = $2 RETURNING id', [id, c.var.user.id])
    if (!rows.length) throw notFound('Webhook not found.')
    return c.body(null, 204)
  })

  app.openapi(rotateRoute, async (c) => {
    refuseReadOnlyKey(c, 'manage webhooks')
    const { id } = c.req.valid('param')
    const { db, clock, config } = c.var.deps
    const secret = newSecret()
    const { rows } = await db.query<EndpointRow>(
      `UPDATE webhook_endpoints SET secret_sealed = $3, secret_hint = $4, secret_rotated_at = $5
        WHERE id = $1 AND user_id = $2 RETURNING ${ENDPOINT_COLUMNS}`,
      [id, c.var.user.id, seal(config.secret, secret), secret.slice(-4), clock.now()],
    )
    if (!rows[0]) throw notFound('Webhook not found.')
    return c.json({ webhook: toWebhook(rows[0]), secret }, 200)
  })

  app.openapi(testRoute, async (c) => {
    refuseReadOnlyKey(c, 'manage webhooks')
    const { id } = c.req.valid('param')
    const { db, clock, kickWebhooks } = c.var.deps
    const queued = await db.tx(async (q) => {
      const endpoint = (await q.query('SELECT id FROM webhook_endpoints WHERE id = $1 AND user_id = $2 FOR UPDATE', [id, c.var.user.id])).rows[0]
      if (!endpoint) throw notFound('Webhook not found.')
      const recent = (
        await q.query<{ n: number }>(
          "SELECT count(*)::int AS n FROM webhook_deliveries WHERE endpoint_id = $1 AND event_type = $2 AND created_at > clock_timestamp() - interval '1 minute'",
          [id, TEST_EVENT],
        )
      ).rows[0]!.n
      if (recent >= TEST_EVENTS_PER_MINUTE) {
        throw new HttpError(429, { detail: `At most ${TEST_EVENTS_PER_MINUTE} test events a minute per endpoint.`, code: 'throttled', retry_after: 60 }, { 'Retry-After': '60' })
      }
      return queueTestEvent(q, id, clock.now())
    })
    kickWebhooks()
    return c.json({ delivery_id: queued.id, event_id: queued.event_id }, 202)
  })

  app.openapi(deliveriesRoute, async (c) => {
    const { id } = c.req.valid('param')
    const limit = c.req.valid('query').limit ?? 20
    const { db } = c.var.deps
    const owned = await db.query('SELECT 1 FROM webhook_endpoints WHERE id = $1 AND user_id = $2', [id, c.var.user.id])
    if (!owned.rows.length) throw notFound('Webhook not found.')
    const { rows } = await db.query<{
      id: string
      event_id: string
      event_type: string
      status: 'pending' | 'delivering' | 'succeeded' | 'failed'
      attempts: number
      last_status_code: number | null
      last_error: string | null
      last_attempt_at: Date | null
      next_attempt_at: Date
      created_at: Date
      attempt_log: Array<{ at: string; attempt: number; status_code: number | null; error: string | null; duration_ms: number }>
    }>('SELECT * FROM webhook_deliveries WHERE endpoint_id = $1 ORDER BY id DESC LIMIT $2', [id, limit])
    return c.json(
      rows.map((r) => ({
        id: Number(r.id),
        event_id: r.event_id,
        event_type: r.event_type,
        status: r.status,
        attempts: r.attempts,
        last_status_code: r.last_status_code,
        last_error: r.last_error,
        last_attempt_at: iso(r.last_attempt_at),
        next_attempt_at: r.status === 'pending' ? iso(r.next_attempt_at) : null,
        created_at: new Date(r.created_at).toISOString(),
        attempt_log: (typeof r.attempt_log === 'string' ? JSON.parse(r.attempt_log) : r.attempt_log).map((a: { at: string }) => ({
          ...a,
          at: new Date(a.at).toISOString(),
        })),
      })),
      200,
    )
  })
}
