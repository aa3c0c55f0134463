import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestService, type TestService } from './helpers.ts'
import { body, paidUser, preview, startExport, waitForExport, type TestUser } from './account-helpers.ts'

let svc: TestService
beforeAll(async () => {
  svc = await startTestService()
})
afterAll(async () => {
  await svc?.close()
})

interface Page {
  count: number
  next: string | null
  previous: string | null
  results: { search_id: number; status: string }[]
}

async function exportOf(u: TestUser, query: string, { fail = false } = {}) {
  if (fail) expect((await svc.request('/api/_test/fail-next-export/', { method: 'POST', token: u.access })).status).toBe(200)
  const p = await preview(svc, u.access, query)
  const res = await startExport(svc, u.access, { search_id: p.search_id, export_format: 'csv', max_leads: 1 })
  expect(res.status).toBe(202)
  const { search_id } = await body<{ search_id: number }>(res)
  await waitForExport(svc, u.access, search_id)
  return search_id
}

const rename = async (u: TestUser, id: number, name: string) =>
  expect((await svc.request(`/api/user/search-history/${id}/`, { method: 'PATCH', token: u.access, json: { name } })).status).toBe(200)

const list = async (u: TestUser, query: string) => {
  const res = await svc.request(`/api/user/search-history/?${query}`, { token: u.access })
  expect(res.status, await res.clone().text()).toBe(200)
  return body<Page>(res)
}
const ids = async (u: TestUser, query: string) => (await list(u, query)).results.map((e) => e.search_id)

describe('history searched by the service (extension history_search)', () => {
  it('is listed in capabilities and documented as an extension', async () => {
    const u = await paidUser(svc)
    const caps = await body<Record<string, unknown>>(await svc.request('/api/capabilities/', { token: u.access }))
    expect(caps.history_search).toEqual({ version: 1, q_max_length: 100, statuses: ['PENDING', 'PROCESSING', 'COMPLETED', 'FAILED'] })
    const schema = await body<{
      paths: Record<string, { get?: { parameters?: { name: string; schema: { 'x-extension'?: boolean } }[] } }>
    }>(await svc.request('/api/schema/'))
    const params = schema.paths['/api/user/search-history']?.get?.parameters ?? []
    for (const name of ['q', 'country', 'status']) {
      expect(params.find((p) => p.name === name)?.schema['x-extension'], name).toBe(true)
    }
  })

  it('finds exports by name, place or category in any language, number, country and status; pages the matches', async () => {
    const u = await paidUser(svc)
    const other = await paidUser(svc)
    const { db } = svc.deps
    const munich = (await db.query<{ id: number }>("SELECT id FROM level3_locations WHERE name = 'München'")).rows[0]!
    // a category with a German name that differs from its English one: found by either
    const category = (
      await db.query<{ id: number; name_en: string; de: string }>(
        "SELECT id, name_en, names ->> 'de' AS de FROM categories WHERE names ->> 'de' <> name_en ORDER BY id LIMIT 1",
      )
    ).rows[0]!

    const zurich = await exportOf(u, 'countries=DE&email=true')
    await rename(u, zurich, 'Zürich Bäckereien')
    const inMunich = await exportOf(u, `countries=DE&level3_location=${munich.id}`)
    const byCategory = await exportOf(u, `countries=FR&category=${category.id}`)
    const failed = await exportOf(u, 'countries=FR&phone_number=true', { fail: true })
    await rename(u, failed, 'לָקוֹחוֹת בְּחֵיפָה')
    const theirs = await exportOf(other, 'countries=DE&email=true')
    await rename(other, theirs, 'Zürich Bäckereien')

    expect(await ids(u, 'q=zurich')).toEqual([zurich])
    expect(await ids(u, 'q=BACKEREI')).toEqual([zurich])
    // a place by its own name and by its English one, accents aside
    expect(await ids(u, 'q=munchen')).toEqual([inMunich])
    expect(await ids(u, 'q=Munich')).toEqual([inMunich])
    expect(await ids(u, `q=${encodeURIComponent(category.name_en.toUpperCase())}`)).toEqual([byCategory])
    expect(await ids(u, `q=${encodeURIComponent(category.de)}`)).toEqual([byCategory])
    expect(await ids(u, `q=${encodeURIComponent(`#${failed}`)}`)).toEqual([failed])
    // Hebrew with and without its vowel points
    expect(await ids(u, `q=${encodeURIComponent('חיפה')}`)).toEqual([failed])
    expect(await ids(u, 'q=nothing-like-this')).toEqual([])

    expect(await ids(u, 'country=fr')).toEqual([failed, byCategory])
    expect(await ids(u, 'status=FAILED')).toEqual([failed])
    expect(await ids(u, 'status=completed,PENDING')).toEqual([byCategory, inMunich, zurich])
    expect(await ids(u, 'country=DE&status=COMPLETED&q=bäckerei')).toEqual([zurich])

    // count and links are those of the matches, and the links keep the search
    const first = await list(u, 'country=DE&page_size=1')
    expect(first.count).toBe(2)
    expect(first.results.map((e) => e.search_id)).toEqual([inMunich])
    const next = new URL(first.next!)
    expect(next.searchParams.get('country')).toBe('DE')
    const second = await list(u, next.search.slice(1))
    expect(second.results.map((e) => e.search_id)).toEqual([zurich])
    expect(second.next).toBeNull()
    expect((await svc.request('/api/user/search-history/?country=DE&page_size=1&page=3', { token: u.access })).status).toBe(404)
  })

  it('refuses what it cannot read with 400 on the field', async () => {
    const u = await paidUser(svc)
    for (const [query, field] of [
      [`q=${'a'.repeat(101)}`, 'q'],
      ['country=Germany', 'country'],
      ['country=D1', 'country'],
      ['status=DONE', 'status'],
      ['status=FAILED,expired', 'status'],
    ] as const) {
      const res = await svc.request(`/api/user/search-history/?${query}`, { token: u.access })
      expect(res.status, query).toBe(400)
      expect(Object.keys((await body<{ errors: Record<string, string[]> }>(res)).errors), query).toEqual([field])
    }
    expect((await svc.request(`/api/user/search-history/?q=${'a'.repeat(100)}`, { token: u.access })).status).toBe(200)
  })
})
