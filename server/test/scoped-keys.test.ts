import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestService, type TestService } from './helpers.ts'
import {
  advanceClock,
  balance as balanceOf,
  body,
  login,
  paidUser as paidUserOf,
  preview,
  profile,
  signUp,
  startExport,
  waitForExport,
  type TestUser,
} from './account-helpers.ts'

/** Issue 12, part 3: API keys that only read, and keys with a monthly credit cap. */

let svc: TestService
beforeAll(async () => {
  svc = await startTestService()
})
afterAll(async () => {
  await svc?.close()
})

interface Key {
  id: string
  token_key: string
  scope: 'read' | 'export'
  monthly_credit_cap: number | null
  credits_spent_this_period: number
  period_start: string
}

const paidUser = () => paidUserOf(svc, 100_000)

async function newKey(u: TestUser, json: Record<string, unknown>): Promise<{ token: string; api_key: Key }> {
  const res = await svc.request('/api/user/api-keys/', { method: 'POST', token: u.access, json })
  expect(res.status, JSON.stringify(await res.clone().json())).toBe(201)
  return body(res)
}

const keys = async (u: TestUser) => body<Key[]>(await svc.request('/api/user/api-keys/', { token: u.access }))
const balance = (token: string) => balanceOf(svc, token)

describe('capabilities and schema', () => {
  it('lists scoped_api_keys with its scopes; the key fields are documented extensions', async () => {
    const u = await signUp(svc)
    const caps = await body<Record<string, Record<string, unknown>>>(await svc.request('/api/capabilities/', { token: u.access }))
    expect(caps.scoped_api_keys).toEqual({ version: 1, scopes: ['read', 'export'] })
    const schema = await body<{ components: { schemas: Record<string, { properties: Record<string, Record<string, unknown>> }> } }>(
      await svc.request('/api/schema/'),
    )
    for (const field of ['scope', 'monthly_credit_cap'])
      expect(schema.components.schemas.ApiKeyCreate!.properties[field]!['x-extension'], field).toBe(true)
    for (const field of ['scope', 'monthly_credit_cap', 'credits_spent_this_period']) {
      expect(schema.components.schemas.ApiKey!.properties[field]!['x-extension'], field).toBe(true)
    }
    expect(schema.components.schemas.HistoryEntry!.properties.api_key!['x-extension']).toBe(true)
  })
})

describe('creating scoped keys', () => {
  it('defaults to export rights and no cap (as every key before); refuses an unknown scope and a cap that is not a positive whole number', async () => {
    const u = await signUp(svc)
    const plain = await newKey(u, {})
    expect(plain.api_key).toMatchObject({ scope: 'export', monthly_credit_cap: null, credits_spent_this_period: 0 })
    const bad = async (json: Record<string, unknown>, field: string) => {
      const res = await svc.request('/api/user/api-keys/', { method: 'POST', token: u.access, json })
      expect(res.status).toBe(400)
      const b = await body<{ errors: Record<string, string[]> }>(res)
      expect(Object.keys(b.errors)).toEqual([field])
    }
    await bad({ scope: 'write' }, 'scope')
    await bad({ monthly_credit_cap: 0 }, 'monthly_credit_cap')
    await bad({ monthly_credit_cap: 2.5 }, 'monthly_credit_cap')
    await bad({ monthly_credit_cap: '100' }, 'monthly_credit_cap')
    expect(await keys(u)).toHaveLength(1)
  })
})

describe('a read-only key', () => {
  it('searches, reads the history and downloads, but cannot start, refresh or retry an export or change the profile; nothing is charged', async () => {
    const u = await paidUser()
    const { token } = await newKey(u, { scope: 'read' })
    // an export made in the dashboard, which the read-only key may download
    const p = await preview(svc, u.access, 'countries=DE&email=true')
    const made = await body<{ search_id: number }>(
      await startExport(svc, u.access, { search_id: p.search_id, export_format: 'csv', max_leads: 3 }),
    )
    expect((await waitForExport(svc, u.access, made.search_id)).status).toBe('COMPLETED')
    const before = await balance(u.access)

    const viaKey = await preview(svc, token, 'countries=DE&email=true')
    expect(viaKey.totalCount).toBe(p.totalCount)
    expect((await svc.request('/api/user/search-history/', { token })).status).toBe(200)
    const link = await svc.request(`/api/download-completed-csv/${made.search_id}/`, { token })
    expect(link.status).toBe(200)
    expect((await fetch((await body<{ download_url: string }>(link)).download_url)).status).toBe(200)
    const dry = await svc.request(`/api/user/search-history/${made.search_id}/download-delta/`, {
      method: 'POST',
      token,
      json: { dry_run: true },
    })
    expect(dry.status).not.toBe(403)

    const refused = [
      await startExport(svc, token, { search_id: viaKey.search_id, export_format: 'csv' }),
      await svc.request(`/api/user/search-history/${made.search_id}/download-delta/`, { method: 'POST', token, json: {} }),
      await svc.request(`/api/user/search-history/${made.search_id}/retry/`, { method: 'POST', token, json: {} }),
      await svc.request('/api/user/profile/', { method: 'PATCH', token, json: { first_name: 'Mallory' } }),
    ]
    for (const res of refused) {
      expect(res.status).toBe(403)
      expect(await body(res)).toMatchObject({ code: 'api_key_read_only' })
    }
    expect(await balance(u.access)).toBe(before)
    expect((await profile(svc, u.access)).first_name).not.toBe('Mallory')
  })
})

describe('a key can revoke only itself', () => {
  it('a stolen key cannot revoke its owner’s other keys; it can end itself', async () => {
    const u = await signUp(svc)
    const a = await newKey(u, {})
    const b = await newKey(u, {})
    const other = await svc.request(`/api/user/api-keys/${b.api_key.id}/`, { method: 'DELETE', token: a.token })
    expect(other.status).toBe(403)
    expect(await body(other)).toMatchObject({ code: 'api_key_not_allowed' })
    expect((await svc.request('/api/user/profile/', { token: b.token })).status).toBe(200)
    expect((await svc.request(`/api/user/api-keys/${a.api_key.id}/`, { method: 'DELETE', token: a.token })).status).toBe(204)
    expect((await svc.request('/api/user/profile/', { token: a.token })).status).toBe(401)
  })
})

describe('a key with a monthly credit cap', () => {
  it('stops at its cap under 10 concurrent exports (never charged past it), records itself on each export, and starts afresh next month', async () => {
    const u = await paidUser()
    const capped = await newKey(u, { scope: 'export', monthly_credit_cap: 50 })
    const token = capped.token
    const p = await preview(svc, token, 'countries=US')
    expect(p.totalCount).toBeGreaterThan(100)
    const before = await balance(u.access)

    const answers = await Promise.all(
      Array.from({ length: 10 }, () => startExport(svc, token, { search_id: p.search_id, export_format: 'csv', max_leads: 10 })),
    )
    const statuses = answers.map((a) => a.status).sort()
    expect(statuses).toEqual([...Array(5).fill(202), ...Array(5).fill(403)])
    for (const a of answers.filter((x) => x.status === 403)) {
      expect(await body(a)).toMatchObject({
        code: 'api_key_cap_reached',
        validation_code: 'api_key_cap_reached',
        cap: 50,
        spent: 50,
        required_credits: 10,
      })
    }
    expect(before - (await balance(u.access))).toBe(50)
    const listed = (await keys(u)).find((k) => k.id === capped.api_key.id)!
    expect(listed).toMatchObject({ scope: 'export', monthly_credit_cap: 50, credits_spent_this_period: 50 })

    // the history names the key that started each export; the dashboard's own exports name none
    const history = await body<{ results: { api_key: { id: string; token_key: string } | null; credits_charged: number }[] }>(
      await svc.request('/api/user/search-history/?page_size=50', { token: u.access }),
    )
    const byKey = history.results.filter((e) => e.api_key?.id === capped.api_key.id)
    expect(byKey).toHaveLength(5)
    expect(byKey[0]!.api_key!.token_key).toBe(capped.api_key.token_key)
    // the password session is not limited by the key's cap
    expect((await startExport(svc, u.access, { search_id: p.search_id, export_format: 'csv', max_leads: 10 })).status).toBe(202)

    // a smaller export that fits what is left still passes: the cap counts credits, not exports
    const second = await newKey(u, { monthly_credit_cap: 15 })
    expect((await startExport(svc, second.token, { search_id: p.search_id, export_format: 'csv', max_leads: 10 })).status).toBe(202)
    const over = await startExport(svc, second.token, { search_id: p.search_id, export_format: 'csv', max_leads: 10 })
    expect(over.status).toBe(403)
    expect(await body(over)).toMatchObject({ code: 'api_key_cap_reached', spent: 10, cap: 15 })
    expect((await startExport(svc, second.token, { search_id: p.search_id, export_format: 'csv', max_leads: 5 })).status).toBe(202)

    // next month the cap starts again
    await advanceClock(svc, 32 * 24 * 3600)
    expect((await startExport(svc, token, { search_id: p.search_id, export_format: 'csv', max_leads: 10 })).status).toBe(202)
    const later = { ...u, ...(await login(svc, u.email, u.password)) }
    expect((await keys(later)).find((k) => k.id === capped.api_key.id)!.credits_spent_this_period).toBe(10)
  })
})
