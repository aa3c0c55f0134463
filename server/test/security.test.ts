import { mkdtemp, mkdir, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { inspect } from 'node:util'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { createApp } from '../src/app.ts'
import { startTestService, type TestService } from './helpers.ts'
import { body, signUp } from './account-helpers.ts'

let svc: TestService
beforeAll(async () => {
  svc = await startTestService()
})
afterAll(async () => {
  await svc?.close()
})

const ACCOUNT_PATHS = [
  '/api/auth/sign-up',
  '/api/auth/login',
  '/api/token/refresh',
  '/api/auth/password-reset',
  '/api/auth/password-reset/confirm',
  '/api/plans',
  '/api/user/profile',
  '/api/user/api-keys',
  '/api/user/api-keys/{key_id}',
  '/api/download-csv',
  '/api/download-status/{search_id}',
  '/api/download-completed-csv/{search_id}',
  '/api/files/{search_id}',
  '/api/user/search-history',
  '/api/user/search-history/{search_id}',
  '/api/user/search-history/{search_id}/download-delta',
  '/api/user/search-history/{search_id}/retry',
  '/api/_test/clock',
  '/api/_test/fail-next-export',
  '/api/_test/new-companies',
  '/api/_test/grant-credits',
]

describe('OpenAPI document', () => {
  it('is OpenAPI 3.1 at /api/schema/ and lists every accounts/exports path with its request schema', async () => {
    const res = await svc.request('/api/schema/')
    expect(res.status).toBe(200)
    const doc = await body<{ openapi: string; paths: Record<string, Record<string, { requestBody?: unknown; security?: unknown }>> }>(res)
    expect(doc.openapi).toBe('3.1.0')
    const paths = Object.keys(doc.paths).map((p) => p.replace(/\/$/, ''))
    for (const p of ACCOUNT_PATHS) expect(paths).toContain(p)
    const norm = (p: string) => doc.paths[p] ?? doc.paths[`${p}/`]!
    expect(norm('/api/download-csv').post!.requestBody).toBeDefined()
    expect(norm('/api/user/profile').patch!.requestBody).toBeDefined()
    expect(norm('/api/user/profile').get!.security).toBeDefined()
  })
})

describe('test hooks', () => {
  it('exist only with the test clock: otherwise 404 on every hook path', async () => {
    const prod = await startTestService({ testClock: false, seedCompanies: 0 })
    try {
      const { access } = await body<{ access: string }>(
        await prod.request('/api/auth/login/', { method: 'POST', json: { username: 'demo@example.com', password: 'demo-password' } }),
      )
      const before = prod.deps.clock.now().getTime()
      for (const [path, json] of [
        ['/api/_test/clock/', { advance_seconds: 86_400 }],
        ['/api/_test/fail-next-export/', {}],
        ['/api/_test/new-companies/', { count: 1 }],
        ['/api/_test/grant-credits/', { subscription: 1_000_000 }],
      ] as const) {
        const res = await prod.request(path, { method: 'POST', json, token: access })
        expect(res.status).toBe(404)
      }
      expect(prod.deps.clock.now().getTime() - before).toBeLessThan(60_000)
      const me = await body<{ remaining_credits: number }>(await prod.request('/api/user/profile/', { token: access }))
      expect(me.remaining_credits).toBeLessThan(1_000_000)
    } finally {
      await prod.close()
    }
  })

  it('validate their input and need a credential where they act for an account', async () => {
    expect((await svc.request('/api/_test/clock/', { method: 'POST', json: { advance_seconds: -5 } })).status).toBe(400)
    expect((await svc.request('/api/_test/clock/', { method: 'POST', json: { advance_seconds: 'soon' } })).status).toBe(400)
    expect((await svc.request('/api/_test/grant-credits/', { method: 'POST', json: { subscription: 5 } })).status).toBe(401)
    const u = await signUp(svc)
    const bad = await svc.request('/api/_test/grant-credits/', { method: 'POST', token: u.access, json: { plan_type: 'Platinum' } })
    expect(bad.status).toBe(400)
    const unknown = await svc.request('/api/_test/new-companies/', {
      method: 'POST',
      token: u.access,
      json: { count: 1, countries: ['ZZ'] },
    })
    expect(unknown.status).toBe(400)
  })
})

describe('error bodies', () => {
  it('unknown API paths answer 404 {detail}, never the dashboard', async () => {
    const res = await svc.request('/api/no-such-thing/')
    expect(res.status).toBe(404)
    expect(await body(res)).toEqual({ detail: expect.any(String), code: expect.any(String) })
  })

  it('a wrong Content-Type or a non-object JSON body is a 400, never a 500', async () => {
    const u = await signUp(svc)
    const cases: RequestInit[] = [
      { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '[]' },
      { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: 'null' },
      { method: 'POST', headers: { 'Content-Type': 'application/json' }, body: '"text"' },
    ]
    for (const init of cases) {
      const res = await svc.request('/api/download-csv/', { ...init, token: u.access })
      expect(res.status).toBe(400)
      expect(await body(res)).toHaveProperty('detail')
    }
    const plain = await svc.request('/api/download-csv/', {
      method: 'POST',
      headers: { 'Content-Type': 'text/plain' },
      body: 'search_id=1',
      token: u.access,
    })
    expect(plain.status).toBe(415)
    expect(await plain.text()).not.toContain('Internal')
  })

  it('no endpoint answers 5xx to hostile bodies, ids or queries', async () => {
    const u = await signUp(svc)
    const bodies = [
      '[]',
      'null',
      '"x"',
      '123',
      '{"a":',
      '{}',
      '{"search_id":{"$gt":0}}',
      JSON.stringify({ email: ['a@b.co'], password: 1 }),
    ]
    const routes: [string, string][] = [
      ['POST', '/api/auth/sign-up/'],
      ['POST', '/api/auth/login/'],
      ['POST', '/api/token/refresh/'],
      ['POST', '/api/auth/password-reset/'],
      ['POST', '/api/auth/password-reset/confirm/'],
      ['PATCH', '/api/user/profile/'],
      ['POST', '/api/user/api-keys/'],
      ['POST', '/api/download-csv/'],
      ['POST', '/api/user/search-history/1/download-delta/'],
      ['POST', '/api/user/search-history/1/retry/'],
      ['POST', '/api/_test/grant-credits/'],
      ['POST', '/api/_test/new-companies/'],
      ['POST', '/api/_test/clock/'],
    ]
    for (const [method, path] of routes) {
      for (const payload of bodies) {
        const res = await svc.request(path, {
          method,
          headers: { 'Content-Type': 'application/json', Authorization: `Bearer ${u.access}` },
          body: payload,
        })
        expect(res.status, `${method} ${path} ${payload}`).toBeLessThan(500)
      }
    }
    const gets = [
      '/api/download-status/-1/',
      '/api/download-status/1e3/',
      "/api/download-completed-csv/1'/",
      '/api/user/search-history/?page=1&page=2',
      '/api/user/search-history/?page_size=%00',
      '/api/user/search-history/0/',
      '/api/files/1/?expires=999999999999&sig=00',
      '/api/files/1/?expires=1&sig=' + 'a'.repeat(64),
    ]
    for (const path of gets) {
      const res = await svc.request(path, { token: u.access })
      expect(res.status, path).toBeGreaterThanOrEqual(400)
      expect(res.status, path).toBeLessThan(500)
    }
    const del = await svc.request(`/api/user/api-keys/${'x'.repeat(500)}/`, { method: 'DELETE', token: u.access })
    expect(del.status).toBeLessThan(500)
  })

  it('passwords and tokens never appear in error bodies', async () => {
    const res = await svc.request('/api/auth/sign-up/', { method: 'POST', json: { email: 'bad', password: 'secret-password-123' } })
    expect(res.status).toBe(400)
    expect(await res.text()).not.toContain('secret-password-123')
  })
})

describe('NUL bytes (U+0000), which PostgreSQL refuses to store', () => {
  it('every string of a body, query or path is refused with 400 on its field, before any query runs', async () => {
    const u = await signUp(svc)
    const cases: [string, string, unknown, string][] = [
      ['POST', '/api/auth/sign-up/', { email: 'n@example.com', password: 'long enough', first_name: 'a\u0000' }, 'first_name'],
      ['POST', '/api/auth/login/', { username: 'x\u0000', password: 'y' }, 'username'],
      ['POST', '/api/token/refresh/', { refresh: '\u0000' }, 'refresh'],
      ['POST', '/api/auth/password-reset/', { email: '\u0000@example.com' }, 'email'],
      ['POST', '/api/auth/password-reset/confirm/', { token: '\u0000', password: 'long enough' }, 'token'],
      ['PATCH', '/api/user/profile/', { last_name: '\u0000' }, 'last_name'],
      ['POST', '/api/user/api-keys/', { expiry: '\u0000' }, 'expiry'],
      ['DELETE', '/api/user/api-keys/%00/', undefined, 'key_id'],
      ['GET', '/api/companies/?countries=D%00', undefined, 'countries'],
      ['GET', '/api/companies/?category=1%00', undefined, 'category'],
      ['GET', '/api/companies/?email=true%00', undefined, 'email'],
      ['GET', '/api/companies/?paginate=true&page=1%00', undefined, 'page'],
      ['GET', '/api/categories/?q=%00', undefined, 'q'],
      ['GET', '/api/locations/search/?q=%00', undefined, 'q'],
      ['GET', '/api/locations/level2/?states=%00', undefined, 'states'],
      ['GET', '/api/locations/level2/1%00/', undefined, 'id'],
      ['GET', '/api/cities/%00E/', undefined, 'country_alpha2_code'],
      ['GET', '/api/download-status/1%00/', undefined, 'search_id'],
      ['GET', '/api/user/search-history/?page=%00', undefined, 'page'],
      ['GET', '/api/files/1/?expires=1%00&sig=aa', undefined, 'expires'],
      ['GET', '/api/page-snapshots/D%00/', undefined, 'alpha2'],
      ['POST', '/api/_test/grant-credits/', { plan_type: 'Pro\u0000' }, 'plan_type'],
      ['POST', '/api/_test/new-companies/', { count: 1, countries: ['D\u0000'] }, 'countries.0'],
    ]
    for (const [method, p, json, field] of cases) {
      const res = await svc.request(p, { method, json, token: u.access })
      expect(res.status, `${method} ${p}`).toBe(400)
      const b = await body<{ detail: string; errors: Record<string, string[]> }>(res)
      expect(b.errors[field], `${method} ${p}`).toEqual(expect.arrayContaining([expect.stringMatching(/NUL/)]))
    }
  })

  it('a NUL that still reaches the database (22021, 22P05) is a 400 {detail}, not a 500', async () => {
    const app = createApp(svc.deps)
    app.get('/api/_probe/text', async (c) => {
      await c.var.deps.db.query('SELECT $1::text AS t', ['a\u0000b'])
      return c.json({ ok: true })
    })
    app.get('/api/_probe/json', async (c) => {
      await c.var.deps.db.query('SELECT $1::jsonb AS j', [JSON.stringify({ a: 'x\u0000y' })])
      return c.json({ ok: true })
    })
    for (const p of ['/api/_probe/text', '/api/_probe/json']) {
      const res = await app.request(p)
      expect(res.status, p).toBe(400)
      expect(await body(res)).toEqual({ detail: expect.any(String), code: expect.any(String) })
    }
  })
})

describe('error log', () => {
  it('logs method, path, name, message and code of a 500 — never the query, its params or the failing row', async () => {
    const secret = 'scrypt$secret-hash-value-1234567890'
    const app = createApp(svc.deps)
    app.post('/api/_probe/fail', async (c) => {
      // not-null violation: the driver's error carries the params and "Failing row contains (…secret…)"
      await c.var.deps.db.query('INSERT INTO password_resets (token_hash, user_id, expires_at, created_at) VALUES ($1, NULL, $2, $2)', [
        secret,
        new Date(),
      ])
      return c.json({ ok: true })
    })
    const spy = vi.spyOn(console, 'error').mockImplementation(() => undefined)
    let lines: string[]
    try {
      const res = await app.request('/api/_probe/fail', { method: 'POST' })
      expect(res.status).toBe(500)
      expect(await res.text()).not.toContain(secret)
      lines = spy.mock.calls.map((args) => args.map((a) => (typeof a === 'string' ? a : inspect(a, { depth: 5 }))).join(' '))
    } finally {
      spy.mockRestore()
    }
    expect(lines).toHaveLength(1)
    expect(lines[0]).toContain('POST /api/_probe/fail')
    expect(lines[0]).toContain('23502')
    expect(lines[0]).toMatch(/not-null|null value/)
    expect(lines[0]).not.toContain(secret)
    expect(lines[0]).not.toContain('INSERT INTO')
  })
})

describe('a service without the test clock, serving a built dashboard', () => {
  let prod: TestService
  let dist: string
  beforeAll(async () => {
    dist = await mkdtemp(path.join(tmpdir(), 'leads-dist-'))
    await mkdir(path.join(dist, 'assets'))
    await writeFile(path.join(dist, 'index.html'), '<!doctype html><title>dashboard</title>')
    await writeFile(path.join(dist, 'assets', 'app-abc.js'), 'console.log(1)')
    prod = await startTestService({ testClock: false, seedCompanies: 0, distDir: dist })
  })
  afterAll(async () => {
    await prod?.close()
    await rm(dist, { recursive: true, force: true })
  })

  it('does not list the test hooks in /api/schema/, and they answer 404', async () => {
    const doc = await body<{ paths: Record<string, unknown> }>(await prod.request('/api/schema/'))
    expect(Object.keys(doc.paths).filter((p) => p.startsWith('/api/_test'))).toEqual([])
    expect(Object.keys(doc.paths).map((p) => p.replace(/\/$/, ''))).toContain('/api/user/profile')
    const res = await prod.request('/api/_test/clock/', { method: 'POST', json: { advance_seconds: 60 } })
    expect(res.status).toBe(404)
    expect(await body(res)).toEqual({ detail: expect.any(String), code: expect.any(String) })
  })

  it('serves index.html for malformed or encoded dashboard paths, never a 500, and assets decoded once', async () => {
    for (const p of ['/%E0%A4', '/history/%E0%A4%A', '/assets/%E0%A4.js', '/%25E0%25A4', '/..%2F..%2Fetc%2Fpasswd', '/%00', '/search']) {
      const res = await fetch(prod.url + p)
      expect(res.status, p).toBe(200)
      expect(res.headers.get('content-type'), p).toBe('text/html; charset=utf-8')
      expect(await res.text(), p).toContain('<title>dashboard</title>')
    }
    for (const p of ['/assets/app-abc.js', '/assets/app%2Dabc.js']) {
      const res = await fetch(prod.url + p)
      expect(res.status, p).toBe(200)
      expect(res.headers.get('content-type'), p).toBe('text/javascript; charset=utf-8')
    }
    // a literal "%41" in a name is not decoded a second time into "A"
    expect(await (await fetch(prod.url + '/assets/app-%2561bc.js')).text()).toContain('<title>dashboard</title>')
  })

  it('API paths and queries with malformed escapes answer 4xx or 200, never 5xx', async () => {
    const { access } = await body<{ access: string }>(
      await prod.request('/api/auth/login/', { method: 'POST', json: { username: 'demo@example.com', password: 'demo-password' } }),
    )
    const cases: [string, string, number][] = [
      ['GET', '/api/%E0%A4', 404],
      ['GET', '/api/user/search-history/%E0%A4/', 400],
      ['GET', '/api/download-status/%E0%A4/', 400],
      ['DELETE', '/api/user/api-keys/%E0%A4/', 404],
      ['GET', '/api/categories/?q=%E0%A4', 200],
      ['GET', '/api/locations/search/?q=%E0%A4%A', 200],
      ['GET', '/api/companies/?countries=%E0%A4', 400],
    ]
    for (const [method, p, status] of cases) {
      const res = await prod.request(p, { method, token: access })
      expect(res.status, `${method} ${p}`).toBe(status)
      expect(await body(res), `${method} ${p}`).toEqual(expect.anything())
    }
  })
})
