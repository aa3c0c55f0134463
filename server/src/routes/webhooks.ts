import { randomBytes } from 'node:crypto'
import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi'
import type { AppEnv } from '../app-env.ts'
import { authed, security } from '../lib/authed.ts'
import { badRequest, HttpError, notFound } from '../lib/errors.ts'
import { refuseReadOnlyKey } from '../lib/key-scope.ts'
import { authErrors, jsonBody, jsonError, safeString } from '../lib/schemas.ts'
import { seal } from '../lib/secret-box.ts'
import { checkWebhookUrl, MAX_URL_LENGTH } from '../lib/webhook-target.ts'
import { throttled } from '../lib/rate-limit.ts'
import {
  DELIVERY_ERROR_CODES,
  DELIVERY_ERRORS,
  deliveryError,
  newSecret,
  queueTestEvent,
  SIGNATURE_HEADER,
  TEST_EVENT,
  WEBHOOK_EVENTS,
} from '../lib/webhooks.ts'
import type { Context } from 'hono'
import type { Queryable } from '../db/db.ts'

/** A resumed endpoint can be resumed again after this long (each resume allows more timeouts). */
export const RESUME_INTERVAL_SECONDS = 60

const iso = (d: Date | null) => (d ? new Date(d).toISOString() : null)

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

interface EndpointRow {
  id: string
  url: string
  events: string[]
  secret_hint: string
  created_at: Date
  secret_rotated_at: Date | null
  unhealthy_since: Date | null
  paused_until: Date | null
  consecutive_timeouts: number
}
const toWebhook = (r: EndpointRow): z.infer<typeof WebhookSchema> => ({
  id: r.id,
  url: r.url,
  events: r.events.filter((e): e is (typeof WEBHOOK_EVENTS)[number] => (WEBHOOK_EVENTS as readonly string[]).includes(e)),
  secret_hint: `whsec_…${r.secret_hint}`,
  created_at: new Date(r.created_at).toISOString(),
  secret_rotated_at: iso(r.secret_rotated_at),
  health: r.unhealthy_since ? 'unhealthy' : 'healthy',
  unhealthy_since: iso(r.unhealthy_since),
  next_retry_at: r.unhealthy_since ? iso(r.paused_until) : null,
  consecutive_timeouts: r.consecutive_timeouts,
})
const ENDPOINT_COLUMNS = 'id, url, events, secret_hint, created_at, secret_rotated_at, unhealthy_since, paused_until, consecutive_timeouts'

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

/** Webhooks make the service send requests: only for accounts whose address is confirmed. */
async function refuseUnconfirmed(q: Queryable, userId: number) {
  const row = (
    await q.query<{ email_confirmed_at: Date | null }>('SELECT email_confirmed_at FROM users WHERE id = $1 FOR UPDATE', [userId])
  ).rows[0]
  if (!row?.email_confirmed_at) {
    throw new HttpError(403, {
      detail: 'Confirm your email address first: webhooks are for confirmed accounts.',
      code: 'email_not_confirmed',
    })
  }
}

export function registerWebhookRoutes(app: OpenAPIHono<AppEnv>) {
  app.openapi(listRoute, async (c) => {
    const { rows } = await c.var.deps.db.query<EndpointRow>(
      `SELECT ${ENDPOINT_COLUMNS} FROM webhook_endpoints WHERE user_id = $1 ORDER BY created_at, id`,
      [c.var.user.id],
    )
    return c.json(rows.map(toWebhook), 200)
  })

  app.openapi(createRouteDef, async (c) => {
    refuseApiKeys(c)
    const body = c.req.valid('json')
    const { db, clock, config } = c.var.deps
    const checked = checkWebhookUrl(body.url.trim(), config.webhooks.allowHttpLoopback)
    if (!(checked instanceof URL)) throw badRequest({ url: [checked] })
    const events = [...new Set(body.events ?? WEBHOOK_EVENTS)]
    const secret = newSecret()
    const id = `wh_${randomBytes(12).toString('base64url')}`
    const limit = config.webhooks.maxEndpoints
    const row = await db.tx(async (q) => {
      // the account row is the lock: concurrent additions cannot pass the limits together
      await refuseUnconfirmed(q, c.var.user.id)
      const added = (
        await q.query<{ n: number; wait: number | null }>(
          `SELECT count(*)::int AS n, ceil(extract(epoch FROM min(at) + interval '1 hour' - clock_timestamp()))::int AS wait
             FROM webhook_account_events WHERE user_id = $1 AND kind = 'create' AND at > clock_timestamp() - interval '1 hour'`,
          [c.var.user.id],
        )
      ).rows[0]!
      if (added.n >= config.webhooks.creationsPerHour) {
        throw throttled(
          Math.max(1, added.wait ?? 3600),
          `At most ${config.webhooks.creationsPerHour} webhook endpoints can be added per hour.`,
        )
      }
      const n = (await q.query<{ n: number }>('SELECT count(*)::int AS n FROM webhook_endpoints WHERE user_id = $1', [c.var.user.id]))
        .rows[0]!.n
      if (n >= limit) {
        throw badRequest({
          non_field_errors: [
            {
              code: 'webhook_limit',
              message: `An account can have at most ${limit} webhook endpoints: remove one first.`,
              params: { limit },
            },
          ],
        })
      }
      const created = (
        await q.query<EndpointRow>(
          `INSERT INTO webhook_endpoints (id, user_id, url, events, secret_sealed, secret_hint, created_at)
           VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING ${ENDPOINT_COLUMNS}`,
          [id, c.var.user.id, checked.toString(), events, seal(config.secret, secret), secret.slice(-4), clock.now()],
        )
      ).rows[0]!
      await q.query(`INSERT INTO webhook_account_events (user_id, kind) VALUES ($1, 'create')`, [c.var.user.id])
      return created
    })
    return c.json({ webhook: toWebhook(row), secret }, 201)
  })

  app.openapi(deleteRoute, async (c) => {
    refuseApiKeys(c)
    const { id } = c.req.valid('param')
    const { rows } = await c.var.deps.db.query('DELETE FROM webhook_endpoints WHERE id = $1 AND user_id = $2 RETURNING id', [
      id,
      c.var.user.id,
    ])
    if (!rows.length) throw notFound('Webhook not found.')
    return c.body(null, 204)
  })

  app.openapi(rotateRoute, async (c) => {
    refuseApiKeys(c)
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
    const { db, clock, config, kickWebhooks } = c.var.deps
    const perMinute = config.webhooks.testsPerMinute
    const queued = await db.tx(async (q) => {
      const endpoint = (await q.query('SELECT id FROM webhook_endpoints WHERE id = $1 AND user_id = $2', [id, c.var.user.id])).rows[0]
      if (!endpoint) throw notFound('Webhook not found.')
      // per ACCOUNT (the account row is the lock), in rows that outlive the endpoint: removing and
      // adding endpoints again gives no test events back
      await refuseUnconfirmed(q, c.var.user.id)
      const recent = (
        await q.query<{ n: number; wait: number | null }>(
          `SELECT count(*)::int AS n, ceil(extract(epoch FROM min(at) + interval '1 minute' - clock_timestamp()))::int AS wait
             FROM webhook_account_events WHERE user_id = $1 AND kind = 'test' AND at > clock_timestamp() - interval '1 minute'`,
          [c.var.user.id],
        )
      ).rows[0]!
      if (recent.n >= perMinute) throw throttled(Math.max(1, recent.wait ?? 60), `At most ${perMinute} test events a minute per account.`)
      return queueTestEvent(q, id, clock.now())
    })
    kickWebhooks()
    return c.json({ delivery_id: queued.id, event_id: queued.event_id }, 202)
  })

  app.openapi(resumeRoute, async (c) => {
    refuseApiKeys(c)
    const { id } = c.req.valid('param')
    const { db, clock, kickWebhooks } = c.var.deps
    const row = await db.tx(async (q) => {
      const found = (
        await q.query<{ recent: boolean }>(
          `SELECT coalesce(resumed_at > $3::timestamptz - $4 * interval '1 second', false) AS recent FROM webhook_endpoints WHERE id = $1 AND user_id = $2 FOR UPDATE`,
          [id, c.var.user.id, clock.now(), RESUME_INTERVAL_SECONDS],
        )
      ).rows[0]
      if (!found) throw notFound('Webhook not found.')
      if (found.recent)
        throw throttled(RESUME_INTERVAL_SECONDS, `An endpoint can be resumed once every ${RESUME_INTERVAL_SECONDS} seconds.`)
      await q.query(`UPDATE webhook_deliveries SET next_attempt_at = clock_timestamp() WHERE endpoint_id = $1 AND status = 'pending'`, [id])
      return (
        await q.query<EndpointRow>(
          `UPDATE webhook_endpoints SET consecutive_timeouts = 0, unhealthy_since = NULL, paused_until = NULL, resumed_at = $2
            WHERE id = $1 RETURNING ${ENDPOINT_COLUMNS}`,
          [id, clock.now()],
        )
      ).rows[0]!
    })
    kickWebhooks()
    return c.json(toWebhook(row), 200)
  })

  app.openapi(deliveriesRoute, async (c) => {
    const { id } = c.req.valid('param')
    const limit = c.req.valid('query').limit ?? 20
    const { db } = c.var.deps
    const owned = await db.query<{ paused_until: Date | null }>(
      'SELECT paused_until FROM webhook_endpoints WHERE id = $1 AND user_id = $2',
      [id, c.var.user.id],
    )
    if (!owned.rows.length) throw notFound('Webhook not found.')
    // a waiting delivery of a paused (unhealthy) endpoint is tried no sooner than the endpoint is
    const pausedUntil = owned.rows[0]!.paused_until ? new Date(owned.rows[0]!.paused_until) : null
    const nextTry = (at: Date) => (pausedUntil && pausedUntil > new Date(at) ? pausedUntil : at)
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
      attempt_log:
        Array<{ at: string; attempt: number; status_code: number | null; error_code?: string | null; duration_ms: number }> | string
    }>('SELECT * FROM webhook_deliveries WHERE endpoint_id = $1 ORDER BY id DESC LIMIT $2', [id, limit])
    const english = (code: ReturnType<typeof deliveryError>) => (code ? DELIVERY_ERRORS[code] : null)
    return c.json(
      rows.map((r) => {
        const lastError = deliveryError(r.last_error)
        const log = typeof r.attempt_log === 'string' ? (JSON.parse(r.attempt_log) as Exclude<typeof r.attempt_log, string>) : r.attempt_log
        return {
          id: Number(r.id),
          event_id: r.event_id,
          event_type: r.event_type,
          status: r.status,
          attempts: r.attempts,
          last_status_code: r.last_status_code,
          last_error_code: lastError,
          last_error: english(lastError),
          last_attempt_at: iso(r.last_attempt_at),
          next_attempt_at: r.status === 'pending' ? iso(nextTry(r.next_attempt_at)) : null,
          created_at: new Date(r.created_at).toISOString(),
          attempt_log: log.map((a) => {
            const code = deliveryError(a.error_code)
            return {
              at: new Date(a.at).toISOString(),
              attempt: a.attempt,
              status_code: a.status_code,
              error_code: code,
              error: english(code),
              duration_ms: a.duration_ms,
            }
          }),
        }
      }),
      200,
    )
  })
}
