import { createHmac, randomBytes } from 'node:crypto'
import type { Queryable } from '../db/db.ts'

/** Events an endpoint can subscribe to; `webhook.test` is sent on request to one endpoint only. */
export const WEBHOOK_EVENTS = ['export.completed', 'export.failed'] as const
export type WebhookEvent = (typeof WEBHOOK_EVENTS)[number]
export const TEST_EVENT = 'webhook.test'
export const SIGNATURE_HEADER = 'Leads-Signature'

/**
 * What went wrong with an attempt, as a category the dashboard translates (locales/<lng>/webhooks.json
 * `deliveries.errors.<code>`). The log never keeps a receiver's, a resolver's or a proxy's own words:
 * they are the other side's text (a TLS error can name an egress proxy's certificates).
 */
export const DELIVERY_ERRORS = {
  timeout: 'No answer within the time allowed (the name lookup included).',
  dns_failed: 'The host name could not be resolved.',
  address_blocked: 'The host name resolves to a private, loopback or otherwise reserved address.',
  connection_failed: 'The connection could not be made or was cut off.',
  tls_failed: 'The secure connection (TLS) could not be set up: check the certificate.',
  http_error: 'The endpoint answered with an error status.',
  redirect: 'The endpoint answered with a redirect, which is not followed.',
  secret_unreadable: 'The signing secret cannot be read: rotate it.',
  internal: 'The service failed while sending.',
  other: 'The delivery failed.',
} as const
export type DeliveryError = keyof typeof DELIVERY_ERRORS
export const DELIVERY_ERROR_CODES = Object.keys(DELIVERY_ERRORS) as DeliveryError[]
/** A stored category, or `other` for anything else (a log written before categories). */
export const deliveryError = (v: unknown): DeliveryError | null =>
  v === null || v === undefined ? null : typeof v === 'string' && Object.hasOwn(DELIVERY_ERRORS, v) ? (v as DeliveryError) : 'other'

/** `evt_` and 24 hex digits; an export's events get theirs from the trigger that queues them (migration 027). */
export const newEventId = () => `evt_${randomBytes(12).toString('hex')}`
export const newSecret = () => `whsec_${randomBytes(24).toString('base64url')}`

/**
 * `t=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<body>" under the endpoint's secret>`, as Stripe
 * signs: a receiver recomputes it over the raw body, compares in constant time and refuses old `t`.
 */
export function signature(secret: string, timestamp: number, body: string): string {
  return `t=${timestamp},v1=${createHmac('sha256', secret).update(`${timestamp}.${body}`).digest('hex')}`
}

/** Queues a test event for one endpoint (and counts it for the account); returns the delivery's id and event id. */
export async function queueTestEvent(q: Queryable, endpointId: string, at: Date): Promise<{ id: number; event_id: string }> {
  const ev = newEventId()
  const payload = {
    id: ev,
    type: TEST_EVENT,
    created_at: at.toISOString(),
    data: { endpoint_id: endpointId, message: 'A test event sent from the dashboard. Nothing happened to your exports.' },
  }
  const { rows } = await q.query<{ id: string }>(
    'INSERT INTO webhook_deliveries (endpoint_id, event_id, event_type, payload) VALUES ($1, $2, $3, $4) RETURNING id',
    [endpointId, ev, TEST_EVENT, JSON.stringify(payload)],
  )
  await q.query(`INSERT INTO webhook_account_events (user_id, kind) SELECT user_id, 'test' FROM webhook_endpoints WHERE id = $1`, [
    endpointId,
  ])
  return { id: Number(rows[0]!.id), event_id: ev }
}
