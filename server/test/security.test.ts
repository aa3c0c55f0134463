import { afterAll, beforeAll, describe, expect, it } from 'vitest'
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
    const unknown = await svc.request('/api/_test/new-companies/', { method: 'POST', token: u.access, json: { count: 1, countries: ['ZZ'] } })
    expect(unknown.status).toBe(400)
  })
})

describe('error bodies', () => {
  it('unknown API paths answer 404 {detail}, never the dashboard', async () => {
    const res = await svc.request('/api/no-such-thing/')
    expect(res.status).toBe(404)
    expect(await body(res)).toEqual({ detail: expect.any(String) })
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
    const bodies = ['[]', 'null', '"x"', '123', '{"a":', '{}', '{"search_id":{"$gt":0}}', JSON.stringify({ email: ['a@b.co'], password: 1 })]
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
