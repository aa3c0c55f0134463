import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { countCompanies } from '../src/modules/search/company-counts.ts'
import {
  filtersHash,
  filtersQuerySchema,
  filtersWhere,
  MAX_LIST_VALUES,
  normaliseFilters,
  type Filters,
} from '../src/modules/search/filters.ts'
import { insertGeneratedCompanies, mulberry32 } from '../src/seed/companies.ts'
import { startTestService, type TestService } from './helpers.ts'

const parse = (query: Record<string, string | string[]>) => filtersQuerySchema.safeParse(query)
const none = normaliseFilters({})

describe('filtersQuerySchema', () => {
  it('accepts repeated and comma-separated lists, upper-cases countries, reads boolean-like flags', () => {
    const r = parse({
      countries: ['de,fr', 'IL'],
      category: '5,3',
      level1_location: ['1', '2'],
      level3_location: '7',
      email: 'true',
      phone_number: '1',
      website: 'false',
      main_activity_only: '0',
      paginate: 'true',
      page: '3',
    })
    expect(r.success).toBe(true)
    expect(r.data).toMatchObject({
      countries: ['DE', 'FR', 'IL'],
      category: [5, 3],
      level1_location: [1, 2],
      level2_location: [],
      level3_location: [7],
      email: true,
      phone_number: true,
      website: false,
      main_activity_only: false,
      paginate: true,
      page: 3,
    })
  })

  it('defaults to no filters, page 1', () => {
    const r = parse({})
    expect(r.data).toMatchObject({ ...none, paginate: false, page: 1 })
  })

  it('reports every bad field under its own name', () => {
    const r = parse({
      countries: 'DEU',
      category: '0',
      level1_location: 'abc',
      level2_location: '2147483648',
      level3_location: '-4',
      email: 'maybe',
      website: 'yes please',
      paginate: 'TRUE', // exactly true, false, 1 or 0 (issue 22)
      phone_number: 'yes',
      main_activity_only: '',
      page: '0',
    })
    expect(r.success).toBe(false)
    const fields = new Set(r.error!.issues.map((i) => i.path.join('.')))
    expect([...fields].sort()).toEqual(
      [
        'category',
        'countries',
        'email',
        'level1_location',
        'level2_location',
        'level3_location',
        'main_activity_only',
        'page',
        'paginate',
        'phone_number',
        'website',
      ].sort(),
    )
  })

  it(`refuses more than ${MAX_LIST_VALUES} values in a list`, () => {
    const ids = Array.from({ length: MAX_LIST_VALUES + 1 }, (_, i) => String(i + 1))
    expect(parse({ category: ids.join(',') }).success).toBe(false)
    expect(parse({ category: ids.slice(0, MAX_LIST_VALUES) }).success).toBe(true)
  })
})

describe('normaliseFilters and filtersHash', () => {
  it('sorts and de-duplicates so that the same search hashes the same', () => {
    const a = normaliseFilters({ countries: ['fr', 'DE', 'FR'], category: [9, 2, 9], email: true })
    const b = normaliseFilters({ countries: ['DE', 'FR'], category: [2, 9], email: true, phone_number: false })
    expect(a).toEqual(b)
    expect(a.countries).toEqual(['DE', 'FR'])
    expect(filtersHash(a)).toBe(filtersHash(b))
    expect(filtersHash(a)).toMatch(/^[0-9a-f]{64}$/)
    expect(filtersHash(normaliseFilters({ ...a, email: false }))).not.toBe(filtersHash(a))
  })

  it('drops junk from stored JSON instead of trusting it', () => {
    expect(normaliseFilters({ countries: ['de', 7, 'XYZ'], category: ['3', -1, 1.5, 4], email: 'true' })).toEqual({
      ...none,
      countries: ['DE'],
      category: [3, 4],
    })
  })

  it('gives TRUE for no filters and numbers parameters from firstParam', () => {
    expect(filtersWhere(none)).toEqual({ sql: 'TRUE', params: [] })
    const w = filtersWhere(normaliseFilters({ countries: ['DE'], category: [1], email: true }), 4)
    expect(w.params).toEqual([['DE'], [1]])
    expect(w.sql).toContain('$4')
    expect(w.sql).toContain('$5')
    expect(w.sql).not.toContain('$3')
    expect(w.sql).toContain('c.has_email')
  })
})

describe('filter semantics against the seeded data', () => {
  let svc: TestService
  const now = () => svc.deps.clock.now()
  /** count through filtersWhere, the way the preview and the exports count */
  const countWhere = async (f: Filters) => {
    const w = filtersWhere(f, 2)
    const { rows } = await svc.deps.db.query<{ n: number }>(
      `SELECT count(*)::int AS n FROM companies c WHERE c.created_at <= $1 AND ${w.sql}`,
      [now().toISOString(), ...w.params],
    )
    return rows[0]!.n
  }
  /** an independent count written out by hand */
  const countSql = async (condition: string, params: unknown[] = []) => {
    const { rows } = await svc.deps.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM companies c WHERE ${condition}`, params)
    return rows[0]!.n
  }
  let state: { id: number; cities: { id: number; level2_id: number }[]; counties: number[] }

  beforeAll(async () => {
    svc = await startTestService()
    // the US state with the most cities: Illinois, Massachusetts… whichever has several counties
    const { rows } = await svc.deps.db.query<{ level1_id: number; id: number; level2_id: number }>(
      `SELECT l3.level1_id, l3.id, l3.level2_id FROM level3_locations l3
       WHERE l3.level1_id = (SELECT id FROM level1_locations WHERE code = 'US-MA') ORDER BY l3.id`,
    )
    state = {
      id: rows[0]!.level1_id,
      cities: rows.map((r) => ({ id: r.id, level2_id: r.level2_id })),
      counties: [...new Set(rows.map((r) => r.level2_id))],
    }
  })
  afterAll(async () => {
    await svc?.close()
  })

  it('a state alone means the whole state', async () => {
    const n = await countWhere(normaliseFilters({ level1_location: [state.id] }))
    expect(n).toBeGreaterThan(0)
    expect(n).toBe(await countSql('c.level1_id = $1', [state.id]))
  })

  it('a state with one of its cities narrows to that city', async () => {
    const city = state.cities[0]!
    const narrowed = await countWhere(normaliseFilters({ level1_location: [state.id], level3_location: [city.id] }))
    expect(narrowed).toBe(await countSql('c.level3_id = $1', [city.id]))
    expect(narrowed).toBeLessThan(await countSql('c.level1_id = $1', [state.id]))
  })

  it('a state with a county narrows to the county; a city in another county adds that city', async () => {
    const [countyA, countyB] = state.counties
    const cityInB = state.cities.find((c) => c.level2_id === countyB)!
    const n = await countWhere(
      normaliseFilters({ level1_location: [state.id], level2_location: [countyA!], level3_location: [cityInB.id] }),
    )
    expect(n).toBe(await countSql('c.level2_id = $1 OR c.level3_id = $2', [countyA, cityInB.id]))
  })

  it('a county with one of its cities narrows to the city', async () => {
    const city = state.cities[0]!
    const n = await countWhere(normaliseFilters({ level2_location: [city.level2_id], level3_location: [city.id] }))
    expect(n).toBe(await countSql('c.level3_id = $1', [city.id]))
  })

  it('places in other countries simply add up (OR across branches)', async () => {
    const { rows } = await svc.deps.db.query<{ id: number }>(
      `SELECT id FROM level1_locations WHERE code IN ('DE-BY', 'FR-IDF') ORDER BY id`,
    )
    const ids = rows.map((r) => r.id)
    expect(await countWhere(normaliseFilters({ level1_location: ids }))).toBe(await countSql('c.level1_id = ANY($1::int[])', [ids]))
  })

  it('lists are OR within a field and AND across fields', async () => {
    const f = normaliseFilters({ countries: ['DE', 'FR'], category: [1, 2], email: true, website: true })
    expect(await countWhere(f)).toBe(
      await countSql(
        `c.country_code IN ('DE', 'FR') AND (1 = ANY(c.category_ids) OR 2 = ANY(c.category_ids))
         AND cardinality(c.emails) > 0 AND c.website IS NOT NULL`,
      ),
    )
  })

  it('main_activity_only restricts the categories to the main one', async () => {
    const any = await countWhere(normaliseFilters({ category: [2] }))
    const main = await countWhere(normaliseFilters({ category: [2], main_activity_only: true }))
    expect(main).toBe(await countSql('c.main_category_id = 2'))
    expect(any).toBe(await countSql('2 = ANY(c.category_ids)'))
    expect(main).toBeLessThan(any)
  })

  it('the presence flags follow the data', async () => {
    expect(await countWhere(normaliseFilters({ phone_number: true }))).toBe(await countSql('c.phone IS NOT NULL'))
    expect(await countWhere(normaliseFilters({ email: true }))).toBe(await countSql('cardinality(c.emails) > 0'))
  })

  it('countCompanies (aggregate + live rows) always equals the plain count, also after fresh companies', async () => {
    const { rows: places } = await svc.deps.db.query<{ id: number; level1_id: number; level2_id: number }>(
      'SELECT id, level1_id, level2_id FROM level3_locations ORDER BY id',
    )
    const rand = mulberry32(99)
    const pick = <T>(items: readonly T[], max: number) =>
      Array.from({ length: Math.floor(rand() * (max + 1)) }, () => items[Math.floor(rand() * items.length)]!)
    const randomFilters = () =>
      normaliseFilters({
        countries: pick(['US', 'GB', 'DE', 'FR', 'ES', 'IL', 'TH', 'IT', 'NL', 'PL'], 2),
        category: rand() < 0.3 ? pick([1, 2, 3, 10, 20], 2) : [],
        level1_location: rand() < 0.3 ? pick(places, 2).map((p) => p.level1_id) : [],
        level2_location: rand() < 0.2 ? pick(places, 2).map((p) => p.level2_id) : [],
        level3_location: rand() < 0.2 ? pick(places, 2).map((p) => p.id) : [],
        email: rand() < 0.4,
        phone_number: rand() < 0.3,
        website: rand() < 0.3,
        main_activity_only: rand() < 0.2,
      })
    const check = async () => {
      for (let i = 0; i < 40; i++) {
        const f = randomFilters()
        expect((await countCompanies(svc.deps.db, f, now())).count, JSON.stringify(f)).toBe(await countWhere(f))
      }
      expect((await countCompanies(svc.deps.db, none, now())).count).toBe(await countSql('c.created_at <= $1', [now()]))
    }
    await check()
    // companies created now (the fresh-data hook) and some created in the future of the clock
    await insertGeneratedCompanies(svc.deps.db, { count: 200, createdAt: now() })
    const future = new Date(now().getTime() + 3600_000)
    await insertGeneratedCompanies(svc.deps.db, { count: 50, countries: ['DE'], createdAt: future })
    const all = await countSql('TRUE')
    const visible = (await countCompanies(svc.deps.db, none, now())).count
    expect(visible).toBe(all - 50)
    await check()
  })
})
