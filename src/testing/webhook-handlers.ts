import { http, HttpResponse } from 'msw'

/**
 * A small fake of the reference service's webhooks (extension `webhooks`, server/src/routes/webhooks.ts)
 * for component tests: the capability, endpoints kept in memory, secrets returned once, test events
 * queued as pending deliveries that `settle()` completes. Each test calls `serveWebhooks()` for its own.
 */
export interface FakeDelivery {
  id: number
  event_id: string
  event_type: string
  status: 'pending' | 'delivering' | 'succeeded' | 'failed'
  attempts: number
  last_status_code: number | null
  last_error: string | null
  last_attempt_at: string | null
  next_attempt_at: string | null
  created_at: string
  attempt_log: { at: string; attempt: number; status_code: number | null; error: string | null; duration_ms: number }[]
}
export interface FakeWebhook {
  id: string
  url: string
  events: string[]
  secret_hint: string
  created_at: string
  secret_rotated_at: string | null
}

export const webhooksCapability = {
  version: 1,
  events: ['export.completed', 'export.failed'],
  signature_header: 'Leads-Signature',
  limit: 10,
  allow_http_loopback: false,
}

export function serveWebhooks({
  capability = webhooksCapability,
  endpoints = [],
  deliveries = {},
}: { capability?: Record<string, unknown> | null; endpoints?: FakeWebhook[]; deliveries?: Record<string, FakeDelivery[]> } = {}) {
  const state = { endpoints: [...endpoints], deliveries: { ...deliveries } as Record<string, FakeDelivery[]>, secrets: 0 }
  const requests: { method: string; path: string; body?: unknown }[] = []
  let nextDelivery = 100
  const newSecret = () => `whsec_test-secret-${++state.secrets}-abcdefghijklmnop`
  const find = (id: unknown) => state.endpoints.find((e) => e.id === id)
  const notFound = () => HttpResponse.json({ detail: 'Webhook not found.', code: 'not_found' }, { status: 404 })

  const handlers = [
    http.get('/api/capabilities/', () =>
      capability ? HttpResponse.json({ webhooks: capability }) : HttpResponse.json({ detail: 'Not found.' }, { status: 404 }),
    ),
    http.get('/api/user/webhooks/', () => {
      requests.push({ method: 'GET', path: '/api/user/webhooks/' })
      return HttpResponse.json(state.endpoints)
    }),
    http.post('/api/user/webhooks/', async ({ request }) => {
      const body = (await request.json()) as { url: string; events?: string[] }
      requests.push({ method: 'POST', path: '/api/user/webhooks/', body })
      const secret = newSecret()
      const webhook: FakeWebhook = {
        id: `wh_test${state.endpoints.length + 1}xyz`,
        url: body.url,
        events: body.events ?? ['export.completed', 'export.failed'],
        secret_hint: `whsec_…${secret.slice(-4)}`,
        created_at: new Date().toISOString(),
        secret_rotated_at: null,
      }
      state.endpoints.push(webhook)
      state.deliveries[webhook.id] = []
      return HttpResponse.json({ webhook, secret }, { status: 201 })
    }),
    http.delete('/api/user/webhooks/:id/', ({ params }) => {
      requests.push({ method: 'DELETE', path: `/api/user/webhooks/${String(params.id)}/` })
      const at = state.endpoints.findIndex((e) => e.id === params.id)
      if (at < 0) return notFound()
      state.endpoints.splice(at, 1)
      return new HttpResponse(null, { status: 204 })
    }),
    http.post('/api/user/webhooks/:id/rotate-secret/', ({ params }) => {
      requests.push({ method: 'POST', path: `/api/user/webhooks/${String(params.id)}/rotate-secret/` })
      const webhook = find(params.id)
      if (!webhook) return notFound()
      const secret = newSecret()
      webhook.secret_hint = `whsec_…${secret.slice(-4)}`
      webhook.secret_rotated_at = new Date().toISOString()
      return HttpResponse.json({ webhook, secret })
    }),
    http.post('/api/user/webhooks/:id/test/', ({ params }) => {
      requests.push({ method: 'POST', path: `/api/user/webhooks/${String(params.id)}/test/` })
      if (!find(params.id)) return notFound()
      const id = ++nextDelivery
      const now = new Date().toISOString()
      const list = (state.deliveries[String(params.id)] ??= [])
      list.unshift({
        id,
        event_id: `evt_${id}`,
        event_type: 'webhook.test',
        status: 'pending',
        attempts: 0,
        last_status_code: null,
        last_error: null,
        last_attempt_at: null,
        next_attempt_at: now,
        created_at: now,
        attempt_log: [],
      })
      return HttpResponse.json({ delivery_id: id, event_id: `evt_${id}` }, { status: 202 })
    }),
    http.get('/api/user/webhooks/:id/deliveries/', ({ params, request }) => {
      requests.push({ method: 'GET', path: new URL(request.url).pathname + new URL(request.url).search })
      if (!find(params.id)) return notFound()
      return HttpResponse.json(state.deliveries[String(params.id)] ?? [])
    }),
  ]

  /** Completes every pending delivery as the receiver answered `statusCode`. */
  const settle = (statusCode = 200) => {
    for (const list of Object.values(state.deliveries)) {
      for (const d of list) {
        if (d.status !== 'pending' && d.status !== 'delivering') continue
        const at = new Date().toISOString()
        d.attempts += 1
        d.status = statusCode < 300 ? 'succeeded' : 'failed'
        d.last_status_code = statusCode
        d.last_error = statusCode < 300 ? null : `answered ${statusCode}`
        d.last_attempt_at = at
        d.next_attempt_at = null
        d.attempt_log.push({ at, attempt: d.attempts, status_code: statusCode, error: d.last_error, duration_ms: 42 })
      }
    }
  }
  return { handlers, state, requests, settle }
}

/** An endpoint as the service lists it. */
export const fakeWebhook = (over: Partial<FakeWebhook> = {}): FakeWebhook => ({
  id: 'wh_existing01',
  url: 'https://hooks.example.com/leads',
  events: ['export.completed', 'export.failed'],
  secret_hint: 'whsec_…Ab9z',
  created_at: '2026-03-01T10:00:00.000Z',
  secret_rotated_at: null,
  ...over,
})

/** A delivery as the service lists it. */
export const fakeDelivery = (over: Partial<FakeDelivery> = {}): FakeDelivery => ({
  id: 1,
  event_id: 'evt_1',
  event_type: 'export.completed',
  status: 'succeeded',
  attempts: 1,
  last_status_code: 200,
  last_error: null,
  last_attempt_at: '2026-03-02T09:30:00.000Z',
  next_attempt_at: null,
  created_at: '2026-03-02T09:30:00.000Z',
  attempt_log: [{ at: '2026-03-02T09:30:00.000Z', attempt: 1, status_code: 200, error: null, duration_ms: 87 }],
  ...over,
})
