import { createServer, type Server } from 'node:http'
import { createServer as createTcpServer, type Socket } from 'node:net'
import type { AddressInfo } from 'node:net'
import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { Hono } from 'hono'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { AppEnv } from '../src/app-env.ts'
import { loadConfig, type Config } from '../src/config.ts'
import { DEVICE_COOKIE, rememberDevice } from '../src/modules/auth/device.ts'
import { answerOf, openSocket } from './raw-sockets.ts'
import { startTestService, type TestService } from './helpers.ts'
import { sharedDatabase } from './instances.ts'
import {
  advanceClock,
  body,
  confirmationToken,
  login,
  newestMail,
  paidUser,
  preview,
  profile,
  signUp,
  startExport,
  uniqueEmail,
  waitForExport,
  type TestUser,
} from './account-helpers.ts'

/**
 * Issue 22: the findings of an attack test of the reference service, each reproduced over real HTTP
 * and shown refused (on PGlite, and on PostgreSQL in the second run). Every server these tests start
 * listens on 127.0.0.1 and every wait is bounded.
 */

// ---- local servers: a receiver that records, a tarpit that accepts and never answers ----

interface Receiver {
  url: string
  /** `at`: performance.now(); `wall`: Date.now() */
  got: Array<{ at: number; wall: number; type: string; id: string }>
  server: Server
}
const opened: Array<{ close: () => Promise<void> }> = []
afterAll(async () => {
  await Promise.all(opened.map((o) => o.close()))
})

async function receiver(): Promise<Receiver> {
  const got: Receiver['got'] = []
  const server = createServer((req, res) => {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      const event = JSON.parse(Buffer.concat(chunks).toString('utf8')) as { type: string; id: string }
      got.push({ at: performance.now(), wall: Date.now(), type: event.type, id: event.id })
      res.end('ok')
    })
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()))
  opened.push({
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections()
        server.close(() => r())
      }),
  })
  return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hooks`, got, server }
}

/** Accepts every connection, reads what comes, never answers: each delivery to it holds its sender until the timeout. */
async function tarpit() {
  const sockets = new Set<Socket>()
  let open = 0
  let maxOpen = 0
  let accepted = 0
  const server = createTcpServer((socket) => {
    sockets.add(socket)
    accepted += 1
    open += 1
    maxOpen = Math.max(maxOpen, open)
    socket.on('data', () => undefined)
    socket.on('error', () => undefined)
    socket.on('close', () => {
      open -= 1
      sockets.delete(socket)
    })
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', () => r()))
  const close = () =>
    new Promise<void>((r) => {
      for (const s of sockets) s.destroy()
      server.close(() => r())
    })
  opened.push({ close })
  return {
    url: (p: string) => `http://127.0.0.1:${(server.address() as AddressInfo).port}/${p}`,
    stats: () => ({ open, maxOpen, accepted }),
  }
}

const until = async (what: string, done: () => boolean | Promise<boolean>, timeoutMs = 10_000) => {
  const end = Date.now() + timeoutMs
  while (!(await done())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`)
    await new Promise((r) => setTimeout(r, 20))
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)]!

type ErrorBody = {
  detail: string
  code: string
  retry_after?: number
  error_codes?: Record<string, Array<{ code: string } & Record<string, unknown>>>
}

// ---- finding 1 (and 5, 6, 7, 8): webhooks ----

const baseWebhooks = loadConfig({}).webhooks

describe('finding 1: one account stalls every account’s webhooks', () => {
  let svc: TestService
  beforeAll(async () => {
    svc = await startTestService({
      // the defaults, but loopback receivers and quick polling; a tarpit never becomes unhealthy here,
      // so it stays "full" for the whole test
      webhooks: { ...baseWebhooks, allowHttpLoopback: true, pollMs: 50, retryBaseMs: 60_000, unhealthyAfter: 1000 },
    })
  })
  afterAll(async () => {
    await svc?.close()
  })

  it('with a tarpit of one account full, another account’s events arrive within 2 s; the tarpit holds one worker at most', async () => {
    const pit = await tarpit()
    const attacker = await paidUser(svc)
    const hooks: string[] = []
    for (let i = 0; i < 10; i++) {
      const res = await svc.request('/api/user/webhooks/', { method: 'POST', token: attacker.access, json: { url: pit.url(`pit${i}`) } })
      expect(res.status).toBe(201)
      hooks.push((await body<{ webhook: { id: string } }>(res)).webhook.id)
    }
    // three exports (30 export.completed deliveries) and every test event the account may send
    const attackerSearch = await preview(svc, attacker.access, 'countries=DE')
    for (let i = 0; i < 3; i++) {
      const p = attackerSearch
      const started = await body<{ search_id: number }>(
        await startExport(svc, attacker.access, { search_id: p.search_id, export_format: 'csv', max_leads: 1 }),
      )
      await waitForExport(svc, attacker.access, started.search_id)
    }
    const tests = await Promise.all(
      hooks.slice(0, 6).map((id) => svc.request(`/api/user/webhooks/${id}/test/`, { method: 'POST', token: attacker.access })),
    )
    expect(tests.map((t) => t.status).sort()).toEqual([202, 202, 202, 202, 202, 429])
    const queued = await svc.deps.db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM webhook_deliveries d JOIN webhook_endpoints e ON e.id = d.endpoint_id WHERE e.user_id = $1 AND d.status IN ('pending', 'delivering')`,
      [attacker.id],
    )
    expect(queued.rows[0]!.n).toBe(35)
    await until('the tarpit to hold a delivery', () => pit.stats().open > 0)

    // another account, while the tarpit is full
    const victim = await paidUser(svc)
    const r = await receiver()
    const { webhook } = await body<{ webhook: { id: string } }>(
      await svc.request('/api/user/webhooks/', { method: 'POST', token: victim.access, json: { url: r.url } }),
    )
    const sent = performance.now()
    expect((await svc.request(`/api/user/webhooks/${webhook.id}/test/`, { method: 'POST', token: victim.access })).status).toBe(202)
    await until('the test event', () => r.got.some((g) => g.type === 'webhook.test'), 5_000)
    const testLatency = r.got.find((g) => g.type === 'webhook.test')!.at - sent

    const p = await preview(svc, victim.access, 'countries=FR')
    const started = await body<{ search_id: number }>(
      await startExport(svc, victim.access, { search_id: p.search_id, export_format: 'csv', max_leads: 2 }),
    )
    await waitForExport(svc, victim.access, started.search_id)
    await until('the export event', () => r.got.some((g) => g.type === 'export.completed'), 5_000)
    // from the moment the export was written COMPLETED (and its event queued, in the same statement)
    const completedAt = (
      await svc.deps.db.query<{ completed_at: Date }>('SELECT completed_at FROM searches WHERE id = $1', [started.search_id])
    ).rows[0]!.completed_at
    const exportLatency = r.got.find((g) => g.type === 'export.completed')!.wall - new Date(completedAt).getTime()

    console.log(
      `[issue 22] other account's events with the tarpit full: test event ${Math.round(testLatency)} ms after it was sent, export event ${Math.round(exportLatency)} ms after the export completed; tarpit connections at once: max ${pit.stats().maxOpen}`,
    )
    expect(testLatency).toBeLessThan(2000)
    expect(exportLatency).toBeLessThan(2000)
    // the tarpit is still full (most of its deliveries wait) and never held more than one worker
    const left = await svc.deps.db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM webhook_deliveries d JOIN webhook_endpoints e ON e.id = d.endpoint_id WHERE e.user_id = $1 AND d.status IN ('pending', 'delivering')`,
      [attacker.id],
    )
    expect(left.rows[0]!.n).toBeGreaterThan(25)
    expect(pit.stats().maxOpen).toBe(1)
  }, 60_000)
})

// Several processes cannot share the embedded database: this part runs in the PostgreSQL run only.
const twoInstances = process.env.DATABASE_URL ? describe : () => undefined
twoInstances('finding 1 on two instances of one PostgreSQL database', () => {
  let shared: Awaited<ReturnType<typeof sharedDatabase>> | undefined
  afterAll(async () => {
    await shared?.close()
  })

  it('the tarpit of one account still holds one worker of all the instances’ at most; the other account’s event arrives within 2 s', async () => {
    shared = await sharedDatabase('leads_fair')
    const env = { WEBHOOK_ALLOW_HTTP_LOOPBACK: '1', WEBHOOK_POLL_MS: '50', WEBHOOK_RETRY_BASE_MS: '60000', WEBHOOK_UNHEALTHY_AFTER: '1000' }
    const A = await shared.instance(env).ready // seeds first
    const B = await shared.instance(env).ready
    const call = async <T = Record<string, unknown>>(base: string, p: string, init: { token?: string; json?: unknown } = {}) => {
      const res = await fetch(`${base}${p}`, {
        method: init.json === undefined ? 'GET' : 'POST',
        headers: {
          ...(init.token ? { Authorization: `Bearer ${init.token}` } : {}),
          ...(init.json === undefined ? {} : { 'Content-Type': 'application/json' }),
        },
        body: init.json === undefined ? undefined : JSON.stringify(init.json),
      })
      return { status: res.status, body: (await res.json().catch(() => null)) as T }
    }
    const pit = await tarpit()
    // the attacker (the demo account, confirmed, with credits) through instance A
    const { access } = (
      await call<{ access: string }>(A.url, '/api/auth/login/', { json: { username: 'demo@example.com', password: 'demo-password' } })
    ).body
    const ids: string[] = []
    for (let i = 0; i < 10; i++)
      ids.push(
        (await call<{ webhook: { id: string } }>(A.url, '/api/user/webhooks/', { token: access, json: { url: pit.url(`pit${i}`) } })).body
          .webhook.id,
      )
    const search = (await call<{ search_id: number }>(A.url, '/api/companies/?countries=DE', { token: access })).body.search_id
    for (let i = 0; i < 3; i++) {
      const started = (
        await call<{ search_id: number }>(A.url, '/api/download-csv/', {
          token: access,
          json: { search_id: search, export_format: 'csv', max_leads: 1 },
        })
      ).body
      await until(
        'the export',
        async () =>
          ['COMPLETED', 'FAILED'].includes(
            String((await call(A.url, `/api/download-status/${started.search_id}/`, { token: access })).body.status),
          ),
        30_000,
      )
    }
    for (const id of ids.slice(0, 5))
      expect((await call(A.url, `/api/user/webhooks/${id}/test/`, { token: access, json: {} })).status).toBe(202)
    await until('the tarpit to hold a delivery', () => pit.stats().open > 0)
    // another account through instance B (its address confirmed in the database)
    const email = uniqueEmail('victim')
    expect((await call(B.url, '/api/auth/sign-up/', { json: { email, password: 'victim password' } })).status).toBe(201)
    const { default: pg } = await import('pg')
    const db = new pg.Client({ connectionString: shared.url })
    await db.connect()
    await db.query('UPDATE users SET email_confirmed_at = now() WHERE email = $1', [email])
    await db.end()
    const victim = (await call<{ access: string }>(B.url, '/api/auth/login/', { json: { username: email, password: 'victim password' } }))
      .body.access
    const r = await receiver()
    const hook = (await call<{ webhook: { id: string } }>(B.url, '/api/user/webhooks/', { token: victim, json: { url: r.url } })).body
      .webhook.id
    const sent = performance.now()
    expect((await call(B.url, `/api/user/webhooks/${hook}/test/`, { token: victim, json: {} })).status).toBe(202)
    await until('the test event', () => r.got.length > 0, 5_000)
    const latency = r.got[0]!.at - sent
    console.log(
      `[issue 22] two instances: the other account's test event ${Math.round(latency)} ms after it was sent; tarpit connections at once: max ${pit.stats().maxOpen} (of 2 instances × 4 workers)`,
    )
    expect(latency).toBeLessThan(2000)
    await new Promise((r) => setTimeout(r, 1500)) // more claims, on both instances
    expect(pit.stats().maxOpen).toBe(1)
  }, 120_000)
})

describe('findings 1, 5–8: health, lanes, limits, management, addresses, deadlines', () => {
  let svc: TestService
  const dns = new Map<string, string[]>()
  beforeAll(async () => {
    svc = await startTestService(
      {
        // webhooks, keys and accounts: no search, so no companies to seed
        seedCompanies: 0,
        webhooks: {
          ...baseWebhooks,
          allowHttpLoopback: true,
          pollMs: 50,
          retryBaseMs: 50,
          maxAttempts: 10,
          timeoutMs: 400,
          testTimeoutMs: 300,
          unhealthyAfter: 2,
          unhealthyRetryMs: 60_000,
          creationsPerHour: 4,
        },
      },
      {
        resolveHost: async (host, signal) => {
          // a name server that takes 3 s (and ignores the abort)
          if (host === 'slow.example.test') await new Promise((r) => setTimeout(r, 3000))
          void signal
          return dns.get(host) ?? []
        },
      },
    )
  })
  afterAll(async () => {
    await svc?.close()
  })

  interface Hook {
    id: string
    health: string
    unhealthy_since: string | null
    next_retry_at: string | null
    consecutive_timeouts: number
  }
  const add = (u: TestUser, url: string, token = u.access) => svc.request('/api/user/webhooks/', { method: 'POST', token, json: { url } })
  const list = async (u: TestUser) => body<Hook[]>(await svc.request('/api/user/webhooks/', { token: u.access }))
  const deliveries = async (u: TestUser, id: string) =>
    body<
      Array<{
        status: string
        attempts: number
        last_error_code: string | null
        attempt_log: Array<{ error_code: string | null; error: string | null; duration_ms: number }>
      }>
    >(await svc.request(`/api/user/webhooks/${id}/deliveries/`, { token: u.access }))

  it('an endpoint that keeps timing out becomes unhealthy and waits; "resume" (a password session only) tries it again at once', async () => {
    const pit = await tarpit()
    const u = await paidUser(svc)
    const { webhook } = await body<{ webhook: Hook }>(await add(u, pit.url('slow')))
    expect(webhook).toMatchObject({ health: 'healthy', unhealthy_since: null, next_retry_at: null, consecutive_timeouts: 0 })
    for (let i = 0; i < 3; i++)
      expect((await svc.request(`/api/user/webhooks/${webhook.id}/test/`, { method: 'POST', token: u.access })).status).toBe(202)
    await until('the endpoint to be unhealthy', async () => (await list(u))[0]!.health === 'unhealthy')
    const [hook] = await list(u)
    expect(hook).toMatchObject({ health: 'unhealthy', consecutive_timeouts: 2 })
    expect(new Date(hook!.next_retry_at!).getTime() - Date.now()).toBeGreaterThan(50_000) // tried again only after a minute
    // nothing more is sent while it waits, though deliveries are due
    const attempted = pit.stats().accepted
    expect(attempted).toBe(2)
    await new Promise((r) => setTimeout(r, 600))
    expect(pit.stats().accepted).toBe(attempted)
    expect((await deliveries(u, webhook.id)).filter((d) => d.status === 'pending')).not.toEqual([])

    // an API key cannot resume it; the owner's session can, once a minute
    const key = await body<{ token: string }>(await svc.request('/api/user/api-keys/', { method: 'POST', token: u.access, json: {} }))
    const byKey = await svc.request(`/api/user/webhooks/${webhook.id}/resume/`, { method: 'POST', token: `Token ${key.token}` })
    expect(byKey.status).toBe(403)
    expect(await body(byKey)).toMatchObject({ code: 'api_key_not_allowed' })
    const resumed = await svc.request(`/api/user/webhooks/${webhook.id}/resume/`, { method: 'POST', token: u.access })
    expect(resumed.status).toBe(200)
    expect(await body(resumed)).toMatchObject({ health: 'healthy', next_retry_at: null, consecutive_timeouts: 0 })
    await until('a new attempt after resuming', () => pit.stats().accepted > attempted)
    expect((await svc.request(`/api/user/webhooks/${webhook.id}/resume/`, { method: 'POST', token: u.access })).status).toBe(429)
  })

  it('finding 8: the name lookup counts within the deadline; the log holds categories, never the other side’s words', async () => {
    const u = await paidUser(svc)
    const slow = await body<{ webhook: Hook }>(await add(u, 'https://slow.example.test/hooks'))
    expect((await svc.request(`/api/user/webhooks/${slow.webhook.id}/test/`, { method: 'POST', token: u.access })).status).toBe(202)
    await until(
      'an attempt',
      async () =>
        (await deliveries(u, slow.webhook.id))[0]!.attempts > 0 && (await deliveries(u, slow.webhook.id))[0]!.status !== 'delivering',
    )
    const [first] = (await deliveries(u, slow.webhook.id))[0]!.attempt_log
    expect(first).toMatchObject({ error_code: 'timeout' })
    expect(first!.duration_ms).toBeLessThan(1000) // a 3 s lookup, a 300 ms deadline (was 3,008 ms)

    // https to a plain-http server: the TLS handshake fails; the log says so in its own words
    const plain = await receiver()
    const port = new URL(plain.url).port
    const tls = await body<{ webhook: Hook }>(await add(u, `https://127.0.0.1:${port}/hooks`))
    await svc.request(`/api/user/webhooks/${tls.webhook.id}/test/`, { method: 'POST', token: u.access })
    await until('the TLS attempt', async () => ((await deliveries(u, tls.webhook.id))[0]?.attempt_log.length ?? 0) > 0)
    const raw = await (await svc.request(`/api/user/webhooks/${tls.webhook.id}/deliveries/`, { token: u.access })).text()
    const [d] = JSON.parse(raw) as Awaited<ReturnType<typeof deliveries>>
    expect(d!.attempt_log[0]).toMatchObject({ error_code: 'tls_failed', error: expect.stringContaining('certificate') })
    expect(raw).not.toMatch(/SSL|ssl3|wrong version|EPROTO|routines/)
  })

  it('finding 5: test events are counted per account, so removing and adding the endpoint gives none back; additions per hour too', async () => {
    const u = await signUp(svc)
    const r = await receiver()
    const first = await body<{ webhook: Hook }>(await add(u, r.url))
    const sends = await Promise.all(
      Array.from({ length: 6 }, () => svc.request(`/api/user/webhooks/${first.webhook.id}/test/`, { method: 'POST', token: u.access })),
    )
    expect(sends.map((s) => s.status).sort()).toEqual([202, 202, 202, 202, 202, 429])
    expect((await svc.request(`/api/user/webhooks/${first.webhook.id}/`, { method: 'DELETE', token: u.access })).status).toBe(204)
    const again = await body<{ webhook: Hook }>(await add(u, r.url))
    const refused = await svc.request(`/api/user/webhooks/${again.webhook.id}/test/`, { method: 'POST', token: u.access })
    expect(refused.status).toBe(429)
    expect(await body<ErrorBody>(refused)).toMatchObject({ code: 'throttled', retry_after: expect.any(Number) })
    // creations per hour (4 in this service): removing endpoints does not give additions back
    expect((await add(u, r.url)).status).toBe(201)
    expect((await add(u, r.url)).status).toBe(201)
    const fifth = await add(u, r.url)
    expect(fifth.status).toBe(429)
    expect(await body<ErrorBody>(fifth)).toMatchObject({ code: 'throttled' })
  })

  it('finding 13: an unconfirmed account may add neither webhooks nor API keys', async () => {
    const u = await signUp(svc, {}, { confirm: false })
    const r = await receiver()
    const hook = await add(u, r.url)
    expect(hook.status).toBe(403)
    expect(await body(hook)).toMatchObject({ code: 'email_not_confirmed' })
    const key = await svc.request('/api/user/api-keys/', { method: 'POST', token: u.access, json: {} })
    expect(key.status).toBe(403)
    expect(await body(key)).toMatchObject({ code: 'email_not_confirmed' })
  })

  it('finding 6: API keys (export scope too) cannot add, rotate or remove webhooks; the password change lists (and mails) the ones left', async () => {
    const u = await signUp(svc)
    const r = await receiver()
    const { webhook } = await body<{ webhook: Hook & { url: string } }>(await add(u, r.url))
    const key = await body<{ token: string }>(
      await svc.request('/api/user/api-keys/', { method: 'POST', token: u.access, json: { scope: 'export' } }),
    )
    const asKey = `Token ${key.token}`
    for (const [method, p] of [
      ['POST', '/api/user/webhooks/'],
      ['POST', `/api/user/webhooks/${webhook.id}/rotate-secret/`],
      ['DELETE', `/api/user/webhooks/${webhook.id}/`],
      ['POST', `/api/user/webhooks/${webhook.id}/resume/`],
    ] as const) {
      const res = await svc.request(p, {
        method,
        token: asKey,
        json: method === 'POST' && p.endsWith('webhooks/') ? { url: r.url } : undefined,
      })
      expect(res.status, `${method} ${p}`).toBe(403)
      expect(await body(res), `${method} ${p}`).toMatchObject({ code: 'api_key_not_allowed' })
    }
    expect((await svc.request('/api/user/webhooks/', { token: asKey })).status).toBe(200) // reading is fine
    const changed = await svc.request('/api/user/password/', {
      method: 'POST',
      token: u.access,
      json: { current_password: u.password, new_password: 'another long passphrase' },
    })
    expect(changed.status).toBe(200)
    expect((await body<{ webhooks: unknown[] }>(changed)).webhooks).toEqual([
      { id: webhook.id, url: r.url, created_at: expect.any(String) },
    ])
    const mail = await newestMail(svc, u.email)
    expect(mail).toContain('These webhook endpoints still receive events from your account:')
    expect(mail).toContain(r.url)
  })

  it('finding 7: IPv6 forms that embed an IPv4 address are judged by it, at registration and at every delivery', async () => {
    const u = await signUp(svc)
    for (const url of [
      'https://[::127.0.0.1]/h',
      'https://[::a9fe:a9fe]/h',
      'https://[::]/h',
      'https://[::ffff:0:a9fe:a9fe]/h',
      'https://[64:ff9b::a9fe:a9fe]/h',
      'https://[64:ff9b:1::a00:1]/h',
      'https://[2002:a9fe:a9fe::1]/h',
      'https://[2001:0:4136:e378:8000:63bf:80ff:fffe]/h',
      'https://[4000::1]/h',
    ]) {
      const res = await add(u, url)
      expect(res.status, url).toBe(400)
      expect((await body<ErrorBody>(res)).error_codes?.url, url).toEqual([{ code: 'webhook_address_blocked' }])
    }
    expect((await add(u, 'https://[2606:4700:4700::1111]/h')).status).toBe(201) // a public IPv6 address
    const { webhook } = await body<{ webhook: Hook }>(await add(u, 'https://embedded.example.test/h'))
    for (const [i, answer] of [['::7f00:1'], ['::a9fe:a9fe'], ['64:ff9b::a00:1'], ['2002:7f00:1::1']].entries()) {
      dns.set('embedded.example.test', answer)
      await svc.request(`/api/user/webhooks/${webhook.id}/test/`, { method: 'POST', token: u.access })
      await until(`delivery ${i + 1}`, async () => {
        const list = await deliveries(u, webhook.id)
        return list.length === i + 1 && list[0]!.attempts > 0 && list[0]!.status !== 'delivering'
      })
      expect((await deliveries(u, webhook.id))[0]!.attempt_log[0], answer[0]).toMatchObject({ error_code: 'address_blocked' })
    }
  })
})

// ---- findings 2, 3, 4, 12: accounts ----

describe('accounts', () => {
  let svc: TestService
  beforeAll(async () => {
    // passwords, sessions and mails: no search, so no companies to seed
    svc = await startTestService({ seedCompanies: 0 })
  })
  afterAll(async () => {
    await svc?.close()
  })
  const post = (p: string, json: unknown, token?: string, headers: Record<string, string> = {}) =>
    svc.request(p, { method: 'POST', json, token, headers })
  const patchProfile = (json: unknown, token: string) => svc.request('/api/user/profile/', { method: 'PATCH', json, token })

  it('finding 2: the current password cannot be guessed with a stolen session: the 5th wrong one ends it, and the account backs off like sign-in', async () => {
    const owner = await signUp(svc)
    const stolen = await login(svc, owner.email, owner.password) // a second session, in a thief's hands
    const statuses: number[] = []
    for (let i = 0; i < 60; i++) {
      const res =
        i % 2
          ? await patchProfile({ email: uniqueEmail('thief'), current_password: `guess ${i}` }, stolen.access)
          : await post('/api/user/password/', { current_password: `guess ${i}`, new_password: 'thief owns it now' }, stolen.access)
      statuses.push(res.status)
      if (i === 4) expect(await body(res)).toMatchObject({ code: 'token_not_valid' })
    }
    expect(statuses.slice(0, 4)).toEqual([400, 400, 400, 400])
    expect(statuses.slice(4).every((s) => s === 401)).toBe(true) // the session ended at the 5th
    expect((await post('/api/token/refresh/', { refresh: stolen.refresh })).status).toBe(401)
    // the account backs off: even the owner's right password waits, and is told how long
    const waiting = await post(
      '/api/user/password/',
      { current_password: owner.password, new_password: 'owner new passphrase' },
      owner.access,
    )
    expect(waiting.status).toBe(429)
    expect(await body<ErrorBody>(waiting)).toMatchObject({ code: 'throttled', retry_after: expect.any(Number) })
    await advanceClock(svc, 31)
    expect(
      (await post('/api/user/password/', { current_password: owner.password, new_password: 'owner new passphrase' }, owner.access)).status,
    ).toBe(200)
  })

  it('finding 3: a password change or reset cancels a pending email change; the notice’s "this wasn’t me" link cancels it, or undoes it, and ends every session', async () => {
    // the attack as found: a change requested with the password; the owner changes it, then resets it
    const owner = await signUp(svc)
    const thief = await login(svc, owner.email, owner.password)
    const theirs = uniqueEmail('thief')
    expect((await patchProfile({ email: theirs, current_password: owner.password }, thief.access)).status).toBe(200)
    const token = await confirmationToken(svc, theirs)
    const changed = await post('/api/user/password/', { current_password: owner.password, new_password: 'owner changed it' }, owner.access)
    expect(changed.status).toBe(200)
    expect(await profile(svc, (await body<{ access: string }>(changed)).access)).toMatchObject({ email: owner.email, pending_email: null })
    const late = await post('/api/auth/confirm-email/', { token })
    expect(late.status).toBe(400)
    expect(await body<ErrorBody>(late)).toMatchObject({ error_codes: { token: [{ code: 'confirmation_invalid' }] } })
    // the same through a reset
    const second = await signUp(svc)
    const theirs2 = uniqueEmail('thief')
    expect((await patchProfile({ email: theirs2, current_password: second.password }, second.access)).status).toBe(200)
    const token2 = await confirmationToken(svc, theirs2)
    expect((await post('/api/auth/password-reset/', { email: second.email })).status).toBe(202)
    await until('the reset mail', async () => /reset-password\?token=/.test(await newestMail(svc, second.email).catch(() => '')))
    const resetToken = /reset-password\?token=([A-Za-z0-9_-]+)/.exec(await newestMail(svc, second.email))![1]!
    expect((await post('/api/auth/password-reset/confirm/', { token: resetToken, password: 'reset by the owner' })).status).toBe(200)
    expect((await post('/api/auth/confirm-email/', { token: token2 })).status).toBe(400)

    // "this wasn't me", while the change is pending: the notice to the old address carries the link
    const third = await signUp(svc)
    const other = await login(svc, third.email, third.password)
    const theirs3 = uniqueEmail('thief')
    expect((await patchProfile({ email: theirs3, current_password: third.password }, other.access)).status).toBe(200)
    const notice = await newestMail(svc, third.email)
    expect(notice).toContain(theirs3)
    const link = /(http:\/\/\S+\/api\/auth\/email-change\/cancel\/\?token=([A-Za-z0-9_-]+))/.exec(notice)
    expect(link).not.toBeNull()
    // opening it changes nothing (mail scanners open links): a page with one button
    const page = await fetch(link![1]!)
    expect(page.status).toBe(200)
    expect(page.headers.get('content-type')).toMatch(/^text\/html/)
    expect(page.headers.get('content-security-policy')).toContain("default-src 'self'")
    expect(page.headers.get('referrer-policy')).toBe('no-referrer')
    const html = await page.text()
    expect(html).toContain('<form method="post"')
    expect(html).toContain(theirs3)
    expect(await profile(svc, third.access)).toMatchObject({ pending_email: theirs3 })
    // the button: a form post answers a page; the change is gone and every session ended
    const done = await fetch(link![1]!.split('?')[0]!, {
      method: 'POST',
      headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: link![2]! }).toString(),
    })
    expect(done.status).toBe(200)
    expect(await done.text()).toContain('The change is cancelled')
    for (const access of [third.access, other.access]) expect((await svc.request('/api/user/profile/', { token: access })).status).toBe(401)
    expect((await post('/api/auth/confirm-email/', { token: await confirmationToken(svc, theirs3) })).status).toBe(400)
    const again = await post('/api/auth/email-change/cancel/', { token: link![2]! })
    expect(again.status).toBe(400) // one use
    // after the thief confirmed: the link undoes the change
    const fourth = await signUp(svc)
    const theirs4 = uniqueEmail('thief')
    expect((await patchProfile({ email: theirs4, current_password: fourth.password }, fourth.access)).status).toBe(200)
    const cancel4 = /email-change\/cancel\/\?token=([A-Za-z0-9_-]+)/.exec(await newestMail(svc, fourth.email))![1]!
    expect((await post('/api/auth/confirm-email/', { token: await confirmationToken(svc, theirs4) })).status).toBe(200)
    const undone = await post('/api/auth/email-change/cancel/', { token: cancel4 })
    expect(undone.status).toBe(200)
    expect(await body(undone)).toMatchObject({ restored_email: fourth.email })
    const back = await login(svc, fourth.email, fourth.password)
    expect(await profile(svc, back.access)).toMatchObject({ email: fourth.email, pending_email: null })
  })

  it('finding 4: a stranger’s wrong passwords lock out new devices, not a device that signed in before', async () => {
    const owner = await signUp(svc)
    const first = await post('/api/auth/login/', { username: owner.email, password: owner.password })
    expect(first.status).toBe(200)
    const setCookie = first.headers.get('set-cookie') ?? ''
    expect(setCookie).toMatch(new RegExp(`^${DEVICE_COOKIE.replace('.', '\\.')}=\\d+\\.[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]{43};`))
    expect(setCookie).toMatch(/HttpOnly/i)
    expect(setCookie).toMatch(/SameSite=Strict/i)
    expect(setCookie).toMatch(/Path=\/api\/auth\//)
    expect(setCookie).not.toMatch(/Secure/i) // http here; see the next test for https
    const device = setCookie.split(';')[0]!
    // a stranger: 20 wrong passwords
    const stranger: number[] = []
    for (let i = 0; i < 20; i++) stranger.push((await post('/api/auth/login/', { username: owner.email, password: `guess ${i}` })).status)
    expect(stranger.slice(0, 5)).toEqual([401, 401, 401, 401, 401])
    expect(stranger.slice(5).every((s) => s === 429)).toBe(true)
    // a new device waits, even with the right password; the owner's device gets in
    expect((await post('/api/auth/login/', { username: owner.email, password: owner.password })).status).toBe(429)
    expect(
      (await post('/api/auth/login/', { username: owner.email, password: owner.password }, undefined, { Cookie: device })).status,
    ).toBe(200)
    // the cookie is no credential: without the password it opens nothing
    expect((await svc.request('/api/user/profile/', { headers: { Cookie: device } })).status).toBe(401)
    expect((await post('/api/auth/login/', { username: owner.email, password: 'wrong' }, undefined, { Cookie: device })).status).toBe(401)
    // a forged or altered cookie, or one of another account, is a new device
    const [uid, id, sig] = device.split('=')[1]!.split('.')
    for (const forged of [
      `${uid}.${id}.${sig!.slice(0, -1)}${sig!.endsWith('A') ? 'B' : 'A'}`,
      `${uid}.${id}x.${sig}`,
      `${Number(uid) + 1}.${id}.${sig}`,
    ]) {
      expect(
        (
          await post('/api/auth/login/', { username: owner.email, password: owner.password }, undefined, {
            Cookie: `${DEVICE_COOKIE}=${forged}`,
          })
        ).status,
      ).toBe(429)
    }
    // the device has a back-off of its own: its own wrong passwords make it wait
    const own: number[] = []
    for (let i = 0; i < 6; i++)
      own.push((await post('/api/auth/login/', { username: owner.email, password: `mine ${i}` }, undefined, { Cookie: device })).status)
    expect(own).toEqual([401, 401, 401, 401, 429, 429]) // one wrong password was counted above
  })

  it('finding 4: the device cookie is Secure on an https service', () => {
    const app = new Hono<AppEnv>()
    const config = { ...loadConfig({ SECRET_KEY: 'x'.repeat(32), DATA_DIR: tmpdir() }), publicUrl: 'https://leads.example' } as Config
    app.use('*', async (c, next) => {
      c.set('deps', { config } as AppEnv['Variables']['deps'])
      await next()
    })
    app.get('/', (c) => {
      rememberDevice(c, 7)
      return c.text('ok')
    })
    return Promise.resolve(app.request('/')).then((res) => {
      expect(res.headers.get('set-cookie')).toMatch(/; Secure/)
      expect(res.headers.get('set-cookie')).toMatch(/HttpOnly/)
    })
  })

  it('finding 12: a reset request answers before it looks the account up, in the same time whether or not it exists', async () => {
    const u = await signUp(svc)
    const ghost = uniqueEmail('ghost')
    // hold the work left for after the answer, and count the database calls made while answering
    const held: Array<() => Promise<void>> = []
    const deps = svc.deps
    const run = deps.afterAnswer
    const { query, tx } = deps.db
    let calls = 0
    deps.afterAnswer = (task) => held.push(task)
    // (the service's workers poll the same database meanwhile: only statements about accounts count)
    const aboutAccounts = (sql: unknown) =>
      /\busers\b|password_resets/i.test(typeof sql === 'string' ? sql : String((sql as { text?: string }).text))
    deps.db.query = ((...args: Parameters<typeof query>) => {
      if (aboutAccounts(args[0])) calls += 1
      return query.apply(deps.db, args)
    }) as typeof query
    deps.db.tx = ((...args: Parameters<typeof tx>) => {
      return tx.apply(deps.db, [
        (q) =>
          args[0]({
            ...q,
            query: ((sql: Parameters<typeof q.query>[0], params?: unknown[]) => {
              if (aboutAccounts(sql)) calls += 1
              return q.query(sql, params)
            }) as typeof q.query,
          }),
      ])
    }) as typeof tx
    const times: Record<'known' | 'unknown', number[]> = { known: [], unknown: [] }
    try {
      for (let i = 0; i < 15; i++) {
        for (const [kind, email] of [
          ['known', u.email],
          ['unknown', ghost],
        ] as const) {
          const started = performance.now()
          const res = await post('/api/auth/password-reset/', { email })
          expect(res.status).toBe(202)
          await res.text()
          times[kind].push(performance.now() - started)
        }
      }
      expect(calls).toBe(0) // nothing of the account, existing or not, before the answer
      expect(held).toHaveLength(30)
    } finally {
      deps.db.query = query
      deps.db.tx = tx
      deps.afterAnswer = run
    }
    for (const task of held) await task()
    expect(await newestMail(svc, u.email)).toMatch(/reset-password\?token=/) // the work was done after the answer
    const known = median(times.known)
    const unknown = median(times.unknown)
    // a figure, not a gate: on a shared machine the difference moves with the host (it failed at load 28,
    // 23.8 ms); the structural check above, nothing of the account before the answer, is the test
    console.log(
      `[issue 22] password-reset answer, median of 15: existing account ${known.toFixed(2)} ms, no account ${unknown.toFixed(2)} ms`,
    )
  })
})

// ---- findings 9, 10, 13: the rest ----

describe('finding 9: static files are judged once resolved', () => {
  let svc: TestService
  let dist: string
  beforeAll(async () => {
    dist = await mkdtemp(path.join(tmpdir(), 'leads-dist-'))
    await mkdir(path.join(dist, '.vite'))
    await writeFile(path.join(dist, 'index.html'), '<!doctype html><title>dashboard</title><div id="root"><!--app--><!--/app--></div>')
    await writeFile(path.join(dist, '.vite', 'manifest.json'), JSON.stringify({ 'index.html': { file: 'assets/index.js', isEntry: true } }))
    svc = await startTestService({ testClock: false, seedCompanies: 0, distDir: dist })
  })
  afterAll(async () => {
    await svc?.close()
    await rm(dist, { recursive: true, force: true })
  })

  it('GET /x/..%2f.vite/manifest.json is 404, like /.vite/manifest.json; other paths still get the dashboard', async () => {
    for (const p of [
      '/x/..%2f.vite/manifest.json',
      '/x/..%2F.vite%2Fmanifest.json',
      '/.vite/manifest.json',
      '/a/b/..%2f..%2f.vite/manifest.json',
      '/a/b/%2e%2e/%2e%2e/.vite/manifest.json',
    ]) {
      const res = await fetch(svc.url + p)
      expect(res.status, p).toBe(404)
      expect(await res.text(), p).not.toContain('isEntry')
    }
    for (const p of ['/x/..%2findex.html', '/history', '/..%2F..%2Fetc%2Fpasswd']) {
      const res = await fetch(svc.url + p)
      expect(res.status, p).toBe(200)
      expect(await res.text(), p).toContain('<title>dashboard</title>')
    }
  })
})

describe('findings 10 and 13: names, query parameters, timeouts, connections, 415, the page-snapshot token', () => {
  let svc: TestService
  beforeAll(async () => {
    svc = await startTestService({
      pageSnapshotToken: 'snapshot-token-of-the-findings-test',
      limits: { ...loadConfig({}).limits, failedAuth: 3 },
    })
  })
  afterAll(async () => {
    await svc?.close()
  })

  it('finding 10: names refuse control and bidi-override characters, per field', async () => {
    const u = await paidUser(svc)
    const p = await preview(svc, u.access, 'countries=DE')
    const started = await body<{ search_id: number }>(
      await startExport(svc, u.access, { search_id: p.search_id, export_format: 'csv', max_leads: 1 }),
    )
    await waitForExport(svc, u.access, started.search_id)
    for (const bad of ['Shop \u202Eevil', 'a\u2066b', 'bell\u0007', 'c1\u0085', 'tab\there', 'line\nbreak']) {
      const res = await svc.request(`/api/user/search-history/${started.search_id}/`, {
        method: 'PATCH',
        token: u.access,
        json: { name: bad },
      })
      expect(res.status, JSON.stringify(bad)).toBe(400)
      expect((await body<ErrorBody>(res)).error_codes, JSON.stringify(bad)).toEqual({ name: [{ code: 'control_characters' }] })
    }
    const both = await svc.request('/api/user/profile/', {
      method: 'PATCH',
      token: u.access,
      json: { first_name: 'A\u202Db', last_name: 'ok' },
    })
    expect(both.status).toBe(400)
    expect((await body<ErrorBody>(both)).error_codes).toEqual({ first_name: [{ code: 'control_characters' }] })
    const signup = await svc.request('/api/auth/sign-up/', {
      method: 'POST',
      json: { email: uniqueEmail(), password: 'long enough', last_name: 'x\u2069' },
    })
    expect((await body<ErrorBody>(signup)).error_codes).toEqual({ last_name: [{ code: 'control_characters' }] })
    // letters of every script, marks and emoji stay welcome
    for (const name of ['Café Zürich', 'מאפייה', 'ร้านกาแฟ', 'Ελληνικά 🍞']) {
      const res = await svc.request(`/api/user/search-history/${started.search_id}/`, { method: 'PATCH', token: u.access, json: { name } })
      expect(res.status, name).toBe(200)
    }
  })

  it('finding 13: unknown query parameters are refused on every route; booleans are true, false, 1 or 0', async () => {
    const u = await paidUser(svc)
    const doc = await body<{ paths: Record<string, Record<string, unknown>> }>(await svc.request('/api/schema/'))
    const sample: Record<string, string> = { search_id: '1', key_id: 'k', id: 'wh_abcdefgh', alpha2: 'DE', country_alpha2_code: 'DE' }
    let checked = 0
    for (const [p, methods] of Object.entries(doc.paths)) {
      for (const method of Object.keys(methods)) {
        const url = p.replace(/\{(\w+)\}/g, (_m, name: string) => sample[name] ?? '1')
        const res = await svc.request(`${url}${url.endsWith('/') ? '' : '/'}?zz_unknown=1`, {
          method: method.toUpperCase(),
          token: u.access,
          ...(method === 'get' || method === 'delete' ? {} : { json: {} }),
        })
        expect(res.status, `${method} ${p}`).toBe(400)
        expect((await body<ErrorBody>(res)).error_codes, `${method} ${p}`).toMatchObject({ zz_unknown: [{ code: 'unknown_parameter' }] })
        checked += 1
      }
    }
    expect(checked).toBeGreaterThan(40)
    expect((await svc.request('/api/plans/?foo=1')).status).toBe(400)
    expect((await svc.request('/api/schema/?foo=1')).status).toBe(400)
    for (const q of ['watched=yes', 'watched=on', 'watched=TRUE', 'watched=', 'watched= 1']) {
      const res = await svc.request(`/api/user/search-history/?${q}`, { token: u.access })
      expect(res.status, q).toBe(400)
      expect((await body<ErrorBody>(res)).error_codes, q).toEqual({ watched: [{ code: 'invalid_boolean' }] })
    }
    for (const q of ['watched=true', 'watched=1', 'watched=false', 'watched=0'])
      expect((await svc.request(`/api/user/search-history/?${q}`, { token: u.access })).status, q).toBe(200)
    expect((await svc.request('/api/companies/?countries=DE&email=yes', { token: u.access })).status).toBe(400)
    // what the dashboard sends stays accepted
    for (const q of [
      '/api/companies/?countries=DE&email=true&lang=de',
      '/api/companies/facets/?countries=DE&lang=de',
      '/api/categories/?ids=1&ids=2&lang=fr',
      '/api/categories/?q=ba&limit=20&lang=de',
    ]) {
      expect((await svc.request(q, { token: u.access })).status, q).toBe(200)
    }
  })

  it('finding 13: a 415 answer has its own code', async () => {
    const u = await signUp(svc)
    const res = await svc.request('/api/download-csv/', {
      method: 'POST',
      headers: { 'Content-Type': 'text/plain' },
      body: 'search_id=1',
      token: u.access,
    })
    expect(res.status).toBe(415)
    expect(await body(res)).toMatchObject({ code: 'unsupported_media_type' })
  })

  it('finding 13: the page-snapshot token is throttled per address and needs 16 characters at least', async () => {
    const statuses: number[] = []
    for (let i = 0; i < 3; i++)
      statuses.push((await svc.request('/api/page-snapshots/DE/', { headers: { 'X-Service-Token': `guess-${i}` } })).status)
    expect(statuses).toEqual([403, 403, 403])
    const right = await svc.request('/api/page-snapshots/DE/', { headers: { 'X-Service-Token': 'snapshot-token-of-the-findings-test' } })
    expect(right.status).toBe(429) // past the budget, not even the right token is looked at
    expect(() => loadConfig({ PAGE_SNAPSHOT_TOKEN: 'too-short' })).toThrow(/at least 16 characters/)
    expect(loadConfig({ PAGE_SNAPSHOT_TOKEN: 'long-enough-token' }).pageSnapshotToken).toBe('long-enough-token')
  })

  it('finding 13: a slow request head is cut off, and connections past the cap are closed at once', async () => {
    const small = await startTestService({ seedCompanies: 0, http: { headersTimeoutMs: 500, requestTimeoutMs: 1000, maxConnections: 4 } })
    try {
      const open = () => openSocket(small.url)
      const closedWithin = answerOf
      // slowloris: a head that never ends
      const slow = await open()
      slow.write('GET /api/plans/ HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ')
      const started = performance.now()
      const cut = await closedWithin(slow, 4000)
      expect(cut.closed).toBe(true)
      expect(cut.data).toMatch(/^HTTP\/1\.1 408/)
      expect(performance.now() - started).toBeLessThan(3000)
      // four idle connections fill the cap; a fifth is closed without an answer
      const idle = await Promise.all([open(), open(), open(), open()])
      await new Promise((r) => setTimeout(r, 100))
      const fifth = await open()
      const refused = await closedWithin(fifth, 1000)
      expect(refused).toEqual({ closed: true, data: '' })
      for (const s of idle) s.destroy()
    } finally {
      await small.close()
    }
  })
})
