import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { filtersHash, normaliseFilters } from '../src/modules/search/filters.ts'
import { startTestService, type TestService } from './helpers.ts'
import { advanceClock, balance, body, paidUser, parseCsv, signUp, startExport, waitForExport, type TestUser } from './account-helpers.ts'
import { confirm, csv, uploaded, waitMatched } from './lists-helpers.ts'

/**
 * Issue 27, extension `lists`: a list as a suppression list. Every count of a search leaving lists out
 * is held to what the lists' rows say, counted here in plain SQL, and follows a manual un-match at once.
 */

let svc: TestService
let u: TestUser
/** Lists A and B; A's first row and B's share five companies (a company in two lists is left out once). */
let a: number
let b: number
/** The first 15 German companies with a phone of their own, by id: A holds 0–9, B holds 5–14. */
let german: Array<{ id: number; phone: string; place_id: string }>
let french: Array<{ id: number; phone: string; place_id: string }>

interface ErrorBody {
  detail: string
  code: string
  errors?: Record<string, string[]>
  error_codes?: Record<string, Array<{ code: string } & Record<string, unknown>>>
}
interface Preview {
  totalCount: number
  search_id: number
  excluded_by_lists?: number
  results: Array<{ place_id: string }>
}
interface Facets {
  totalCount: number
  with_email: number
  with_phone: number
  with_website: number
  level1: Array<{ id: number; count: number }> | null
  categories: Array<{ id: number; count: number }>
}

const get = async <T>(path: string, user = u) => {
  const res = await svc.request(path, { token: user.access })
  expect(res.status, await res.clone().text()).toBe(200)
  return body<T>(res)
}

/** Companies whose phone no other company has (so a list row of it matches exactly one), lowest ids first. */
async function uniquePhones(country: string, n: number) {
  const { rows } = await svc.deps.db.query<{ id: number; phone: string; place_id: string }>(
    `SELECT c.id, c.phone, c.place_id FROM companies c JOIN company_match_keys k ON k.company_id = c.id
      WHERE c.country_code = $1 AND k.phone_e164 IS NOT NULL
        AND (SELECT count(*) FROM company_match_keys o WHERE o.phone_e164 = k.phone_e164) = 1
      ORDER BY c.id LIMIT $2`,
    [country, n],
  )
  expect(rows).toHaveLength(n)
  return rows
}

async function matchedList(name: string, phones: string[]): Promise<number> {
  const list = await uploaded(svc, u, { name, bytes: csv([['Telefon'], ...phones.map((p) => [p]), ['+49 30 0000001']]) })
  await confirm(svc, u, list.id, { phone: 0 })
  expect(await waitMatched(svc, u, list.id)).toMatchObject({ status: 'matched' })
  return list.id
}

/** The companies the lists' matched rows name, from list_rows itself. */
async function listed(...lists: number[]): Promise<number[]> {
  const { rows } = await svc.deps.db.query<{ id: number }>(
    `SELECT DISTINCT company_id AS id FROM list_rows WHERE list_id = ANY($1::int[]) AND status = 'matched' ORDER BY 1`,
    [lists],
  )
  return rows.map((r) => r.id)
}

/** The place_ids of the first `n` German companies by id, less the ids `out`: a preview's sample. */
async function germanSample(out: number[], n = 10): Promise<string[]> {
  const { rows } = await svc.deps.db.query<{ place_id: string }>(
    `SELECT c.place_id FROM companies c WHERE c.country_code = 'DE' AND c.created_at <= $1 AND c.id <> ALL($2::int[]) ORDER BY c.id LIMIT $3`,
    [svc.deps.clock.now(), out, n],
  )
  return rows.map((r) => r.place_id)
}

/** The plain count of German companies matching `where`, less the ids `out`. */
async function germanCount(out: number[], where = 'TRUE', params: unknown[] = []): Promise<number> {
  const { rows } = await svc.deps.db.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM companies c
      WHERE c.country_code = 'DE' AND c.created_at <= $1 AND c.id <> ALL($2::int[]) AND ${where}`,
    [svc.deps.clock.now(), out, ...params],
  )
  return rows[0]!.n
}

beforeAll(async () => {
  svc = await startTestService()
  u = await paidUser(svc, 100_000)
  german = await uniquePhones('DE', 15)
  french = await uniquePhones('FR', 5)
  a = await matchedList(
    'a.csv',
    [...german.slice(0, 10), ...french].map((c) => c.phone),
  )
  b = await matchedList(
    'b.csv',
    german.slice(5, 15).map((c) => c.phone),
  )
  expect(await listed(a, b)).toEqual([...german, ...french].map((c) => c.id).sort((x, y) => x - y))
})
afterAll(() => svc?.close())

describe('capabilities and schema', () => {
  it('describes exclude_lists under the lists extension, and as an extension on every search path', async () => {
    const caps = await get<{ lists: { exclude_lists?: { max: number } } }>('/api/capabilities/')
    expect(caps.lists.exclude_lists).toEqual({ max: 20 })
    const doc = await body<{
      paths: Record<string, { get: { parameters: Array<{ name: string; schema: { 'x-extension'?: boolean } }> } }>
      components: { schemas: Record<string, { properties: Record<string, { 'x-extension'?: boolean }> }> }
    }>(await svc.request('/api/schema/'))
    for (const path of ['/api/companies', '/api/companies/facets', '/api/companies/owned', '/api/companies/cells']) {
      const op = (doc.paths[path] ?? doc.paths[`${path}/`])!.get
      expect(op.parameters.find((p) => p.name === 'exclude_lists')?.schema, path).toMatchObject({ 'x-extension': true })
    }
    expect(doc.components.schemas.CompanyPreview!.properties.excluded_by_lists).toMatchObject({ 'x-extension': true })
  })
})

describe('filters', () => {
  it('keeps the JSON and hash of a search without lists, and gives one hash to one set of lists', () => {
    // the hashes pinned before lists existed (territory.test.ts pins the same two)
    const plain = normaliseFilters({ countries: ['DE'], category: [3], level1_location: [2], email: true })
    expect(filtersHash(plain)).toBe('8a509bcebc8e710c60a296d4cf9219322b7d5838cb4d165a9fcbea86d8de8e96')
    expect(filtersHash(normaliseFilters({ exclude_lists: [] }))).toBe('652b4863057a0176bde5827dfa4863118994452d7ed4d0b69d7f128b20154866')
    expect(JSON.stringify(plain)).not.toContain('exclude_lists')
    const lists = normaliseFilters({ countries: ['DE'], exclude_lists: [7, 3, 7] })
    expect(lists.exclude_lists).toEqual([3, 7])
    expect(filtersHash(lists)).toBe(filtersHash(normaliseFilters({ exclude_lists: [3, 7], countries: ['de'] })))
    expect(filtersHash(lists)).not.toBe(filtersHash(normaliseFilters({ countries: ['DE'], exclude_lists: [3] })))
  })
})

describe('a search leaving lists out', () => {
  it('preview: the count less the lists’ companies, each once, and says how many; the sample holds none of them', async () => {
    const out = await listed(a, b)
    const plain = await get<Preview>('/api/companies/?countries=DE')
    expect(plain).not.toHaveProperty('excluded_by_lists')
    expect(plain.results.map((r) => r.place_id)).toEqual(await germanSample([]))

    const left = await get<Preview>(`/api/companies/?countries=DE&exclude_lists=${a},${b}`)
    expect(left.excluded_by_lists).toBe(15)
    expect(left.totalCount).toBe(plain.totalCount - 15)
    expect(left.totalCount).toBe(await germanCount(out))
    expect(left.search_id).not.toBe(plain.search_id)
    expect(left.results.map((r) => r.place_id)).toEqual(await germanSample(out))
    expect(await germanSample(out)).not.toEqual(await germanSample([]))
    // repeated, in any order: the same search
    const again = await get<Preview>(`/api/companies/?exclude_lists=${b}&countries=DE&exclude_lists=${a}`)
    expect(again.search_id).toBe(left.search_id)
    // the French companies of list A are not in a German search: nothing of them is left out
    expect((await get<Preview>(`/api/companies/?countries=DE&exclude_lists=${a}`)).excluded_by_lists).toBe(10)
    expect((await get<Preview>(`/api/companies/?countries=FR&exclude_lists=${a}`)).excluded_by_lists).toBe(5)
  })

  it('facets: every total and bucket less the lists’ companies, as a plain count says', async () => {
    const out = await listed(a, b)
    for (const query of ['countries=DE', 'countries=DE&main_activity_only=true', 'countries=DE&email=true']) {
      const f = await get<Facets>(`/api/companies/facets/?${query}&exclude_lists=${a},${b}`)
      const flag = query.includes('email=true') ? 'c.has_email' : 'TRUE'
      expect(f.totalCount, query).toBe(await germanCount(out, flag))
      expect(f.with_email, query).toBe(await germanCount(out, `${flag} AND c.has_email`))
      expect(f.with_phone, query).toBe(await germanCount(out, `${flag} AND c.has_phone`))
      expect(f.with_website, query).toBe(await germanCount(out, `${flag} AND c.has_website`))
      expect(f.level1!.length).toBeGreaterThan(0)
      for (const r of f.level1!)
        expect(r.count, `${query} region ${r.id}`).toBe(await germanCount(out, `${flag} AND c.level1_id = $3`, [r.id]))
      const inCategory = query.includes('main_activity_only') ? 'c.main_category_id = $3' : '$3 = ANY(c.category_ids)'
      expect(f.categories.length).toBeGreaterThan(0)
      for (const r of f.categories) {
        expect(r.count, `${query} category ${r.id}`).toBe(await germanCount(out, `${flag} AND ${inCategory}`, [r.id]))
      }
    }
    // several categories, any of them (a company holding two counts once)
    const { rows } = await svc.deps.db.query<{ ids: number[] }>('SELECT c.category_ids AS ids FROM companies c WHERE c.id = $1', [
      german[0]!.id,
    ])
    const categories = rows[0]!.ids.slice(0, 2)
    const several = await get<Facets>(`/api/companies/facets/?countries=DE&category=${categories.join(',')}&exclude_lists=${a},${b}`)
    expect(several.totalCount).toBe(await germanCount(out, 'c.category_ids && $3::int[]', [categories]))
  })

  it('a territory: the companies inside it less the lists’ (counted from the companies, not the kept counts)', async () => {
    const out = await listed(a, b)
    const { rows } = await svc.deps.db.query<{ latitude: number; longitude: number }>(
      'SELECT latitude, longitude FROM companies WHERE id = $1',
      [german[0]!.id],
    )
    const { latitude: lat, longitude: lng } = rows[0]!
    const [south, north, west, east] = [lat - 1.5, lat + 1.5, lng - 1.5, lng + 1.5]
    const ring = [
      [west, south],
      [east, south],
      [east, north],
      [west, north],
      [west, south],
    ]
    const within = encodeURIComponent(JSON.stringify({ type: 'Polygon', coordinates: [ring] }))
    const inside = 'c.latitude BETWEEN $3 AND $4 AND c.longitude BETWEEN $5 AND $6'
    const expected = await germanCount(out, inside, [south, north, west, east])
    const plain = await get<Preview>(`/api/companies/?countries=DE&within=${within}`)
    const left = await get<Preview>(`/api/companies/?countries=DE&within=${within}&exclude_lists=${a},${b}`)
    expect(left.totalCount).toBe(expected)
    expect(left.excluded_by_lists).toBeGreaterThan(0)
    expect(left.excluded_by_lists).toBe(plain.totalCount - expected)
    const f = await get<Facets>(`/api/companies/facets/?countries=DE&within=${within}&exclude_lists=${a},${b}`)
    expect(f.totalCount).toBe(expected)
    expect(f.with_email).toBe(await germanCount(out, `${inside} AND c.has_email`, [south, north, west, east]))
  })

  it('cells: the total less the lists’ companies in the box', async () => {
    const box = 'bbox=-180,-85,180,85&zoom=3'
    const plain = await get<{ total: number; cells: Array<{ h3: string; count: number }> }>(`/api/companies/cells/?countries=DE&${box}`)
    const left = await get<{ total: number; cells: Array<{ h3: string; count: number }> }>(
      `/api/companies/cells/?countries=DE&exclude_lists=${a},${b}&${box}`,
    )
    expect(left.total).toBe(plain.total - 15)
    expect(left.cells.reduce((sum, c) => sum + c.count, 0)).toBe(left.total)
  })

  it('owned and exports: the counts, the charge and the file leave the lists’ companies out; skip_owned counts the rest', async () => {
    const out = await listed(a, b)
    // a plain export of the 60 lowest German ids, some listed companies among them
    const plain = await get<Preview>('/api/companies/?countries=DE')
    const first = await startExport(svc, u.access, { search_id: plain.search_id, export_format: 'csv', max_leads: 60 })
    expect(first.status).toBe(202)
    await waitForExport(svc, u.access, (await body<{ search_id: number }>(first)).search_id)
    const { rows: lowest } = await svc.deps.db.query<{ id: number }>(
      `SELECT id FROM companies WHERE country_code = 'DE' ORDER BY id LIMIT 60`,
    )
    const ownedUnlisted = lowest.filter((r) => !out.includes(r.id)).length
    expect(ownedUnlisted).toBeLessThan(60)

    const owned = await get<{ totalCount: number; owned_count: number; new_count: number }>(
      `/api/companies/owned/?countries=DE&exclude_lists=${a},${b}`,
    )
    expect(owned).toEqual({
      totalCount: plain.totalCount - 15,
      owned_count: ownedUnlisted,
      new_count: plain.totalCount - 15 - ownedUnlisted,
    })

    const left = await get<Preview>(`/api/companies/?countries=DE&exclude_lists=${a},${b}`)
    const credits = await balance(svc, u.access)
    const skipping = await startExport(svc, u.access, {
      search_id: left.search_id,
      export_format: 'csv',
      skip_owned: true,
      columns: ['place_id'],
    })
    expect(skipping.status, await skipping.clone().text()).toBe(202)
    const started = await body<{ search_id: number; lead_count: number; credits_charged: number; skipped_owned: number }>(skipping)
    expect(started).toMatchObject({
      lead_count: owned.new_count,
      credits_charged: owned.new_count,
      skipped_owned: ownedUnlisted,
    })
    expect(await balance(svc, u.access)).toBe(credits - started.credits_charged)

    const whole = await startExport(svc, u.access, { search_id: left.search_id, export_format: 'csv', columns: ['place_id'] })
    const all = await body<{ search_id: number; lead_count: number }>(whole)
    expect(all.lead_count).toBe(await germanCount(out))
    expect(await waitForExport(svc, u.access, all.search_id)).toMatchObject({ status: 'COMPLETED' })
    const rows = await fileRows(all.search_id)
    expect(rows).toHaveLength(all.lead_count)
    const placeIds = new Set(german.map((c) => c.place_id))
    expect(rows.filter((r) => placeIds.has(r))).toEqual([])

    // the export's history entry holds the search as asked
    const entry = await get<{ filters: Record<string, unknown> }>(`/api/user/search-history/${all.search_id}/`)
    expect(entry.filters).toMatchObject({ countries: ['DE'], exclude_lists: [a, b].sort((x, y) => x - y) })
  })

  it('follows a manual un-match and re-match at once, on every count (nothing stale in a cache)', async () => {
    const query = `countries=DE&exclude_lists=${a},${b}`
    const box = 'bbox=-180,-85,180,85&zoom=3'
    const before = {
      preview: await get<Preview>(`/api/companies/?${query}`),
      facets: await get<Facets>(`/api/companies/facets/?${query}`),
      cells: await get<{ total: number }>(`/api/companies/cells/?${query}&${box}`),
      owned: await get<{ totalCount: number }>(`/api/companies/owned/?${query}`),
    }
    // row 1 of A is German company 0, in no other list
    const unmatch = await svc.request(`/api/lists/${a}/rows/1/match/`, { method: 'PUT', token: u.access, json: { company_id: null } })
    expect(unmatch.status).toBe(200)
    const after = await get<Preview>(`/api/companies/?${query}`)
    expect(after).toMatchObject({ totalCount: before.preview.totalCount + 1, excluded_by_lists: 14 })
    expect(after.results.map((r) => r.place_id)).toEqual(await germanSample(await listed(a, b)))
    expect((await get<Facets>(`/api/companies/facets/?${query}`)).totalCount).toBe(before.facets.totalCount + 1)
    expect((await get<{ total: number }>(`/api/companies/cells/?${query}&${box}`)).total).toBe(before.cells.total + 1)
    expect((await get<{ totalCount: number }>(`/api/companies/owned/?${query}`)).totalCount).toBe(before.owned.totalCount + 1)

    // matched by hand again (a manual match suppresses like any other)
    const rematch = await svc.request(`/api/lists/${a}/rows/1/match/`, {
      method: 'PUT',
      token: u.access,
      json: { company_id: german[0]!.id },
    })
    expect(rematch.status).toBe(200)
    expect(await get<Preview>(`/api/companies/?${query}`)).toMatchObject({ totalCount: before.preview.totalCount, excluded_by_lists: 15 })
  })
})

describe('lists that are not the caller’s', () => {
  const paths = ['/api/companies/', '/api/companies/facets/', '/api/companies/owned/']
  const cells = '/api/companies/cells/?bbox=-180,-85,180,85&zoom=3&'
  const ask = (path: string, query: string, user: TestUser) =>
    svc.request(`${path}${path.includes('?') ? '' : '?'}${query}`, { token: user.access })

  it('answers another account’s list exactly as one that does not exist, on every search path, after its owner’s answer was cached', async () => {
    const other = await signUp(svc)
    // the owner's answers first, so that a shared cache would hold them
    for (const path of [...paths, cells]) expect((await ask(path, `countries=DE&exclude_lists=${a}`, u)).status).toBe(200)
    for (const path of [...paths, cells]) {
      const theirs = await ask(path, `countries=DE&exclude_lists=${a}`, other)
      const none = await ask(path, `countries=DE&exclude_lists=2000000000`, other)
      expect(theirs.status, path).toBe(400)
      expect(none.status, path).toBe(400)
      const [t, n] = [await body<ErrorBody>(theirs), await body<ErrorBody>(none)]
      expect(t.error_codes).toEqual({ exclude_lists: [{ code: 'unknown_list' }] })
      expect(t).toEqual(n)
    }
    // nothing was recorded for the refused search
    const { rows } = await svc.deps.db.query('SELECT 1 FROM searches WHERE user_id = $1', [other.id])
    expect(rows).toEqual([])
  })

  it('refuses more than 20 lists and ids that are no ids', async () => {
    const many = Array.from({ length: 21 }, (_, i) => i + 1).join(',')
    const res = await ask('/api/companies/', `exclude_lists=${many}`, u)
    expect(res.status).toBe(400)
    expect((await body<ErrorBody>(res)).error_codes).toEqual({ exclude_lists: [{ code: 'too_many_values', limit: 20 }] })
    // ten thousand ids are refused by their number, before any is looked at
    const flood = await ask('/api/companies/', `exclude_lists=${'1,'.repeat(10_000)}`, u)
    expect([400, 414, 431]).toContain(flood.status)
    const repeated = await ask('/api/companies/', `exclude_lists=${'1,'.repeat(2_000)}`, u)
    expect((await body<ErrorBody>(repeated)).error_codes).toEqual({ exclude_lists: [{ code: 'too_many_values', limit: 20 }] })
    const bad = await ask('/api/companies/', 'exclude_lists=abc', u)
    expect((await body<ErrorBody>(bad)).error_codes).toEqual({ exclude_lists: [{ code: 'invalid_id' }] })
  })

  it('a deleted list: the search is refused, and an export of a search recorded before it was deleted charges nothing', async () => {
    const c = await matchedList(
      'c.csv',
      german.slice(0, 3).map((x) => x.phone),
    )
    const p = await get<Preview>(`/api/companies/?countries=DE&exclude_lists=${c}`)
    expect(p.excluded_by_lists).toBe(3)
    expect((await svc.request(`/api/lists/${c}/`, { method: 'DELETE', token: u.access })).status).toBe(204)
    const credits = await balance(svc, u.access)
    const res = await startExport(svc, u.access, { search_id: p.search_id, export_format: 'csv' })
    expect(res.status).toBe(400)
    expect((await body<ErrorBody>(res)).error_codes).toEqual({ search_id: [{ code: 'unknown_list' }] })
    expect(await balance(svc, u.access)).toBe(credits)
    expect((await ask('/api/companies/', `countries=DE&exclude_lists=${c}`, u)).status).toBe(400)
  })
})

describe('retry and fresh data', () => {
  it('a retried export writes the same suppressed leads; fresh data leaves out what the lists match now', async () => {
    const out = await listed(a, b)
    const p = await get<Preview>(`/api/companies/?countries=DE&exclude_lists=${a},${b}`)
    expect((await svc.request('/api/_test/fail-next-export/', { method: 'POST', token: u.access })).status).toBe(200)
    const started = await body<{ search_id: number; lead_count: number }>(
      await startExport(svc, u.access, { search_id: p.search_id, export_format: 'csv', columns: ['place_id'] }),
    )
    expect(started.lead_count).toBe(await germanCount(out))
    expect(await waitForExport(svc, u.access, started.search_id)).toMatchObject({ status: 'FAILED' })
    const retry = await svc.request(`/api/user/search-history/${started.search_id}/retry/`, { method: 'POST', token: u.access })
    expect(retry.status).toBeLessThan(300)
    expect(await waitForExport(svc, u.access, started.search_id)).toMatchObject({ status: 'COMPLETED' })
    const rows = await fileRows(started.search_id)
    expect(rows).toHaveLength(started.lead_count)
    expect(rows.filter((r) => german.some((c) => c.place_id === r))).toEqual([])

    await advanceClock(svc, 60)
    const added = await svc.request('/api/_test/new-companies/', { method: 'POST', token: u.access, json: { count: 6, countries: ['DE'] } })
    expect(added.status).toBe(201)
    const { rows: fresh } = await svc.deps.db.query<{ id: number; place_id: string }>(
      `SELECT id, place_id FROM companies WHERE country_code = 'DE' ORDER BY id DESC LIMIT 6`,
    )
    // list B's first row now names one of the new companies, by hand
    const rematch = await svc.request(`/api/lists/${b}/rows/1/match/`, {
      method: 'PUT',
      token: u.access,
      json: { company_id: fresh[0]!.id },
    })
    expect(rematch.status).toBe(200)
    const delta = (json: unknown) =>
      svc.request(`/api/user/search-history/${started.search_id}/download-delta/`, { method: 'POST', token: u.access, json })
    expect(await body(await delta({ dry_run: true }))).toMatchObject({ status: 'validated', lead_count: 5, required_credits: 5 })
    const go = await delta({})
    expect(go.status).toBe(202)
    const next = await body<{ search_id: number; lead_count: number }>(go)
    expect(next.lead_count).toBe(5)
    await waitForExport(svc, u.access, next.search_id)
    const freshRows = await fileRows(next.search_id)
    expect(freshRows.sort()).toEqual(
      fresh
        .slice(1)
        .map((c) => c.place_id)
        .sort(),
    )
    const entry = await get<{ filters: Record<string, unknown> }>(`/api/user/search-history/${next.search_id}/`)
    expect(entry.filters.exclude_lists).toEqual([a, b].sort((x, y) => x - y))
  })
})

/** The rows of an export of the place_id column (header dropped). */
async function fileRows(id: number): Promise<string[]> {
  const d = await get<{ download_url: string }>(`/api/download-completed-csv/${id}/`)
  const rows = parseCsv((await (await fetch(d.download_url)).text()).replace(/^\ufeff/, ''))
  return rows.slice(1).map((r) => r[0]!)
}
