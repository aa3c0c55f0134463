import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestService, type TestService } from './helpers.ts'
import { body, signUp, type TestUser } from './account-helpers.ts'

/** Issue 25: API keys with a name (extension `api_key_names`), and the interface profile without it. */

let svc: TestService
let iface: TestService
beforeAll(async () => {
  ;[svc, iface] = await Promise.all([startTestService(), startTestService({ serviceProfile: 'interface' })])
})
afterAll(async () => {
  await Promise.all([svc?.close(), iface?.close()])
})

interface ApiKey {
  id: string
  token_key: string
  name?: string | null
}
interface FieldError {
  errors: Record<string, string[]>
  error_codes: Record<string, { code: string; limit?: number }[]>
}

const create = (s: TestService, u: TestUser, json?: unknown) => s.request('/api/user/api-keys/', { method: 'POST', token: u.access, json })
const list = async (s: TestService, u: TestUser) => body<ApiKey[]>(await s.request('/api/user/api-keys/', { token: u.access }))
const storedName = async (s: TestService, id: string) =>
  (await s.deps.db.query<{ name: string | null }>('SELECT name FROM api_keys WHERE id = $1', [id])).rows[0]?.name

describe('named API keys', () => {
  it('stores the name trimmed, answers it on creation and lists it; a key made without one has null', async () => {
    const u = await signUp(svc)
    const res = await create(svc, u, { name: '  CRM sync \n' })
    expect(res.status).toBe(201)
    const { api_key } = await body<{ api_key: ApiKey }>(res)
    expect(api_key.name).toBe('CRM sync')
    expect(await storedName(svc, api_key.id)).toBe('CRM sync')

    const unnamed = await body<{ api_key: ApiKey }>(await create(svc, u, {}))
    expect(unnamed.api_key.name).toBeNull()
    const withNull = await body<{ api_key: ApiKey }>(await create(svc, u, { name: null }))
    expect(withNull.api_key.name).toBeNull()

    const names = new Map((await list(svc, u)).map((k) => [k.id, k.name]))
    expect(names).toEqual(
      new Map([
        [api_key.id, 'CRM sync'],
        [unnamed.api_key.id, null],
        [withNull.api_key.id, null],
      ]),
    )
  })

  it('takes 60 characters and names in any script; refuses empty, longer, control characters, NUL and non-text, each on `name` with its code', async () => {
    const u = await signUp(svc)
    for (const name of ['x'.repeat(60), ` ${'y'.repeat(60)} `, 'סנכרון CRM', 'ซิงค์ CRM']) {
      const res = await create(svc, u, { name })
      expect(res.status, name).toBe(201)
      expect((await body<{ api_key: ApiKey }>(res)).api_key.name).toBe(name.trim())
    }
    const made = (await list(svc, u)).length

    const refused: [unknown, string | null, number?][] = [
      ['', 'required'],
      ['   ', 'required'],
      ['x'.repeat(61), 'max_length', 60],
      ['CRM\u0007sync', 'control_characters'],
      // a bidi override would turn the label it stands in around (issue 22)
      ['CRM \u202Esync', 'control_characters'],
      ['CRM\u0000sync', 'nul_character'],
      // its code is lib/validation.ts's to choose for any field of the wrong type
      [42, null],
    ]
    for (const [name, code, limit] of refused) {
      const res = await create(svc, u, { name })
      expect(res.status, JSON.stringify(name)).toBe(400)
      const err = await body<FieldError>(res)
      expect(Object.keys(err.errors), JSON.stringify(name)).toEqual(['name'])
      if (code !== null) expect(err.error_codes.name?.[0]?.code, JSON.stringify(name)).toBe(code)
      if (limit !== undefined) expect(err.error_codes.name?.[0]?.limit).toBe(limit)
    }
    // nothing was made by a refused request
    expect(await list(svc, u)).toHaveLength(made)
  })

  it("another account never sees a key's name, and cannot revoke the key", async () => {
    const owner = await signUp(svc)
    const other = await signUp(svc)
    const { api_key } = await body<{ api_key: ApiKey }>(await create(svc, owner, { name: 'Owner’s billing export' }))
    const seen = await svc.request('/api/user/api-keys/', { token: other.access })
    expect(await seen.text()).toBe('[]')
    expect((await svc.request(`/api/user/api-keys/${api_key.id}/`, { method: 'DELETE', token: other.access })).status).toBe(404)
    expect((await list(svc, owner)).map((k) => k.name)).toEqual(['Owner’s billing export'])
  })

  it('is listed at /api/capabilities/ and documented as an extension of the key and its creation', async () => {
    const u = await signUp(svc)
    const caps = await body<Record<string, unknown>>(await svc.request('/api/capabilities/', { token: u.access }))
    expect(caps.api_key_names).toEqual({ version: 1, max_length: 60 })
    type Props = Record<string, { 'x-extension'?: boolean; maxLength?: number }>
    const schema = await body<{ components: { schemas: Record<string, { properties: Props }> } }>(await svc.request('/api/schema/'))
    const { ApiKey: key, ApiKeyCreate: createBody } = schema.components.schemas
    expect(key!.properties.name!['x-extension']).toBe(true)
    expect(createBody!.properties.name!['x-extension']).toBe(true)
    expect(createBody!.properties.name!.maxLength).toBe(60)
  })
})

describe('the interface profile (SERVICE_PROFILE=interface)', () => {
  it('sends no name, even for a key that has one, refuses `name` on creation and lists no capability', async () => {
    const u = await signUp(iface)
    const created = await create(iface, u, {})
    expect(created.status).toBe(201)
    const { api_key } = await body<{ api_key: ApiKey }>(created)
    expect(api_key).not.toHaveProperty('name')
    // a name the reference profile gave it (the same database, served the other way)
    await iface.deps.db.query('UPDATE api_keys SET name = $2 WHERE id = $1', [api_key.id, 'CRM sync'])
    const listed = await iface.request('/api/user/api-keys/', { token: u.access })
    expect(listed.status).toBe(200)
    const text = await listed.text()
    expect(text).not.toContain('CRM sync')
    expect(Object.keys((JSON.parse(text) as ApiKey[])[0]!).sort()).toEqual(['created', 'expiry', 'id', 'token_key'])

    const named = await create(iface, u, { name: 'CRM sync' })
    expect(named.status).toBe(400)
    expect(Object.keys((await body<FieldError>(named)).errors)).toEqual(['name'])
    expect(await list(iface, u)).toHaveLength(1)
    expect((await iface.request('/api/capabilities/', { token: u.access })).status).toBe(404)
  })
})
