import { createHmac, timingSafeEqual } from 'node:crypto'
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runCleanup, WEBHOOK_LOG_DAYS } from '../src/jobs/cleanup.ts'
import { loadConfig } from '../src/config.ts'
import { startTestService, type TestService } from './helpers.ts'
import { body, paidUser, preview, signUp, startExport, waitForExport, type TestUser } from './account-helpers.ts'

/** A local receiver started by the test: records every request, answers as `respond` says. */
interface Received {
  headers: IncomingMessage['headers']
  body: string
}
async function receiver(respond: (n: number, req: IncomingMessage, res: ServerResponse) => void = (_n, _q, res) => res.end('ok')) {
  const got: Received[] = []
  const server: Server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      got.push({ headers: req.headers, body: Buffer.concat(chunks).toString('utf8') })
      respond(got.length, req, res)
    })
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()))
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`
  return { url, got, close: () => new Promise<void>((r) => server.close(() => r())), server }
}
const receivers: Array<{ close: () => Promise<void>; server: Server }> = []
async function local(respond?: Parameters<typeof receiver>[0]) {
  const r = await receiver(respond)
  receivers.push(r)
  return r
}

/** The receiver's side of the signature: recompute over the raw body, compare in constant time. */
function verify(secret: string, header: string | undefined, raw: string): boolean {
  const m = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(header ?? '')
  if (!m) return false
  const expected = createHmac('sha256', secret).update(`${m[1]}.${raw}`).digest()
  return timingSafeEqual(expected, Buffer.from(m[2]!, 'hex'))
}

const webhooks = {
  ...loadConfig({}).webhooks,
  allowHttpLoopback: true,
  retryBaseMs: 40,
  pollMs: 50,
  timeoutMs: 800,
  testTimeoutMs: 800,
  maxAttempts: 3,
}
let svc: TestService
const dns = new Map<string, string[]>()
beforeAll(async () => {
  svc = await startTestService({ webhooks }, { resolveHost: async (host) => dns.get(host) ?? [] })
})
afterAll(async () => {
  for (const r of receivers) r.server.closeAllConnections()
  await Promise.all(receivers.map((r) => r.close()))
  await svc?.close()
})

interface Delivery {
  id: number
  event_type: string
  status: string
  attempts: number
  last_status_code: number | null
  last_error_code: string | null
  last_error: string | null
  attempt_log: Array<{
    at: string
    attempt: number
    status_code: number | null
    error_code: string | null
    error: string | null
    duration_ms: number
  }>
}
const add = (u: TestUser, json: unknown) => svc.request('/api/user/webhooks/', { method: 'POST', token: u.access, json })
async function addOk(u: TestUser, url: string, events?: string[]) {
  const res = await add(u, { url, ...(events ? { events } : {}) })
  expect(res.status, await res.clone().text()).toBe(201)
  return body<{ webhook: { id: string; secret_hint: string; events: string[] }; secret: string }>(res)
}
const deliveries = async (u: TestUser, id: string) =>
  body<Delivery[]>(await svc.request(`/api/user/webhooks/${id}/deliveries/`, { token: u.access }))
async function settled(u: TestUser, id: string, n = 1, timeout = 15_000): Promise<Delivery[]> {
  const until = Date.now() + timeout
  for (;;) {
    const list = await deliveries(u, id)
    if (list.length >= n && list.every((d) => d.status === 'succeeded' || d.status === 'failed')) return list
    if (Date.now() > until) throw new Error(`deliveries not settled: ${JSON.stringify(list)}`)
    await new Promise((r) => setTimeout(r, 50))
  }
}
async function exportDone(u: TestUser) {
  const p = await preview(svc, u.access, 'countries=DE')
  const res = await startExport(svc, u.access, { search_id: p.search_id, export_format: 'csv', max_leads: 3 })
  expect(res.status).toBe(202)
  const { search_id } = await body<{ search_id: number }>(res)
  return waitForExport(svc, u.access, search_id)
}

describe('webhooks (extension webhooks)', () => {
  it('is listed in capabilities; the secret is shown once, stored sealed, never listed', async () => {
    const u = await signUp(svc)
    const caps = await body<Record<string, Record<string, unknown>>>(await svc.request('/api/capabilities/', { token: u.access }))
    expect(caps.webhooks).toMatchObject({
      version: 1,
      events: ['export.completed', 'export.failed'],
      signature_header: 'Leads-Signature',
      limit: 10,
      allow_http_loopback: true,
    })
    const r = await local()
    const created = await addOk(u, r.url)
    expect(created.secret).toMatch(/^whsec_[A-Za-z0-9_-]{32}$/)
    expect(created.webhook).toMatchObject({
      events: ['export.completed', 'export.failed'],
      secret_hint: `whsec_…${created.secret.slice(-4)}`,
    })
    const listed = await svc.request('/api/user/webhooks/', { token: u.access })
    expect(listed.headers.get('content-encoding')).toBeNull() // never compressed beside a secret (BREACH)
    expect(await listed.text()).not.toContain(created.secret)
    const stored = await svc.deps.db.query<{ secret_sealed: string }>('SELECT secret_sealed FROM webhook_endpoints WHERE id = $1', [
      created.webhook.id,
    ])
    expect(stored.rows[0]!.secret_sealed).toMatch(/^v1\./)
    expect(stored.rows[0]!.secret_sealed).not.toContain(created.secret.slice(6, 20))
  })

  it('a completed export reaches the local receiver, signed; the log shows it', async () => {
    const u = await paidUser(svc)
    const r = await local()
    const { webhook, secret } = await addOk(u, r.url)
    const done = await exportDone(u)
    const [d] = await settled(u, webhook.id)
    expect(d).toMatchObject({
      event_type: 'export.completed',
      status: 'succeeded',
      attempts: 1,
      last_status_code: 200,
      last_error_code: null,
      last_error: null,
    })
    expect(r.got).toHaveLength(1)
    const { headers, body: raw } = r.got[0]!
    expect(verify(secret, headers['leads-signature'] as string, raw)).toBe(true)
    expect(verify(secret, headers['leads-signature'] as string, raw.replace('COMPLETED', 'FAILED'))).toBe(false)
    const event = JSON.parse(raw) as { id: string; type: string; created_at: string; data: Record<string, unknown> }
    expect(event.id).toMatch(/^evt_[0-9a-f]{24}$/)
    expect(headers['leads-event-id']).toBe(event.id)
    expect(event.created_at).toBe(new Date(event.data.completed_at as string).toISOString()) // the service clock's completion time
    expect(headers['leads-event-type']).toBe('export.completed')
    expect(event).toMatchObject({
      type: 'export.completed',
      data: { search_id: done.search_id, status: 'COMPLETED', lead_count: 3, credits_charged: 3 },
    })
    expect(raw).not.toMatch(/token|download_url/i) // the receiver fetches the file with its own key
  })

  it('a failed export sends export.failed only to endpoints subscribed to it', async () => {
    const u = await paidUser(svc)
    const all = await local()
    const onlyCompleted = await local()
    const a = await addOk(u, all.url)
    const b = await addOk(u, onlyCompleted.url, ['export.completed'])
    expect((await svc.request('/api/_test/fail-next-export/', { method: 'POST', token: u.access })).status).toBe(200)
    const failed = await exportDone(u)
    expect(failed.status).toBe('FAILED')
    const [d] = await settled(u, a.webhook.id)
    expect(d).toMatchObject({ event_type: 'export.failed', status: 'succeeded' })
    expect(JSON.parse(all.got[0]!.body)).toMatchObject({
      type: 'export.failed',
      data: { search_id: failed.search_id, status: 'FAILED', error: expect.stringMatching(/fail/) },
    })
    expect(await deliveries(u, b.webhook.id)).toEqual([])
  })

  it('an export’s status change queues its event once per transition, for each subscribed endpoint, whoever writes it', async () => {
    const u = await paidUser(svc)
    const [a, b] = [await local(), await local()]
    const hookA = await addOk(u, a.url)
    const hookB = await addOk(u, b.url)
    const onlyCompleted = await addOk(u, (await local()).url, ['export.completed'])
    const done = await exportDone(u)
    const [da] = await settled(u, hookA.webhook.id)
    const [db] = await settled(u, hookB.webhook.id)
    const [eventA, eventB] = [JSON.parse(a.got[0]!.body) as { id: string }, JSON.parse(b.got[0]!.body) as { id: string }]
    expect(eventB).toEqual(eventA) // one event, one id, sent to each endpoint
    expect([da!.event_type, db!.event_type]).toEqual(['export.completed', 'export.completed'])

    // a change made by hand (psql, another instance) queues the same way, in its own statement
    const failedAt = new Date('2031-02-03T04:05:06.789Z')
    const queued = async () =>
      (
        await svc.deps.db.query<{
          endpoint_id: string
          event_type: string
          payload: { id: string; created_at: string; data: Record<string, unknown> }
        }>(
          `SELECT d.endpoint_id, d.event_type, d.payload FROM webhook_deliveries d JOIN webhook_endpoints e ON e.id = d.endpoint_id
            WHERE e.user_id = $1 ORDER BY d.id`,
          [u.id],
        )
      ).rows
    const before = (await queued()).length
    const toFailed = "UPDATE searches SET status = 'FAILED', error = 'stopped by hand', failed_at = $2 WHERE id = $1"
    await svc.deps.db.query(toFailed, [done.search_id, failedAt])
    const added = (await queued()).slice(before)
    expect(added.map((d) => [d.endpoint_id, d.event_type]).sort()).toEqual(
      [
        [hookA.webhook.id, 'export.failed'],
        [hookB.webhook.id, 'export.failed'],
      ].sort(),
    )
    expect(added[0]!.payload).toEqual(added[1]!.payload)
    expect(added[0]!.payload).toMatchObject({
      id: expect.stringMatching(/^evt_[0-9a-f]{24}$/),
      type: 'export.failed',
      created_at: failedAt.toISOString(),
      data: {
        search_id: done.search_id,
        status: 'FAILED',
        error: 'stopped by hand',
        lead_count: 3,
        credits_charged: 3,
        export_format: 'csv',
      },
    })
    expect(added[0]!.payload.id).not.toBe(eventA.id)
    // no transition, no event: the same status again, or another column
    await svc.deps.db.query(toFailed, [done.search_id, failedAt])
    await svc.deps.db.query('UPDATE searches SET progress = 50 WHERE id = $1', [done.search_id])
    expect(await queued()).toHaveLength(before + 2)
    expect(await deliveries(u, onlyCompleted.webhook.id)).toHaveLength(1)
    await settled(u, hookA.webhook.id, 2)
  })

  it('a failing receiver is retried with back-off until it answers 2xx; every attempt is in the log', async () => {
    const u = await paidUser(svc)
    const r = await local((n, _req, res) => {
      res.statusCode = n < 3 ? 500 : 204
      res.end()
    })
    const { webhook, secret } = await addOk(u, r.url)
    await exportDone(u)
    const [d] = await settled(u, webhook.id)
    expect(d).toMatchObject({ status: 'succeeded', attempts: 3, last_status_code: 204 })
    expect(d!.attempt_log.map((a) => [a.attempt, a.status_code, a.error_code])).toEqual([
      [1, 500, 'http_error'],
      [2, 500, 'http_error'],
      [3, 204, null],
    ])
    expect(r.got.map((g) => g.headers['leads-delivery-attempt'])).toEqual(['1', '2', '3'])
    // the back-off of WEBHOOK_RETRY_BASE_MS (40 ms here) times 1, then 5
    const at = d!.attempt_log.map((a) => new Date(a.at).getTime())
    expect(at[1]! - at[0]!).toBeGreaterThanOrEqual(40)
    expect(at[2]! - at[1]!).toBeGreaterThanOrEqual(200)
    for (const g of r.got) expect(verify(secret, g.headers['leads-signature'] as string, g.body)).toBe(true)
  })

  it('gives up after the last attempt: failed, with the reason', async () => {
    const u = await paidUser(svc)
    const r = await local((_n, _req, res) => {
      res.statusCode = 503
      res.end()
    })
    const { webhook } = await addOk(u, r.url)
    await exportDone(u)
    const [d] = await settled(u, webhook.id)
    expect(d).toMatchObject({
      status: 'failed',
      attempts: 3,
      last_status_code: 503,
      last_error_code: 'http_error',
      last_error: expect.any(String),
    })
  })

  it('does not follow redirects, stops at the timeout, reads a long answer only so far', async () => {
    const u = await paidUser(svc)
    const target = await local()
    const redirect = await local((_n, _req, res) => {
      res.writeHead(307, { Location: target.url })
      res.end()
    })
    const silent = await local(() => undefined) // never answers
    const endless = await local((_n, _req, res) => {
      res.writeHead(200)
      const chunk = Buffer.alloc(8192, 'x')
      const pump = () => {
        while (res.write(chunk)) if (res.destroyed) return
        res.once('drain', pump)
      }
      res.on('error', () => undefined)
      pump()
    })
    const hooks = await Promise.all([redirect, silent, endless].map((x) => addOk(u, x.url, ['export.completed'])))
    const tests = await Promise.all(
      hooks.map((h) => svc.request(`/api/user/webhooks/${h.webhook.id}/test/`, { method: 'POST', token: u.access })),
    )
    expect(tests.map((t) => t.status)).toEqual([202, 202, 202])
    const [redirected] = await settled(u, hooks[0]!.webhook.id)
    expect(redirected!.attempt_log[0]).toMatchObject({
      status_code: 307,
      error_code: 'redirect',
      error: expect.stringContaining('not followed'),
    })
    expect(target.got).toEqual([])
    const [timedOut] = await settled(u, hooks[1]!.webhook.id)
    expect(timedOut!.attempt_log[0]).toMatchObject({ status_code: null, error_code: 'timeout' })
    expect(timedOut!.attempt_log[0]!.duration_ms).toBeGreaterThanOrEqual(750)
    const [long] = await settled(u, hooks[2]!.webhook.id)
    expect(long).toMatchObject({ status: 'succeeded', attempts: 1, last_status_code: 200 })
  })

  it('checks the resolved address at every delivery: a name that now points at a private or metadata address is not called', async () => {
    const u = await paidUser(svc)
    dns.set('hooks.example.test', ['93.184.215.14'])
    const { webhook } = await addOk(u, 'https://hooks.example.test/leads')
    // the name moves to the cloud metadata address after registration (DNS rebinding)
    dns.set('hooks.example.test', ['169.254.169.254'])
    await svc.request(`/api/user/webhooks/${webhook.id}/test/`, { method: 'POST', token: u.access })
    const [d] = await settled(u, webhook.id)
    expect(d).toMatchObject({ status: 'failed', last_status_code: null, last_error_code: 'address_blocked' })
    // one private address among public ones is enough to refuse
    dns.set('hooks.example.test', ['93.184.215.14', '10.1.2.3'])
    await svc.request(`/api/user/webhooks/${webhook.id}/test/`, { method: 'POST', token: u.access })
    const [again] = await settled(u, webhook.id, 2)
    expect(again).toMatchObject({ status: 'failed', last_error_code: 'address_blocked' })
  })

  it('validates the URL and events at registration, with per-field codes', async () => {
    const u = await signUp(svc)
    const cases: Array<[unknown, string, string]> = [
      [{ url: 'http://example.com/h' }, 'url', 'webhook_https_required'],
      [{ url: 'ftp://example.com/h' }, 'url', 'webhook_https_required'],
      [{ url: 'https://10.0.0.7/h' }, 'url', 'webhook_address_blocked'],
      [{ url: 'https://169.254.169.254/latest/meta-data' }, 'url', 'webhook_address_blocked'],
      [{ url: 'https://[::ffff:192.168.1.1]/h' }, 'url', 'webhook_address_blocked'],
      [{ url: 'https://[fd00:ec2::254]/h' }, 'url', 'webhook_address_blocked'],
      [{ url: 'https://user:pw@example.com/h' }, 'url', 'invalid_format'],
      [{ url: 'not a url' }, 'url', 'invalid_format'],
      [{ url: `https://example.com/${'a'.repeat(2000)}` }, 'url', 'max_length'],
      [{ url: 'https://example.com/h', events: ['export.started'] }, 'events', 'invalid_choice'],
      [{ url: 'https://example.com/h', events: [] }, 'events', 'min_value'],
      [{ url: 'https://example.com/h', colour: 'red' }, 'colour', 'unknown_parameter'],
    ]
    for (const [json, field, code] of cases) {
      const res = await add(u, json)
      expect(res.status, JSON.stringify(json)).toBe(400)
      const b = await body<{ error_codes: Record<string, Array<{ code: string }>> }>(res)
      const issues = Object.entries(b.error_codes).filter(([k]) => k === field || k.startsWith(`${field}.`))
      expect(
        issues.flatMap(([, list]) => list.map((i) => i.code)),
        JSON.stringify(json),
      ).toContain(code)
    }
  })

  it('without the development setting, loopback is refused whatever the scheme', async () => {
    // registration and capabilities only: no companies to seed
    const strict = await startTestService({ seedCompanies: 0 })
    try {
      const u = await signUp(strict)
      for (const url of ['http://127.0.0.1:9/h', 'https://127.0.0.1/h', 'https://localhost/h', 'https://[::1]/h']) {
        const res = await strict.request('/api/user/webhooks/', { method: 'POST', token: u.access, json: { url } })
        expect(res.status, url).toBe(400)
      }
      const caps = await body<Record<string, Record<string, unknown>>>(await strict.request('/api/capabilities/', { token: u.access }))
      expect(caps.webhooks).toMatchObject({ allow_http_loopback: false })
    } finally {
      await strict.close()
    }
  })

  it('rotates the secret (the next delivery is signed with the new one), sends test events at a bounded rate, removes', async () => {
    const u = await signUp(svc)
    const r = await local()
    const { webhook, secret } = await addOk(u, r.url)
    const rotated = await body<{ secret: string; webhook: { secret_rotated_at: string } }>(
      await svc.request(`/api/user/webhooks/${webhook.id}/rotate-secret/`, { method: 'POST', token: u.access }),
    )
    expect(rotated.secret).not.toBe(secret)
    expect(rotated.webhook.secret_rotated_at).toEqual(expect.any(String))
    const test = await svc.request(`/api/user/webhooks/${webhook.id}/test/`, { method: 'POST', token: u.access })
    expect(test.status).toBe(202)
    const [d] = await settled(u, webhook.id)
    expect(d).toMatchObject({ event_type: 'webhook.test', status: 'succeeded' })
    expect(verify(rotated.secret, r.got[0]!.headers['leads-signature'] as string, r.got[0]!.body)).toBe(true)
    expect(verify(secret, r.got[0]!.headers['leads-signature'] as string, r.got[0]!.body)).toBe(false)

    const more = await Promise.all(
      [1, 2, 3, 4, 5].map(() => svc.request(`/api/user/webhooks/${webhook.id}/test/`, { method: 'POST', token: u.access })),
    )
    expect(more.map((m) => m.status).sort()).toEqual([202, 202, 202, 202, 429])

    expect((await svc.request(`/api/user/webhooks/${webhook.id}/`, { method: 'DELETE', token: u.access })).status).toBe(204)
    expect(await body(await svc.request('/api/user/webhooks/', { token: u.access }))).toEqual([])
    const left = await svc.deps.db.query('SELECT id FROM webhook_deliveries WHERE endpoint_id = $1', [webhook.id])
    expect(left.rows).toEqual([])
  })

  it('another account sees nothing of it; a read-only key cannot add; the limit holds under concurrency', async () => {
    const u = await signUp(svc)
    const other = await signUp(svc)
    const r = await local()
    const { webhook } = await addOk(u, r.url)
    for (const [method, path] of [
      ['GET', `/api/user/webhooks/${webhook.id}/deliveries/`],
      ['POST', `/api/user/webhooks/${webhook.id}/test/`],
      ['POST', `/api/user/webhooks/${webhook.id}/rotate-secret/`],
      ['DELETE', `/api/user/webhooks/${webhook.id}/`],
    ] as const) {
      expect((await svc.request(path, { method, token: other.access })).status, `${method} ${path}`).toBe(404)
    }
    expect(await body(await svc.request('/api/user/webhooks/', { token: other.access }))).toEqual([])

    const key = await body<{ token: string }>(
      await svc.request('/api/user/api-keys/', { method: 'POST', token: u.access, json: { scope: 'read' } }),
    )
    const refused = await svc.request('/api/user/webhooks/', { method: 'POST', token: key.token, json: { url: r.url } })
    expect(refused.status).toBe(403)
    expect((await svc.request('/api/user/webhooks/', { token: key.token })).status).toBe(200)

    const answers = await Promise.all(Array.from({ length: 12 }, () => add(u, { url: r.url })))
    expect(answers.filter((a) => a.status === 201)).toHaveLength(9) // 10 with the first
    const over = answers.find((a) => a.status === 400)!
    expect(
      (await body<{ error_codes: Record<string, Array<{ code: string; limit: number }>> }>(over)).error_codes.non_field_errors,
    ).toEqual([{ code: 'webhook_limit', limit: 10 }])
  })

  it('a secret that cannot be read (SECRET_KEY changed) fails the attempt instead of retrying forever; old settled deliveries are pruned', async () => {
    const u = await signUp(svc)
    const r = await local()
    const { webhook } = await addOk(u, r.url)
    await svc.deps.db.query(
      "UPDATE webhook_endpoints SET secret_sealed = 'v1.AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA' WHERE id = $1",
      [webhook.id],
    )
    await svc.request(`/api/user/webhooks/${webhook.id}/test/`, { method: 'POST', token: u.access })
    const [d] = await settled(u, webhook.id)
    expect(d).toMatchObject({
      status: 'failed',
      attempts: 3,
      last_error_code: 'secret_unreadable',
      last_error: 'The signing secret cannot be read: rotate it.',
    })
    expect(r.got).toEqual([])

    await svc.deps.db.query(`UPDATE webhook_deliveries SET created_at = clock_timestamp() - $2 * interval '1 day' WHERE endpoint_id = $1`, [
      webhook.id,
      WEBHOOK_LOG_DAYS + 1,
    ])
    expect((await runCleanup(svc.deps)).webhookDeliveries).toBeGreaterThanOrEqual(1)
    expect(await deliveries(u, webhook.id)).toEqual([])
  })

  it('signs with the wall-clock time even when the service clock was moved (receivers compare it with their own)', async () => {
    const mover = await signUp(svc)
    expect(
      (await svc.request('/api/_test/clock/', { method: 'POST', token: mover.access, json: { advance_seconds: 86_400 } })).status,
    ).toBe(200)
    const u = await signUp(svc) // signed in on the moved clock
    const r = await local()
    const { webhook, secret } = await addOk(u, r.url)
    await svc.request(`/api/user/webhooks/${webhook.id}/test/`, { method: 'POST', token: u.access })
    await settled(u, webhook.id)
    const { headers, body: raw } = r.got[0]!
    const t = Number(/^t=(\d+),/.exec(headers['leads-signature'] as string)?.[1])
    expect(Math.abs(Date.now() / 1000 - t)).toBeLessThan(60)
    expect(verify(secret, headers['leads-signature'] as string, raw)).toBe(true)
  })
})
