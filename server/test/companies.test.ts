import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { insertGeneratedCompanies } from '../src/seed/companies.ts'
import { startTestService, type TestService } from './helpers.ts'
import { advanceClock, body, login, signUp, type TestUser } from './account-helpers.ts'

let svc: TestService
let user: TestUser
beforeAll(async () => {
  svc = await startTestService()
  user = await signUp(svc)
})
afterAll(async () => {
  await svc?.close()
})

interface Lead {
  name: string
  email: string[]
  phone: string | null
  address: string | null
  city: string
  zipcode: string | null
  country: string
  level1_location: string
  level2_location: string
  website: string | null
  instagram: string | null
  facebook: string | null
  categories: string[]
  rating: number | null
  review_count: number
  latitude: number
  longitude: number
  place_id: string
  collected_at: string
}
interface Preview {
  totalCount: number
  search_id: number
  results: Lead[]
  page: number
  page_size: number
}

async function preview(query: string, token = user.access): Promise<Preview> {
  const res = await svc.request(`/api/companies/?${query}`, { token })
  expect(res.status, `${query}: ${res.status}`).toBe(200)
  return body<Preview>(res)
}
const count = async (condition: string, params: unknown[] = []) =>
  (await svc.deps.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM companies c WHERE ${condition}`, params)).rows[0]!.n

describe('GET /api/companies/ (free preview)', () => {
  it('answers totalCount, a search_id and 10 sample rows with every lead field', async () => {
    const p = await preview('countries=DE')
    expect(p.totalCount).toBe(await count(`c.country_code = 'DE'`))
    expect(p.totalCount).toBeGreaterThan(10)
    expect(p).toMatchObject({ search_id: expect.any(Number), page: 1, page_size: 10 })
    expect(p.results).toHaveLength(10)
    const lead = p.results[0]!
    expect(Object.keys(lead).sort()).toEqual(
      [
        'address',
        'categories',
        'city',
        'collected_at',
        'country',
        'email',
        'facebook',
        'instagram',
        'latitude',
        'level1_location',
        'level2_location',
        'longitude',
        'name',
        'phone',
        'place_id',
        'rating',
        'review_count',
        'website',
        'zipcode',
      ].sort(),
    )
    expect(p.results.every((r) => r.country === 'DE')).toBe(true)
    // coordinates near their city, inside Germany
    for (const r of p.results) {
      expect(r.latitude).toBeGreaterThan(47.2)
      expect(r.latitude).toBeLessThan(55.1)
      expect(r.longitude).toBeGreaterThan(5.8)
      expect(r.longitude).toBeLessThan(15.1)
      expect(r.categories.length).toBeGreaterThanOrEqual(1)
      expect(r.categories.length).toBeLessThanOrEqual(4)
      if (r.rating !== null) expect(r.rating).toBeGreaterThanOrEqual(1)
      if (r.rating !== null) expect(r.rating).toBeLessThanOrEqual(5)
    }
  })

  it('masks every e-mail address', async () => {
    const p = await preview('email=true&countries=FR')
    expect(p.results.length).toBeGreaterThan(0)
    for (const r of p.results) {
      expect(r.email.length).toBeGreaterThan(0)
      for (const e of r.email) expect(e).toMatch(/^[^@*]\*\*\*@[a-z0-9.-]+\.[a-z]+$/)
    }
    const raw = (
      await svc.deps.db.query<{ emails: string[] }>(
        `SELECT emails FROM companies WHERE has_email AND country_code = 'FR' ORDER BY id LIMIT 1`,
      )
    ).rows[0]!.emails
    expect(p.results[0]!.email).toEqual(raw.map((e) => `${e[0]}***${e.slice(e.indexOf('@'))}`))
    expect(JSON.stringify(p)).not.toContain(raw[0])
  })

  it('the same filters (in any order or spelling) give the same search_id; other filters another', async () => {
    const a = await preview('countries=fr,DE&category=2&category=1&email=1')
    const b = await preview('email=true&category=1,2&countries=DE&countries=FR&phone_number=false')
    expect(b.search_id).toBe(a.search_id)
    expect(b.totalCount).toBe(a.totalCount)
    const c = await preview('countries=DE,FR&category=1,2')
    expect(c.search_id).not.toBe(a.search_id)
    const { rows } = await svc.deps.db.query<{ user_id: number; kind: string; filters: unknown }>(
      'SELECT user_id, kind, filters FROM searches WHERE id = $1',
      [a.search_id],
    )
    expect(rows[0]).toEqual({
      user_id: user.id,
      kind: 'preview',
      filters: {
        countries: ['DE', 'FR'],
        category: [1, 2],
        level1_location: [],
        level2_location: [],
        level3_location: [],
        email: true,
        phone_number: false,
        website: false,
        main_activity_only: false,
      },
    })
  })

  it("another account gets its own search, never this one's", async () => {
    const other = await signUp(svc)
    const mine = await preview('countries=IL')
    const theirs = await preview('countries=IL', other.access)
    expect(theirs.search_id).not.toBe(mine.search_id)
    expect(theirs.totalCount).toBe(mine.totalCount)
    const { rows } = await svc.deps.db.query<{ user_id: number }>('SELECT user_id FROM searches WHERE id = $1', [theirs.search_id])
    expect(rows[0]!.user_id).toBe(other.id)
  })

  it('filters by presence flags and main activity', async () => {
    const p = await preview('countries=US&email=true&phone_number=true&website=true')
    expect(p.totalCount).toBe(
      await count(`c.country_code = 'US' AND cardinality(c.emails) > 0 AND c.phone IS NOT NULL AND c.website IS NOT NULL`),
    )
    for (const r of p.results) {
      expect(r.email.length).toBeGreaterThan(0)
      expect(r.phone).not.toBeNull()
      expect(r.website).not.toBeNull()
    }
    const any = await preview('category=1')
    const main = await preview('category=1&main_activity_only=true')
    expect(main.totalCount).toBe(await count('c.main_category_id = 1'))
    expect(any.totalCount).toBe(await count('1 = ANY(c.category_ids)'))
    expect(main.totalCount).toBeLessThan(any.totalCount)
    for (const r of main.results) expect(r.categories[0]).toBe('Restaurant')
  })

  it('a state together with one of its cities counts only that city', async () => {
    const { rows } = await svc.deps.db.query<{ id: number; level1_id: number; name: string }>(
      `SELECT l3.id, l3.level1_id, l3.name FROM level3_locations l3
       JOIN level1_locations l1 ON l1.id = l3.level1_id WHERE l1.code = 'FR-IDF' AND l3.name = 'Paris'`,
    )
    const paris = rows[0]!
    const state = await preview(`level1_location=${paris.level1_id}`)
    const narrowed = await preview(`level1_location=${paris.level1_id}&level3_location=${paris.id}`)
    expect(narrowed.totalCount).toBe(await count('c.level3_id = $1', [paris.id]))
    expect(narrowed.totalCount).toBeLessThan(state.totalCount)
    expect(narrowed.results.every((r) => r.city === 'Paris' && r.level1_location === 'Île-de-France')).toBe(true)
  })

  it('localizes category names with lang', async () => {
    const en = await preview('countries=DE&category=16&main_activity_only=true')
    const de = await preview('countries=DE&category=16&main_activity_only=true&lang=de')
    expect(en.results[0]!.categories[0]).toBe('Dentist')
    expect(de.results[0]!.categories[0]).toBe('Zahnarzt')
    expect(de.search_id).toBe(en.search_id)
  })

  it('paginates 50 rows per page; a page past the end is 404', async () => {
    const first = await preview('countries=US&paginate=true')
    expect(first).toMatchObject({ page: 1, page_size: 50 })
    expect(first.results).toHaveLength(50)
    const second = await preview('countries=US&paginate=true&page=2')
    expect(second.results).toHaveLength(50)
    expect(second.results[0]!.place_id).not.toBe(first.results[0]!.place_id)
    expect(new Set([...first.results, ...second.results].map((r) => r.place_id)).size).toBe(100)
    const lastPage = Math.ceil(first.totalCount / 50)
    const last = await preview(`countries=US&paginate=true&page=${lastPage}`)
    expect(last.results).toHaveLength(first.totalCount - (lastPage - 1) * 50)
    const past = await svc.request(`/api/companies/?countries=US&paginate=true&page=${lastPage + 1}`, { token: user.access })
    expect(past.status).toBe(404)
    expect(await body(past)).toEqual({ detail: expect.any(String), code: expect.any(String) })
    // no match at all: page 1 is an empty page, not an error
    const empty = await preview('countries=DE&level1_location=1&paginate=true')
    expect(empty).toMatchObject({ totalCount: 0, results: [] })
  })

  it('counts only companies created up to the service clock; fresh ones appear when created', async () => {
    const before = await preview('countries=NL')
    await insertGeneratedCompanies(svc.deps.db, { count: 25, countries: ['NL'], createdAt: svc.deps.clock.now() })
    const fresh = await preview('countries=NL')
    expect(fresh.totalCount).toBe(before.totalCount + 25)
    const future = new Date(svc.deps.clock.now().getTime() + 2 * 3600_000)
    await insertGeneratedCompanies(svc.deps.db, { count: 7, countries: ['NL'], createdAt: future })
    expect((await preview('countries=NL')).totalCount).toBe(fresh.totalCount)
    expect((await preview('countries=NL&category=1,2,3,4,5')).totalCount).toBe(
      await count(`c.country_code = 'NL' AND c.category_ids && '{1,2,3,4,5}' AND c.created_at <= $1`, [svc.deps.clock.now()]),
    )
    await advanceClock(svc, 3 * 3600)
    // the access token has expired meanwhile (60 minutes): log in again
    user = { ...user, ...(await login(svc, user.email, user.password)) }
    expect((await preview('countries=NL')).totalCount).toBe(fresh.totalCount + 7)
  })

  it('rejects bad filters with one message list per field', async () => {
    const res = await svc.request(
      '/api/companies/?countries=Germany&category=abc&level3_location=0&email=perhaps&paginate=maybe&page=-1&lang=xx',
      { token: user.access },
    )
    expect(res.status).toBe(400)
    const { detail, errors } = await body<{ detail: string; errors: Record<string, string[]> }>(res)
    expect(detail).toEqual(expect.any(String))
    expect(Object.keys(errors).sort()).toEqual(['category', 'countries', 'email', 'lang', 'level3_location', 'page', 'paginate'].sort())
    const tooMany = Array.from({ length: 51 }, (_, i) => i + 1).join(',')
    expect((await svc.request(`/api/companies/?category=${tooMany}`, { token: user.access })).status).toBe(400)
    expect((await svc.request('/api/companies/?level1_location=99999999999', { token: user.access })).status).toBe(400)
  })

  it('unknown but well-formed ids simply match nothing', async () => {
    const p = await preview('countries=ZZ&category=999999')
    expect(p).toMatchObject({ totalCount: 0, results: [] })
  })

  it('needs a credential; a bad token is token_not_valid', async () => {
    const missing = await svc.request('/api/companies/?countries=DE')
    expect(missing.status).toBe(401)
    const bad = await svc.request('/api/companies/?countries=DE', { token: 'a.b.c' })
    expect(bad.status).toBe(401)
    expect(await body(bad)).toMatchObject({ code: 'token_not_valid' })
  })
})
