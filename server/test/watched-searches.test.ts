import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestService, type TestService } from './helpers.ts'
import { advanceClock, balance, body, paidUser, preview, signUp, startExport, waitForExport, type TestUser } from './account-helpers.ts'

let svc: TestService
beforeAll(async () => {
  svc = await startTestService()
})
afterAll(async () => {
  await svc?.close()
})

interface Entry {
  search_id: number
  name?: string | null
  watched?: boolean
  delta_of: number | null
}

async function exportDone(u: TestUser, query: string) {
  const p = await preview(svc, u.access, query)
  const res = await startExport(svc, u.access, { search_id: p.search_id, export_format: 'csv' })
  expect(res.status).toBe(202)
  const started = await body<{ search_id: number; lead_count: number }>(res)
  await waitForExport(svc, u.access, started.search_id)
  return started
}

const patch = (token: string, id: number, json: unknown) => svc.request(`/api/user/search-history/${id}/`, { method: 'PATCH', token, json })
const list = async (u: TestUser, query = '') =>
  body<{ count: number; results: Entry[] }>(await svc.request(`/api/user/search-history/?${query}`, { token: u.access }))

describe('named and watched searches (extension watched_searches)', () => {
  it('is listed in capabilities with its limit, and documented as an extension', async () => {
    const u = await signUp(svc)
    const caps = await body<Record<string, unknown>>(await svc.request('/api/capabilities/', { token: u.access }))
    expect(caps.watched_searches).toEqual({ version: 1, limit: 20, name_max_length: 80 })
    const schema = await body<{ paths: Record<string, Record<string, { 'x-extension'?: boolean }>> }>(await svc.request('/api/schema/'))
    expect(schema.paths['/api/user/search-history/{search_id}']?.patch?.['x-extension']).toBe(true)
  })

  it('round-trips a name and the watched flag; the list filters watched ones; "" removes the name', async () => {
    const u = await paidUser(svc)
    const a = await exportDone(u, 'countries=DE')
    const b = await exportDone(u, 'countries=FR')
    const res = await patch(u.access, a.search_id, { name: '  Restaurants in Germany ', watched: true })
    expect(res.status, await res.clone().text()).toBe(200)
    expect(await body(res)).toMatchObject({ search_id: a.search_id, name: 'Restaurants in Germany', watched: true })

    const all = await list(u)
    expect(all.results.map((e) => [e.search_id, e.name ?? null, e.watched])).toEqual([
      [b.search_id, null, false],
      [a.search_id, 'Restaurants in Germany', true],
    ])
    const watched = await list(u, 'watched=true')
    expect(watched.count).toBe(1)
    expect(watched.results.map((e) => e.search_id)).toEqual([a.search_id])

    // watched alone leaves the name; name alone leaves watched
    expect(await body(await patch(u.access, a.search_id, { watched: false }))).toMatchObject({
      name: 'Restaurants in Germany',
      watched: false,
    })
    expect(await body(await patch(u.access, a.search_id, { name: '' }))).toMatchObject({ name: null, watched: false })
    expect((await list(u, 'watched=1')).count).toBe(0)
  })

  it('validates: unknown fields, types, a long name, a bad filter value; never another account’s entry', async () => {
    const u = await paidUser(svc)
    const other = await paidUser(svc)
    const a = await exportDone(u, 'countries=NL')
    for (const [json, field] of [
      [{ watched: 'yes' }, 'watched'],
      [{ name: 'x'.repeat(81) }, 'name'],
      [{ colour: 'red' }, 'colour'],
    ] as const) {
      const res = await patch(u.access, a.search_id, json)
      expect(res.status).toBe(400)
      expect(Object.keys((await body<{ errors: Record<string, string[]> }>(res)).errors)).toContain(field)
    }
    expect((await svc.request('/api/user/search-history/?watched=maybe', { token: u.access })).status).toBe(400)
    expect((await patch(other.access, a.search_id, { watched: true })).status).toBe(404)
    expect((await list(u)).results[0]).toMatchObject({ watched: false, name: null })
  })

  it('watches originals only, at most 20 per account, also under concurrent requests', async () => {
    const u = await paidUser(svc, 100_000)
    const original = await exportDone(u, 'countries=ES')
    await advanceClock(svc, 60)
    await svc.request('/api/_test/new-companies/', { method: 'POST', token: u.access, json: { count: 3, countries: ['ES'] } })
    const fresh = await body<{ search_id: number }>(
      await svc.request(`/api/user/search-history/${original.search_id}/download-delta/`, { method: 'POST', token: u.access, json: {} }),
    )
    await waitForExport(svc, u.access, fresh.search_id)
    const refused = await patch(u.access, fresh.search_id, { watched: true })
    expect(refused.status).toBe(400)
    expect((await body<{ errors: Record<string, string[]> }>(refused)).errors.watched?.[0]).toContain(`#${original.search_id}`)

    const ids: number[] = []
    for (let i = 0; i < 22; i++) {
      const p = await preview(svc, u.access, `countries=DE&category=${(i % 5) + 1}`)
      const res = await startExport(svc, u.access, { search_id: p.search_id, export_format: 'csv', max_leads: 1 })
      expect(res.status).toBe(202)
      ids.push((await body<{ search_id: number }>(res)).search_id)
    }
    const answers = await Promise.all(ids.map((id) => patch(u.access, id, { watched: true })))
    expect(answers.filter((r) => r.status === 200)).toHaveLength(20)
    const over = answers.find((r) => r.status === 400)!
    expect((await body<{ error_codes: Record<string, Array<{ code: string; limit: number }>> }>(over)).error_codes.watched).toEqual([
      { code: 'watch_limit', limit: 20 },
    ])
    expect((await list(u, 'watched=true&page_size=100')).count).toBe(20)
    // already watched stays allowed at the limit; renaming too
    const watchedId = answers.findIndex((r) => r.status === 200)
    expect((await patch(u.access, ids[watchedId]!, { watched: true, name: 'still fine' })).status).toBe(200)
  })

  it('a read-only key cannot rename or watch; an export key can', async () => {
    const u = await paidUser(svc)
    const a = await exportDone(u, 'countries=IT')
    const make = async (scope: string) =>
      (await body<{ token: string }>(await svc.request('/api/user/api-keys/', { method: 'POST', token: u.access, json: { scope } }))).token
    const read = await make('read')
    const res = await patch(read, a.search_id, { watched: true })
    expect(res.status).toBe(403)
    expect(await body(res)).toMatchObject({ code: 'api_key_read_only' })
    expect((await patch(await make('export'), a.search_id, { watched: true })).status).toBe(200)
  })

  it('the watched search’s dry run counts what is new; its export charges exactly that', async () => {
    const u = await paidUser(svc, 10_000)
    const a = await exportDone(u, 'countries=GB')
    await patch(u.access, a.search_id, { watched: true })
    await advanceClock(svc, 60)
    await svc.request('/api/_test/new-companies/', { method: 'POST', token: u.access, json: { count: 7, countries: ['GB'] } })
    const url = `/api/user/search-history/${a.search_id}/download-delta/`
    const dry = await body<{ lead_count: number; required_credits: number }>(
      await svc.request(url, { method: 'POST', token: u.access, json: { dry_run: true } }),
    )
    expect(dry).toMatchObject({ lead_count: 7, required_credits: 7 })
    const before = await balance(svc, u.access)
    const started = await svc.request(url, { method: 'POST', token: u.access, json: {} })
    expect(started.status).toBe(202)
    expect(await balance(svc, u.access)).toBe(before - 7)
  })
  it('a fresh-data export keeps the name given to its search, and is not watched itself', async () => {
    const u = await paidUser(svc, 10_000)
    const a = await exportDone(u, 'countries=GB')
    expect((await patch(u.access, a.search_id, { name: 'UK cafés', watched: true })).status).toBe(200)
    await advanceClock(svc, 60)
    await svc.request('/api/_test/new-companies/', { method: 'POST', token: u.access, json: { count: 3, countries: ['GB'] } })
    const started = await svc.request(`/api/user/search-history/${a.search_id}/download-delta/`, {
      method: 'POST',
      token: u.access,
      json: {},
    })
    expect(started.status).toBe(202)
    const fresh = (await list(u)).results.find((e) => e.delta_of === a.search_id)
    expect(fresh).toMatchObject({ name: 'UK cafés', watched: false })
  })
})
