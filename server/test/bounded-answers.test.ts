import { randomBytes } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openDb, type Queryable } from '../src/db/db.ts'
import { countQuery } from '../src/modules/search/company-counts.ts'
import { filtersWhere, normaliseFilters, type Filters } from '../src/modules/search/filters.ts'
import { aggregateFacetsSql } from '../src/modules/search/facets.ts'
import { insertGeneratedCompanies, mulberry32 } from '../src/seed/companies.ts'
import { advanceClock, body, paidUser, preview, startExport, waitForExport, type TestUser } from './account-helpers.ts'
import { startTestService, type TestService } from './helpers.ts'

/**
 * Issue 24: previews, facets, owned counts and export counts are answered from counts kept beside the
 * companies (migration 025), never by a pass over them, and give exactly what a plain count of the
 * companies gives: on random filter sets, after companies are added (the test hook), changed and
 * deleted by hand, and with a clock behind the newest company. On PGlite and on PostgreSQL.
 */

let svc: TestService
let owner: TestUser
beforeAll(async () => {
  svc = await startTestService()
  owner = await paidUser(svc, 1_000_000)
})
afterAll(() => svc?.close())

const COUNTRIES = ['US', 'GB', 'DE', 'FR', 'ES', 'IL', 'TH', 'IT', 'NL', 'PL']

const serviceNow = async () =>
  new Date((await body<{ now: string }>(await svc.request('/api/_test/clock/', { method: 'POST', json: { advance_seconds: 0 } }))).now)

const query = (f: Filters) => {
  const q = new URLSearchParams()
  for (const c of f.countries) q.append('countries', c)
  for (const c of f.category) q.append('category', String(c))
  for (const id of f.level1_location) q.append('level1_location', String(id))
  for (const id of f.level2_location) q.append('level2_location', String(id))
  for (const id of f.level3_location) q.append('level3_location', String(id))
  if (f.email) q.set('email', 'true')
  if (f.phone_number) q.set('phone_number', 'true')
  if (f.website) q.set('website', 'true')
  if (f.main_activity_only) q.set('main_activity_only', 'true')
  return q.toString()
}

async function randomFilterSets(seed: number, n: number): Promise<Filters[]> {
  const { rows: places } = await svc.deps.db.query<{ id: number; level1_id: number; level2_id: number; country: string }>(
    'SELECT id, level1_id, level2_id, country_code AS country FROM level3_locations ORDER BY id',
  )
  const { rows: cats } = await svc.deps.db.query<{ id: number }>('SELECT id FROM categories ORDER BY id')
  const rand = mulberry32(seed)
  const some = <T>(items: readonly T[], max: number) =>
    Array.from({ length: Math.floor(rand() * (max + 1)) }, () => items[Math.floor(rand() * items.length)]!)
  // everyday categories most of the time (the seed's first ones), any of them sometimes
  const category = () => (rand() < 0.7 ? cats[Math.floor(rand() * 8)]! : cats[Math.floor(rand() * cats.length)]!).id
  return Array.from({ length: n }, () => {
    const countries = some(COUNTRIES, 2)
    const inCountries = countries.length ? places.filter((p) => countries.includes(p.country.trim())) : places
    return normaliseFilters({
      countries,
      category: rand() < 0.6 ? Array.from({ length: 1 + Math.floor(rand() * 3) }, category) : [],
      level1_location: rand() < 0.3 ? some(inCountries, 2).map((p) => p.level1_id) : [],
      level2_location: rand() < 0.2 ? some(inCountries, 2).map((p) => p.level2_id) : [],
      level3_location: rand() < 0.25 ? some(inCountries, 3).map((p) => p.id) : [],
      email: rand() < 0.4,
      phone_number: rand() < 0.25,
      website: rand() < 0.25,
      main_activity_only: rand() < 0.25,
    })
  })
}

/** The companies matching `f` at `now`, counted one by one: what every answer must equal. */
async function plain(f: Filters, now: Date, ownedBy?: number) {
  const w = filtersWhere(f, 2)
  const owned = ownedBy ? ` AND c.id IN (SELECT unnest(company_ids) FROM export_leads WHERE user_id = ${ownedBy})` : ''
  const from = `FROM companies c WHERE c.created_at <= $1 AND ${w.sql}${owned}`
  const params = [now.toISOString(), ...w.params]
  const { db } = svc.deps
  const totals = (
    await db.query<{ n: number; e: number; p: number; w: number }>(
      `SELECT count(*)::int AS n, count(*) FILTER (WHERE c.has_email)::int AS e, count(*) FILTER (WHERE c.has_phone)::int AS p,
              count(*) FILTER (WHERE c.has_website)::int AS w ${from}`,
      params,
    )
  ).rows[0]!
  const top = (rows: { id: number; n: number }[], chosen: number[]) =>
    rows
      .filter((r) => r.n > 0 && (!chosen.length || chosen.includes(r.id)))
      .sort((a, b) => b.n - a.n || a.id - b.id)
      .slice(0, 8)
      .map((r) => ({ id: r.id, count: r.n }))
  const regions = (await db.query<{ id: number; n: number }>(`SELECT c.level1_id AS id, count(*)::int AS n ${from} GROUP BY 1`, params))
    .rows
  const categories = (
    await db.query<{ id: number; n: number }>(
      f.main_activity_only
        ? `SELECT c.main_category_id AS id, count(*)::int AS n ${from} GROUP BY 1`
        : `SELECT u.id, count(DISTINCT c.id)::int AS n FROM companies c CROSS JOIN LATERAL unnest(c.category_ids) u(id)
            WHERE c.created_at <= $1 AND ${w.sql}${owned} GROUP BY 1`,
      params,
    )
  ).rows
  return { ...totals, level1: top(regions, f.level1_location), categories: top(categories, f.category) }
}

interface Facets {
  totalCount: number
  with_email: number
  with_phone: number
  with_website: number
  level1: { id: number; count: number }[] | null
  categories: { id: number; count: number }[]
}

async function expectAnswersEqualPlainCounts(filterSets: Filters[]) {
  const now = await serviceNow()
  for (const f of filterSets) {
    const expected = await plain(f, now)
    const label = JSON.stringify(f)
    expect((await preview(svc, owner.access, query(f))).totalCount, label).toBe(expected.n)
    const facets = await body<Facets>(await svc.request(`/api/companies/facets/?${query(f)}`, { token: owner.access }))
    expect(
      {
        n: facets.totalCount,
        e: facets.with_email,
        p: facets.with_phone,
        w: facets.with_website,
        categories: facets.categories.map(({ id, count }) => ({ id, count })),
      },
      label,
    ).toEqual({ n: expected.n, e: expected.e, p: expected.p, w: expected.w, categories: expected.categories })
    const narrowable = !f.level2_location.length && !f.level3_location.length
    expect(facets.level1?.map(({ id, count }) => ({ id, count })) ?? null, label).toEqual(narrowable ? expected.level1 : null)
    const owned = await body<{ totalCount: number; owned_count: number }>(
      await svc.request(`/api/companies/owned/?${query(f)}`, { token: owner.access }),
    )
    expect(owned, label).toMatchObject({ totalCount: expected.n, owned_count: (await plain(f, now, owner.id)).n })
  }
}

describe('answers from the kept counts (issue 24)', () => {
  it('previews, facets and owned counts equal a plain count of the companies on random filter sets', async () => {
    // the account owns what a few overlapping exports hold
    for (const [q, cap] of [
      ['countries=DE', 400],
      ['countries=DE&email=true', null],
      ['category=1', 300],
      ['countries=FR,NL&website=true', 200],
    ] as const) {
      const p = await preview(svc, owner.access, q)
      const res = await startExport(svc, owner.access, { search_id: p.search_id, export_format: 'csv', ...(cap ? { max_leads: cap } : {}) })
      expect(res.status, await res.clone().text()).toBe(202)
    }
    await expectAnswersEqualPlainCounts(await randomFilterSets(24, 40))
  })

  it('stay equal after companies are added, changed and deleted, whoever writes them', async () => {
    await advanceClock(svc, 60)
    // the test hook (the service's own insert) and statements by hand: the counts follow by triggers
    const res = await svc.request('/api/_test/new-companies/', {
      method: 'POST',
      token: owner.access,
      json: { count: 150, countries: ['DE', 'IL'] },
    })
    expect(res.status).toBe(201)
    const { db } = svc.deps
    await db.query(
      `UPDATE companies SET has_email = NOT has_email,
              category_ids = CASE WHEN 5 = ANY(category_ids) AND cardinality(category_ids) > 1 THEN array_remove(category_ids, 5)
                                  WHEN 5 = ANY(category_ids) THEN category_ids ELSE array_append(category_ids, 5) END,
              level3_id = (SELECT min(id) FROM level3_locations l WHERE l.level2_id = companies.level2_id)
        WHERE id % 37 = 0`,
    )
    await db.query('UPDATE companies SET main_category_id = 3 WHERE id % 41 = 0')
    await db.query('DELETE FROM companies WHERE id % 53 = 0')
    // an export of the account holding changed and deleted companies is forgotten by hand
    await db.query(`DELETE FROM export_leads WHERE export_id = (SELECT min(export_id) FROM export_leads WHERE user_id = $1)`, [owner.id])
    await expectAnswersEqualPlainCounts(await randomFilterSets(2024, 30))
  })

  it('a company whose categories repeat one (which the counts would count twice) is refused, by whoever writes it', async () => {
    const { db } = svc.deps
    await expect(
      db.query('UPDATE companies SET category_ids = category_ids || category_ids[1] WHERE id = (SELECT min(id) FROM companies)'),
    ).rejects.toMatchObject({
      code: '23514',
    })
    await expect(
      db.query('UPDATE companies SET category_ids = category_ids || NULL::int WHERE id = (SELECT min(id) FROM companies)'),
    ).rejects.toMatchObject({
      code: '23514',
    })
  })

  it('exports count and record exactly the plain count, skipping what the account owns when asked', async () => {
    const u = await paidUser(svc, 1_000_000)
    const now = await serviceNow()
    for (const f of await randomFilterSets(7, 12)) {
      const expected = (await plain(f, now)).n
      if (expected === 0) continue
      const p = await preview(svc, u.access, query(f))
      const skip = f.email
      const owned = skip ? (await plain(f, now, u.id)).n : 0
      if (expected - owned === 0) continue
      const res = await startExport(svc, u.access, { search_id: p.search_id, export_format: 'csv', ...(skip ? { skip_owned: true } : {}) })
      expect(res.status, await res.clone().text()).toBe(202)
      const started = await body<{ search_id: number; lead_count: number; skipped_owned?: number }>(res)
      expect(started.lead_count, JSON.stringify(f)).toBe(expected - owned)
      if (skip) expect(started.skipped_owned).toBe(owned)
      const listed = (
        await svc.deps.db.query<{ n: number }>(
          'SELECT coalesce(sum(cardinality(company_ids)), 0)::int AS n FROM export_leads WHERE export_id = $1',
          [started.search_id],
        )
      ).rows[0]!.n
      expect(listed).toBe(started.lead_count)
      expect((await waitForExport(svc, u.access, started.search_id)).status).toBe('COMPLETED')
    }
  })

  it('count the companies themselves while the clock is behind the newest company, and agree with them', async () => {
    const now = await serviceNow()
    await insertGeneratedCompanies(svc.deps.db, { count: 40, countries: ['FR'], createdAt: new Date(now.getTime() + 3_600_000) })
    await expectAnswersEqualPlainCounts(await randomFilterSets(4242, 15))
  })
})

/** The nodes of a plan (EXPLAIN … FORMAT JSON) that read `table`, with how often each ran. */
function scansOf(plan: unknown, table: string, into: { loops: number }[] = []): { loops: number }[] {
  if (Array.isArray(plan)) plan.forEach((p) => scansOf(p, table, into))
  else if (plan && typeof plan === 'object') {
    const node = plan as Record<string, unknown>
    if (node['Relation Name'] === table) into.push({ loops: Number(node['Actual Loops'] ?? NaN) })
    for (const v of Object.values(node)) if (v && typeof v === 'object') scansOf(v, table, into)
  }
  return into
}

describe('the shape of the answers (issue 24)', () => {
  it('counts, facets and owned counts of any filter shape never read the companies table', async () => {
    const now = new Date(Date.now() + 10 * 365 * 86_400_000) // after every company: the kept counts answer
    const companyScans = async (sql: string, params: unknown[]) => {
      const { rows } = await svc.deps.db.query<{ 'QUERY PLAN': unknown }>(`EXPLAIN (ANALYZE, FORMAT JSON) ${sql}`, params)
      const plan = rows[0]!['QUERY PLAN']
      return scansOf(typeof plan === 'string' ? JSON.parse(plan) : plan, 'companies')
    }
    for (const f of await randomFilterSets(99, 25)) {
      for (const [what, q] of [
        ['count', countQuery(f, now)],
        ['owned count', countQuery(f, now, owner.id)],
        ['facets', aggregateFacetsSql(f, now, 'en')],
      ] as const) {
        // a count plans the companies' own count too, for a clock behind the data, and never runs it here
        const scans = await companyScans(q.sql, q.params)
        expect(
          scans.every((s) => s.loops === 0),
          `${what} of ${JSON.stringify(f)}: ${JSON.stringify(scans)}`,
        ).toBe(true)
        if (what === 'facets') expect(scans).toEqual([])
      }
    }
  })

  it('an export records its leads as a few rows of ids, with no row-by-row trigger on the tables it writes', async () => {
    const { rows: perRow } = await svc.deps.db.query<{ table: string; tgname: string }>(
      `SELECT tgrelid::regclass::text AS table, tgname FROM pg_trigger
        WHERE tgrelid IN ('export_leads'::regclass, 'owned_counts'::regclass, 'owned_category_counts'::regclass) AND (tgtype & 1) = 1`,
    )
    expect(perRow).toEqual([])
    const u = await paidUser(svc, 100_000)
    const p = await preview(svc, u.access, '')
    const res = await startExport(svc, u.access, { search_id: p.search_id, export_format: 'csv' })
    expect(res.status).toBe(202)
    const started = await body<{ search_id: number; lead_count: number }>(res)
    const { rows } = await svc.deps.db.query<{ n: number; ids: number }>(
      'SELECT count(*)::int AS n, sum(cardinality(company_ids))::int AS ids FROM export_leads WHERE export_id = $1',
      [started.search_id],
    )
    expect(rows[0]!.ids).toBe(started.lead_count)
    const { rows: max } = await svc.deps.db.query<{ id: number }>('SELECT max(id) AS id FROM companies')
    expect(rows[0]!.n).toBeLessThanOrEqual(Math.floor(max[0]!.id / 1024) + 1)
  })

  it('the seed loads the companies in bulk and leaves every index and constraint the migrations define', async () => {
    const tables = ['companies', 'company_counts', 'category_counts', 'category_country_counts', 'company_categories']
    const definitions = async (q: Queryable) =>
      (
        await q.query<{ def: string }>(
          `SELECT pg_get_indexdef(indexrelid) AS def FROM pg_index WHERE indrelid = ANY($1::regclass[])
           UNION ALL
           SELECT conrelid::regclass::text || ' ' || conname || ' ' || pg_get_constraintdef(oid) FROM pg_constraint WHERE conrelid = ANY($1::regclass[])
           ORDER BY 1`,
          [tables],
        )
      ).rows.map((r) => r.def)
    // a database the migrations alone made, on the same kind of server
    let fresh
    let drop = async () => undefined as void
    if (process.env.DATABASE_URL) {
      const { default: pg } = await import('pg')
      const name = `leads_fresh_${randomBytes(6).toString('hex')}`
      const admin = new pg.Client({ connectionString: process.env.DATABASE_URL })
      await admin.connect()
      await admin.query(`CREATE DATABASE ${name}`)
      const url = new URL(process.env.DATABASE_URL)
      url.pathname = `/${name}`
      fresh = await openDb({ databaseUrl: url.toString(), poolSize: 1 })
      drop = async () => {
        await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
        await admin.end()
      }
    } else {
      fresh = await openDb({ dataDir: 'memory://' })
    }
    try {
      const expected = await definitions(fresh)
      expect(expected.length).toBeGreaterThan(15)
      expect(await definitions(svc.deps.db)).toEqual(expected)
    } finally {
      await fresh.close()
      await drop()
    }
  })
})
