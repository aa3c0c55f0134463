import { randomBytes } from 'node:crypto'
import type { Db, Queryable } from '../../db/db.ts'
import type { Clock } from '../../lib/clock.ts'
import { badRequest, HttpError, notFound } from '../../lib/errors.ts'
import { throttled } from '../../lib/rate-limit.ts'
import { seal } from '../../lib/secret-box.ts'
import { DELIVERY_ERRORS, deliveryError, newSecret, queueTestEvent, WEBHOOK_EVENTS, type DeliveryError } from '../../lib/webhooks.ts'
import { checkWebhookUrl } from './target.ts'

/** A resumed endpoint can be resumed again after this long (each resume allows more timeouts). */
export const RESUME_INTERVAL_SECONDS = 60

const iso = (d: Date | null) => (d ? new Date(d).toISOString() : null)

/** An endpoint as the account sees it (Webhook in /api/schema/): never its secret. */
interface Webhook {
  id: string
  url: string
  events: (typeof WEBHOOK_EVENTS)[number][]
  secret_hint: string
  created_at: string
  secret_rotated_at: string | null
  health: 'healthy' | 'unhealthy'
  unhealthy_since: string | null
  next_retry_at: string | null
  consecutive_timeouts: number
}

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
const toWebhook = (r: EndpointRow): Webhook => ({
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

export async function listEndpoints(db: Db, userId: number): Promise<Webhook[]> {
  const { rows } = await db.query<EndpointRow>(
    `SELECT ${ENDPOINT_COLUMNS} FROM webhook_endpoints WHERE user_id = $1 ORDER BY created_at, id`,
    [userId],
  )
  return rows.map(toWebhook)
}

/**
 * Adds an endpoint for a confirmed account, within the endpoints per account and the additions per
 * hour the configuration allows; the signing secret is returned here only (stored sealed).
 */
export async function createEndpoint(
  db: Db,
  userId: number,
  endpoint: { url: string; events?: (typeof WEBHOOK_EVENTS)[number][] },
  config: { secret: string; webhooks: { allowHttpLoopback: boolean; maxEndpoints: number; creationsPerHour: number } },
  clock: Clock,
): Promise<{ webhook: Webhook; secret: string }> {
  const checked = checkWebhookUrl(endpoint.url.trim(), config.webhooks.allowHttpLoopback)
  if (!(checked instanceof URL)) throw badRequest({ url: [checked] })
  const events = [...new Set(endpoint.events ?? WEBHOOK_EVENTS)]
  const secret = newSecret()
  const id = `wh_${randomBytes(12).toString('base64url')}`
  const limit = config.webhooks.maxEndpoints
  const row = await db.tx(async (q) => {
    // the account row is the lock: concurrent additions cannot pass the limits together
    await refuseUnconfirmed(q, userId)
    const added = (
      await q.query<{ n: number; wait: number | null }>(
        `SELECT count(*)::int AS n, ceil(extract(epoch FROM min(at) + interval '1 hour' - clock_timestamp()))::int AS wait
             FROM webhook_account_events WHERE user_id = $1 AND kind = 'create' AND at > clock_timestamp() - interval '1 hour'`,
        [userId],
      )
    ).rows[0]!
    if (added.n >= config.webhooks.creationsPerHour) {
      throw throttled(
        Math.max(1, added.wait ?? 3600),
        `At most ${config.webhooks.creationsPerHour} webhook endpoints can be added per hour.`,
      )
    }
    const n = (await q.query<{ n: number }>('SELECT count(*)::int AS n FROM webhook_endpoints WHERE user_id = $1', [userId])).rows[0]!.n
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
        [id, userId, checked.toString(), events, seal(config.secret, secret), secret.slice(-4), clock.now()],
      )
    ).rows[0]!
    await q.query(`INSERT INTO webhook_account_events (user_id, kind) VALUES ($1, 'create')`, [userId])
    return created
  })
  return { webhook: toWebhook(row), secret }
}

/** Removes an endpoint of the account; its queued deliveries go with it. */
export async function deleteEndpoint(db: Db, userId: number, id: string): Promise<void> {
  const { rows } = await db.query('DELETE FROM webhook_endpoints WHERE id = $1 AND user_id = $2 RETURNING id', [id, userId])
  if (!rows.length) throw notFound('Webhook not found.')
}

export async function rotateSecret(
  db: Db,
  serviceSecret: string,
  userId: number,
  id: string,
  now: Date,
): Promise<{ webhook: Webhook; secret: string }> {
  const secret = newSecret()
  const { rows } = await db.query<EndpointRow>(
    `UPDATE webhook_endpoints SET secret_sealed = $3, secret_hint = $4, secret_rotated_at = $5
        WHERE id = $1 AND user_id = $2 RETURNING ${ENDPOINT_COLUMNS}`,
    [id, userId, seal(serviceSecret, secret), secret.slice(-4), now],
  )
  if (!rows[0]) throw notFound('Webhook not found.')
  return { webhook: toWebhook(rows[0]), secret }
}

/** Queues a test event to one endpoint of a confirmed account, at most `perMinute` per account; the caller kicks the worker. */
export async function sendTestEvent(db: Db, userId: number, id: string, perMinute: number, clock: Clock) {
  return db.tx(async (q) => {
    const endpoint = (await q.query('SELECT id FROM webhook_endpoints WHERE id = $1 AND user_id = $2', [id, userId])).rows[0]
    if (!endpoint) throw notFound('Webhook not found.')
    // per ACCOUNT (the account row is the lock), in rows that outlive the endpoint: removing and
    // adding endpoints again gives no test events back
    await refuseUnconfirmed(q, userId)
    const recent = (
      await q.query<{ n: number; wait: number | null }>(
        `SELECT count(*)::int AS n, ceil(extract(epoch FROM min(at) + interval '1 minute' - clock_timestamp()))::int AS wait
             FROM webhook_account_events WHERE user_id = $1 AND kind = 'test' AND at > clock_timestamp() - interval '1 minute'`,
        [userId],
      )
    ).rows[0]!
    if (recent.n >= perMinute) throw throttled(Math.max(1, recent.wait ?? 60), `At most ${perMinute} test events a minute per account.`)
    return queueTestEvent(q, id, clock.now())
  })
}

/** Makes an unhealthy endpoint healthy again, its waiting deliveries due at once; once every RESUME_INTERVAL_SECONDS. */
export async function resumeEndpoint(db: Db, userId: number, id: string, clock: Clock): Promise<Webhook> {
  const row = await db.tx(async (q) => {
    const found = (
      await q.query<{ recent: boolean }>(
        `SELECT coalesce(resumed_at > $3::timestamptz - $4 * interval '1 second', false) AS recent FROM webhook_endpoints WHERE id = $1 AND user_id = $2 FOR UPDATE`,
        [id, userId, clock.now(), RESUME_INTERVAL_SECONDS],
      )
    ).rows[0]
    if (!found) throw notFound('Webhook not found.')
    if (found.recent) throw throttled(RESUME_INTERVAL_SECONDS, `An endpoint can be resumed once every ${RESUME_INTERVAL_SECONDS} seconds.`)
    await q.query(`UPDATE webhook_deliveries SET next_attempt_at = clock_timestamp() WHERE endpoint_id = $1 AND status = 'pending'`, [id])
    return (
      await q.query<EndpointRow>(
        `UPDATE webhook_endpoints SET consecutive_timeouts = 0, unhealthy_since = NULL, paused_until = NULL, resumed_at = $2
            WHERE id = $1 RETURNING ${ENDPOINT_COLUMNS}`,
        [id, clock.now()],
      )
    ).rows[0]!
  })
  return toWebhook(row)
}

/** The endpoint's latest `limit` deliveries, newest first, each with its attempts as error categories (never the receiver's words). */
export async function listDeliveries(db: Db, userId: number, id: string, limit: number) {
  const owned = await db.query<{ paused_until: Date | null }>('SELECT paused_until FROM webhook_endpoints WHERE id = $1 AND user_id = $2', [
    id,
    userId,
  ])
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
  const english = (code: DeliveryError | null) => (code ? DELIVERY_ERRORS[code] : null)
  return rows.map((r) => {
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
  })
}

/** The account's webhook endpoints (they keep receiving events after a password change): listed like the keys. */
export async function activeWebhooks(q: Queryable, userId: number) {
  return (
    await q.query<{ id: string; url: string; created_at: Date }>(
      'SELECT id, url, created_at FROM webhook_endpoints WHERE user_id = $1 ORDER BY created_at, id',
      [userId],
    )
  ).rows
}
