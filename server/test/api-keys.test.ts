import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestService, type TestService } from './helpers.ts'
import { advanceClock, body, signUp } from './account-helpers.ts'

let svc: TestService
beforeAll(async () => {
  svc = await startTestService()
})
afterAll(async () => {
  await svc?.close()
})

interface ApiKey {
  id: string
  token_key: string
  created: string
  expiry: string | null
}
const create = (token: string, json?: unknown) => svc.request('/api/user/api-keys/', { method: 'POST', token, json })
const list = async (token: string) => body<ApiKey[]>(await svc.request('/api/user/api-keys/', { token }))
const profileWith = (authorization: string) => svc.request('/api/user/profile/', { headers: { Authorization: authorization } })

describe('API keys', () => {
  it('creates a key returned once; only its prefix is listed and only a hash is stored', async () => {
    const u = await signUp(svc)
    const res = await create(u.access, {})
    expect(res.status).toBe(201)
    const { token, api_key } = await body<{ token: string; api_key: ApiKey }>(res)
    expect(token).toMatch(/^lds_[0-9A-Za-z]{40}$/)
    expect(api_key).toEqual({
      id: expect.any(String),
      token_key: token.slice(0, 8),
      // extension api_key_names: a key made without one has none
      name: null,
      created: expect.any(String),
      expiry: null,
      // extension scoped_api_keys: a key made without them reads and exports, uncapped
      scope: 'export',
      monthly_credit_cap: null,
      credits_spent_this_period: 0,
      period_start: expect.any(String),
    })
    expect(new Date(api_key.created).toISOString()).toBe(api_key.created)
    const keys = await list(u.access)
    expect(keys).toEqual([api_key])
    expect(JSON.stringify(keys)).not.toContain(token)
    const { rows } = await svc.deps.db.query<Record<string, unknown>>('SELECT * FROM api_keys WHERE id = $1', [api_key.id])
    expect(Object.values(rows[0]!)).not.toContain(token)
  })

  it('accepts a POST without a body, and several keys per account', async () => {
    const u = await signUp(svc)
    const noBody = await svc.request('/api/user/api-keys/', { method: 'POST', token: u.access })
    expect(noBody.status).toBe(201)
    expect((await create(u.access, {})).status).toBe(201)
    expect(await list(u.access)).toHaveLength(2)
  })

  it('authenticates with both `Token <key>` and `Bearer <key>`, and 401s after revocation', async () => {
    const u = await signUp(svc)
    const { token, api_key } = await body<{ token: string; api_key: ApiKey }>(await create(u.access, {}))
    for (const scheme of ['Token', 'Bearer']) {
      const res = await profileWith(`${scheme} ${token}`)
      expect(res.status).toBe(200)
      expect(await body(res)).toMatchObject({ id: u.id })
    }
    // API keys manage API keys too (interface 4.5)
    expect((await svc.request('/api/user/api-keys/', { headers: { Authorization: `Token ${token}` } })).status).toBe(200)

    const del = await svc.request(`/api/user/api-keys/${api_key.id}/`, { method: 'DELETE', token: u.access })
    expect(del.status).toBe(204)
    expect(await del.text()).toBe('')
    for (const scheme of ['Token', 'Bearer']) {
      const res = await profileWith(`${scheme} ${token}`)
      expect(res.status).toBe(401)
      expect(await body(res)).toMatchObject({ code: 'token_not_valid' })
    }
    expect(await list(u.access)).toEqual([])
    // revoking again: the key is gone
    expect((await svc.request(`/api/user/api-keys/${api_key.id}/`, { method: 'DELETE', token: u.access })).status).toBe(404)
  })

  it("answers 404 for another account's key and leaves it working", async () => {
    const owner = await signUp(svc)
    const other = await signUp(svc)
    const { token, api_key } = await body<{ token: string; api_key: ApiKey }>(await create(owner.access, {}))
    const res = await svc.request(`/api/user/api-keys/${api_key.id}/`, { method: 'DELETE', token: other.access })
    expect(res.status).toBe(404)
    expect(await body(res)).toHaveProperty('detail')
    expect((await profileWith(`Token ${token}`)).status).toBe(200)
    expect(await list(other.access)).toEqual([])
    expect((await svc.request('/api/user/api-keys/not-a-key/', { method: 'DELETE', token: owner.access })).status).toBe(404)
  })

  it('refuses a NUL byte in key_id (path) and in expiry with 400 on the field; the key stays', async () => {
    const u = await signUp(svc)
    const { api_key } = await body<{ api_key: ApiKey }>(await create(u.access, {}))
    for (const id of [`${api_key.id}%00`, '%00', `a%00b`]) {
      const res = await svc.request(`/api/user/api-keys/${id}/`, { method: 'DELETE', token: u.access })
      expect(res.status, id).toBe(400)
      expect((await body<{ errors: Record<string, string[]> }>(res)).errors.key_id).toEqual(
        expect.arrayContaining([expect.stringMatching(/NUL/)]),
      )
    }
    const bad = await create(u.access, { expiry: '2099-01-01T00:00:00Z\u0000' })
    expect(bad.status).toBe(400)
    expect((await body<{ errors: Record<string, string[]> }>(bad)).errors.expiry).toBeDefined()
    expect((await list(u.access)).map((k) => k.id)).toEqual([api_key.id])
  })

  it('refuses an expiry in the past or not a date-time with 400 on expiry', async () => {
    const u = await signUp(svc)
    const past = new Date(svc.deps.clock.now().getTime() - 60_000).toISOString()
    for (const expiry of [past, 'tomorrow', '2030-01-01', 12345]) {
      const res = await create(u.access, { expiry })
      expect(res.status).toBe(400)
      expect((await body<{ errors: Record<string, string[]> }>(res)).errors.expiry?.length).toBeGreaterThan(0)
    }
    expect(await list(u.access)).toEqual([])
  })

  it('a key with an expiry works until then and answers 401 after (test clock); it stays listed', async () => {
    const u = await signUp(svc)
    const expiry = new Date(svc.deps.clock.now().getTime() + 2 * 3600_000).toISOString()
    const { token, api_key } = await body<{ token: string; api_key: ApiKey }>(await create(u.access, { expiry }))
    expect(new Date(api_key.expiry!).getTime()).toBe(new Date(expiry).getTime())
    expect((await profileWith(`Bearer ${token}`)).status).toBe(200)
    await advanceClock(svc, 2 * 3600 + 1)
    for (const scheme of ['Token', 'Bearer']) {
      const res = await profileWith(`${scheme} ${token}`)
      expect(res.status).toBe(401)
      expect(await body(res)).toMatchObject({ code: 'token_not_valid' })
    }
    const fresh = await body<{ access: string }>(
      await svc.request('/api/auth/login/', { method: 'POST', json: { username: u.email, password: u.password } }),
    )
    expect((await list(fresh.access)).map((k) => k.id)).toEqual([api_key.id])
  })

  it('needs a credential', async () => {
    expect((await svc.request('/api/user/api-keys/')).status).toBe(401)
    expect((await svc.request('/api/user/api-keys/', { method: 'POST', json: {} })).status).toBe(401)
  })
})
