import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestService, type TestService } from './helpers.ts'
import { body, signUp } from './account-helpers.ts'

let svc: TestService
let token: string
beforeAll(async () => {
  svc = await startTestService()
  token = (await signUp(svc)).access
})
afterAll(async () => {
  await svc?.close()
})

const get = (p: string, auth = true) => svc.request(p, auth ? { token } : {})
async function getJson<T>(p: string): Promise<T> {
  const res = await get(p)
  expect(res.status, `${p}: ${res.status}`).toBe(200)
  return body<T>(res)
}

interface Level1 {
  id: number
  name: string
  code: string
  country: string
}
interface Level2 {
  id: number
  name: string
  code: string
  level1_id: number
  level1_name: string
}
interface Level3 extends Omit<Level2, 'id'> {
  id: string
  level2_id: number
  level2_name: string
}
interface Match {
  id: number | string
  name: string
  level: 1 | 2 | 3
  country: string
  level1_id?: number
  level1_name?: string
  level2_id?: number
  level2_name?: string
}
interface SearchResult {
  level1: Match[]
  level2: Match[]
  level3: Match[]
}

describe('countries', () => {
  it('lists at least the required countries with their language and a count that adds up', async () => {
    const countries = await getJson<{ code: string; name: string; language: string; company_count: number }[]>('/api/locations/countries/')
    const codes = countries.map((c) => c.code)
    for (const code of ['US', 'GB', 'DE', 'FR', 'ES', 'IL', 'TH']) expect(codes).toContain(code)
    expect(countries.length).toBeGreaterThanOrEqual(8)
    expect(countries.find((c) => c.code === 'IL')).toMatchObject({ name: 'Israel', language: 'he' })
    expect(countries.find((c) => c.code === 'TH')).toMatchObject({ language: 'th' })
    const { rows } = await svc.deps.db.query<{ n: number }>('SELECT count(*)::int AS n FROM companies')
    expect(countries.reduce((sum, c) => sum + c.company_count, 0)).toBe(rows[0]!.n)
  })

  it('needs a credential', async () => {
    const res = await get('/api/locations/countries/', false)
    expect(res.status).toBe(401)
    expect(await body(res)).toEqual({ detail: expect.any(String), code: expect.any(String) })
  })
})

describe('level 1, 2, 3', () => {
  it('level 1 of one country (code case-insensitive), or of all', async () => {
    const de = await getJson<Level1[]>('/api/locations/level1/?country=de')
    expect(de.length).toBeGreaterThanOrEqual(5)
    expect(de.every((s) => s.country === 'DE')).toBe(true)
    expect(de.map((s) => s.name)).toContain('Bayern')
    expect(de[0]).toEqual({ id: expect.any(Number), name: expect.any(String), code: expect.stringMatching(/^DE-/), country: 'DE' })
    const all = await getJson<Level1[]>('/api/locations/level1/')
    expect(all.length).toBeGreaterThan(de.length)
    expect(await getJson<Level1[]>('/api/locations/level1/?country=')).toEqual(all)
  })

  it('level 2 narrowed by states, repeated or comma-separated', async () => {
    const us = await getJson<Level1[]>('/api/locations/level1/?country=US')
    const [a, b] = [us.find((s) => s.name === 'Illinois')!, us.find((s) => s.name === 'Texas')!]
    const repeated = await getJson<Level2[]>(`/api/locations/level2/?country=US&states=${a.id}&states=${b.id}`)
    const comma = await getJson<Level2[]>(`/api/locations/level2/?states=${a.id},${b.id}`)
    expect(comma).toEqual(repeated)
    expect(new Set(repeated.map((c) => c.level1_id))).toEqual(new Set([a.id, b.id]))
    expect(repeated.find((c) => c.name === 'Cook County')).toEqual({
      id: expect.any(Number),
      name: 'Cook County',
      code: '17031',
      level1_id: a.id,
      level1_name: 'Illinois',
    })
  })

  it('one level-2 location by id; unknown → 404, not a number → 400', async () => {
    const [county] = await getJson<Level2[]>('/api/locations/level2/?country=FR')
    expect(await getJson<Level2>(`/api/locations/level2/${county!.id}/`)).toEqual(county)
    const unknown = await get('/api/locations/level2/999999/')
    expect(unknown.status).toBe(404)
    expect(await body(unknown)).toEqual({ detail: expect.any(String), code: expect.any(String) })
    const bad = await get('/api/locations/level2/abc/')
    expect(bad.status).toBe(400)
    expect((await body<{ errors: Record<string, string[]> }>(bad)).errors.id).toBeDefined()
  })

  it('level 3 carries string ids and both parents, narrowed by states and counties', async () => {
    const [bavaria] = (await getJson<Level1[]>('/api/locations/level1/?country=DE')).filter((s) => s.code === 'DE-BY')
    const cities = await getJson<Level3[]>(`/api/locations/level3/?states=${bavaria!.id}`)
    expect(cities.length).toBeGreaterThan(3)
    expect(cities.every((c) => typeof c.id === 'string' && c.level1_id === bavaria!.id && c.level1_name === 'Bayern')).toBe(true)
    const county = cities.find((c) => c.level2_name === 'Landkreis München')!
    const inCounty = await getJson<Level3[]>(`/api/locations/level3/?states=${bavaria!.id}&counties=${county.level2_id}`)
    expect(inCounty.map((c) => c.name).sort()).toEqual(['Garching bei München', 'Ottobrunn', 'Unterschleißheim'])
  })

  it('rejects bad ids and country codes per field', async () => {
    const res = await get('/api/locations/level3/?country=Germany&states=x&counties=0')
    expect(res.status).toBe(400)
    const { errors } = await body<{ detail: string; errors: Record<string, string[]> }>(res)
    expect(Object.keys(errors).sort()).toEqual(['counties', 'country', 'states'])
  })

  it('real parentage: each city lies in its county, which lies in its state, all in one country', async () => {
    const { rows } = await svc.deps.db.query<{ bad: number }>(
      `SELECT count(*)::int AS bad FROM level3_locations l3
       JOIN level2_locations l2 ON l2.id = l3.level2_id
       WHERE l2.level1_id <> l3.level1_id OR l2.country_code <> l3.country_code`,
    )
    expect(rows[0]!.bad).toBe(0)
    const { rows: n } = await svc.deps.db.query<{ n: number }>('SELECT count(*)::int AS n FROM level3_locations')
    expect(n[0]!.n).toBeGreaterThanOrEqual(300)
  })
})

describe('cities of a country', () => {
  it('lists only cities that have companies, as {id: string, name, code}', async () => {
    const cities = await getJson<{ id: string; name: string; code: string }[]>('/api/cities/il/')
    expect(cities.length).toBeGreaterThan(5)
    expect(Object.keys(cities[0]!).sort()).toEqual(['code', 'id', 'name'])
    const { rows } = await svc.deps.db.query<{ id: number }>(`SELECT DISTINCT level3_id AS id FROM companies WHERE country_code = 'IL'`)
    expect(cities.map((c) => Number(c.id)).sort((x, y) => x - y)).toEqual(rows.map((r) => r.id).sort((x, y) => x - y))
  })

  it('unknown country → 404; not a code → 400', async () => {
    expect((await get('/api/cities/ZZ/')).status).toBe(404)
    expect((await get('/api/cities/DEU/')).status).toBe(400)
  })
})

describe('place search', () => {
  it('tells apart places that share a name by their parents', async () => {
    const r = await getJson<SearchResult>('/api/locations/search/?q=springfield&country=US')
    const springfields = r.level3.filter((m) => m.name === 'Springfield')
    expect(springfields.length).toBeGreaterThanOrEqual(3)
    expect(new Set(springfields.map((m) => m.level1_name)).size).toBe(springfields.length)
    expect(springfields[0]).toEqual({
      id: expect.any(String),
      name: 'Springfield',
      level: 3,
      country: 'US',
      level1_id: expect.any(Number),
      level1_name: expect.any(String),
      level2_id: expect.any(Number),
      level2_name: expect.any(String),
    })
  })

  it('is case- and accent-insensitive across levels', async () => {
    const r = await getJson<SearchResult>('/api/locations/search/?q=LODZ')
    expect(r.level1.map((m) => m.name)).toContain('Łódzkie')
    expect(r.level2[0]).toMatchObject({ name: 'Łódź', level: 2, country: 'PL', level1_name: 'Łódzkie' })
    expect(r.level3[0]).toMatchObject({ name: 'Łódź', level: 3, level2_name: 'Łódź' })
    expect(typeof r.level1[0]!.id).toBe('number')
  })

  it('ranks prefix matches before substring matches, at most 10 per level', async () => {
    const r = await getJson<SearchResult>('/api/locations/search/?q=an')
    for (const level of [r.level1, r.level2, r.level3]) expect(level.length).toBeLessThanOrEqual(10)
    const ranks = r.level3.map((m) => (m.name.toLowerCase().startsWith('an') ? 0 : 1))
    expect(ranks).toEqual([...ranks].sort())
    expect(ranks[0]).toBe(0)
  })

  it('narrows levels below the chosen states and counties', async () => {
    const us = await getJson<Level1[]>('/api/locations/level1/?country=US')
    const illinois = us.find((s) => s.name === 'Illinois')!
    const r = await getJson<SearchResult>(`/api/locations/search/?q=spring&states=${illinois.id}`)
    expect(r.level3.map((m) => m.level1_name)).toEqual(['Illinois'])
    const bavaria = (await getJson<Level1[]>('/api/locations/level1/?country=DE')).find((s) => s.code === 'DE-BY')!
    const county = (await getJson<Level2[]>(`/api/locations/level2/?states=${bavaria.id}`)).find((c) => c.name === 'Landkreis Starnberg')!
    const inCounty = await getJson<SearchResult>(`/api/locations/search/?q=g&counties=${county.id}`)
    expect(inCounty.level3.map((m) => m.name).sort()).toEqual(['Gauting', 'Herrsching am Ammersee', 'Starnberg'])
    expect(inCounty.level3.map((m) => m.name)[0]).toBe('Gauting') // the only prefix match comes first
    const everywhere = await getJson<SearchResult>('/api/locations/search/?q=g')
    expect(everywhere.level3.some((m) => m.level2_id !== county.id)).toBe(true)
  })

  it('refuses a NUL byte in q, country or a path code with 400 on the field', async () => {
    for (const [p, field] of [
      ['/api/locations/search/?q=ber%00', 'q'],
      ['/api/locations/search/?q=%00', 'q'],
      ['/api/locations/search/?q=ber&country=D%00', 'country'],
      ['/api/locations/level1/?country=%00E', 'country'],
      ['/api/cities/D%00/', 'country_alpha2_code'],
    ] as const) {
      const res = await get(p)
      expect(res.status, p).toBe(400)
      const { errors } = await body<{ errors: Record<string, string[]> }>(res)
      expect(errors[field], p).toEqual(expect.arrayContaining([expect.stringMatching(/NUL/)]))
    }
  })

  it('needs q of 1 to 100 characters', async () => {
    for (const q of ['', '?q=', `?q=${'a'.repeat(101)}`]) {
      const res = await get(`/api/locations/search/${q}`)
      expect(res.status, q).toBe(400)
      expect((await body<{ errors: Record<string, string[]> }>(res)).errors.q).toBeDefined()
    }
  })
})
