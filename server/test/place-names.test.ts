import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { fold, matchRank } from '../src/lib/name-match.ts'
import { seedIfEmpty } from '../src/seed/index.ts'
import { startTestService, type TestService } from './helpers.ts'
import { body, signUp } from './account-helpers.ts'

/**
 * Issue 25: places found by their names in other languages (extension `place_names`: Munich,
 * Monachium and מינכן for München) and ranked as a person expects ("Mü": München before Dortmund).
 * The interface profile (SERVICE_PROFILE=interface) answers this endpoint without a body, as part 4.6
 * writes it.
 */

let svc: TestService
let iface: TestService
let token: string
beforeAll(async () => {
  ;[svc, iface] = await Promise.all([startTestService(), startTestService({ serviceProfile: 'interface' })])
  token = (await signUp(svc)).access
})
afterAll(async () => {
  await Promise.all([svc?.close(), iface?.close()])
})

interface Match {
  id: number | string
  name: string
  level: 1 | 2 | 3
  country: string
  level1_name?: string
  level2_name?: string
  matched_name?: string
}
interface SearchResult {
  level1: Match[]
  level2: Match[]
  level3: Match[]
}

async function search(query: string): Promise<SearchResult> {
  const res = await svc.request(`/api/locations/search/?${query}`, { token })
  expect(res.status, `${query}: ${res.status}`).toBe(200)
  return body<SearchResult>(res)
}
const names = (matches: Match[]) => matches.map((m) => (m.matched_name ? `${m.name} (${m.matched_name})` : m.name))

/** The rank the service gives each of these names, as matchRank numbers them (a test of its own below). */
const ranks = (matches: Match[], q: string) => matches.map((m) => matchRank(fold(m.matched_name ?? m.name), fold(q)))
const sorted = (xs: (number | null)[]) => [...xs].sort((a, b) => (a ?? 9) - (b ?? 9))

describe('matchRank', () => {
  it('ranks the whole name, its first words, its start, a later whole word, a later word start, then inside a word', () => {
    const rank = (name: string, q: string) => matchRank(fold(name), fold(q))
    expect(rank('München', 'munchen')).toBe(0)
    expect(rank('Frankfurt am Main', 'Frankfurt')).toBe(1)
    expect(rank('München', 'Mü')).toBe(2)
    expect(rank('Landkreis München', 'München')).toBe(3)
    expect(rank('Garching bei München', 'Mü')).toBe(4)
    expect(rank('Dortmund', 'Mü')).toBe(5)
    expect(rank('Dortmund', 'Köln')).toBeNull()
  })
})

describe('places by their names in other languages', () => {
  it('"Munich" finds München, the city and the county named as it, with the name that matched', async () => {
    const r = await search('q=Munich')
    expect(r.level3).toEqual([
      {
        id: expect.any(String),
        name: 'München',
        level: 3,
        country: 'DE',
        level1_id: expect.any(Number),
        level1_name: 'Bayern',
        level2_id: expect.any(Number),
        level2_name: 'München',
        matched_name: 'Munich',
      },
    ])
    expect(names(r.level2)).toEqual(['München (Munich)'])
    expect(r.level1).toEqual([])
  })

  it('"Cologne" finds Köln; "Bavaria" finds Bayern; Hebrew "מינכן" finds München', async () => {
    expect(names((await search('q=Cologne')).level3)).toEqual(['Köln (Cologne)'])
    expect(names((await search('q=Bavaria&country=DE')).level1)).toEqual(['Bayern (Bavaria)'])
    expect(names((await search(`q=${encodeURIComponent('מינכן')}`)).level3)).toEqual(['München (מינכן)'])
  })

  it('"Monachium" (Polish) finds München whatever the reader\'s language, and without one', async () => {
    for (const lng of ['', '&lng=pl', '&lng=de']) {
      expect(names((await search(`q=Monachium${lng}`)).level3), lng).toEqual(['München (Monachium)'])
    }
  })

  it('names the matched name after the reader\'s language, then English: "Colo" is Colonia in Spanish, Cologne otherwise', async () => {
    const koeln = async (query: string) => (await search(query)).level3.find((m) => m.name === 'Köln')?.matched_name
    expect(await koeln('q=Colo&country=DE')).toBe('Cologne')
    expect(await koeln('q=Colo&country=DE&lng=es')).toBe('Colonia')
    expect(await koeln('q=Colo&country=DE&lng=pt')).toBe('Colônia')
  })

  it("a place its own name finds carries no matched_name, even where another language's name matches better", async () => {
    const own = await search('q=München&country=DE')
    expect(own.level3[0]).toMatchObject({ name: 'München' })
    expect(own.level3[0]).not.toHaveProperty('matched_name')
    // "lodz" starts the Lithuanian name of Aleksandrów Łódzki, and only a later word of its own
    const lodz = await search('q=lodz&country=PL')
    expect(names(lodz.level3)).toEqual(['Łódź', 'Aleksandrów Łódzki'])
  })

  it("ranks other languages' names after the places' own at the same rank, unless in the reader's language", async () => {
    const cities = async (query: string) => names((await search(query)).level3)
    const without = await cities('q=Mon')
    const munich = without.indexOf('München (Monachium)')
    expect(munich).toBeGreaterThan(0)
    // every place before it starts with "Mon" in its own name
    expect(without.slice(0, munich).every((n) => fold(n).startsWith('mon'))).toBe(true)
    expect((await cities('q=Mon&lng=pl')).indexOf('München (Monachium)')).toBeLessThan(munich)
  })

  it('refuses a language the service does not know', async () => {
    const res = await svc.request('/api/locations/search/?q=Munich&lng=xx', { token })
    expect(res.status).toBe(400)
    expect(Object.keys((await body<{ errors: Record<string, string[]> }>(res)).errors)).toEqual(['lng'])
  })
})

describe('ranking as a person expects', () => {
  it('"Mü" lists München first on every level it is on, before Dortmund (which only contains "mu")', async () => {
    for (const query of ['q=M%C3%BC', 'q=M%C3%BC&country=DE']) {
      const r = await search(query)
      for (const level of [r.level2, r.level3]) {
        const listed = names(level)
        expect(listed[0], query).toBe('München')
        if (listed.includes('Dortmund')) expect(listed.indexOf('Dortmund')).toBeGreaterThan(listed.indexOf('Landkreis München'))
        expect(ranks(level, 'Mü')).toEqual(sorted(ranks(level, 'Mü')))
      }
    }
    const de = await search('q=M%C3%BC&country=DE')
    expect(names(de.level3)).toEqual(['München', 'Garching bei München', 'Dortmund'])
  })

  it('an exact name before longer ones starting with it; a whole later word before a word merely starting with the query', async () => {
    const york = await search('q=york&country=GB')
    expect(names(york.level3)[0]).toBe('York')
    const muenchen = await search('q=M%C3%BCnchen&country=DE')
    expect(names(muenchen.level2)).toEqual(['München', 'Landkreis München'])
    expect(names(muenchen.level3)).toEqual(['München', 'Garching bei München'])
  })

  it('at the same rank the bigger place first: "Mu" lists München before Mumbles', async () => {
    const r = await search('q=Mu')
    const listed = names(r.level3)
    expect(listed.indexOf('München')).toBeLessThan(listed.indexOf('Mumbles'))
    const sizes = await svc.deps.db.query<{ name: string; n: number }>(
      `SELECT l3.name, sum(c.n)::int AS n FROM company_counts c JOIN level3_locations l3 ON l3.id = c.level3_id
        WHERE l3.name IN ('München', 'Mumbles') GROUP BY l3.name`,
    )
    const n = Object.fromEntries(sizes.rows.map((row) => [row.name, row.n]))
    expect(n.München).toBeGreaterThan(n.Mumbles ?? 0)
  })
})

describe('the seed', () => {
  it("keeps names per place and language; a county named as its city has the city's names", async () => {
    const rows = async (level: number, name: string) =>
      (
        await svc.deps.db.query<{ lng: string; name: string }>(
          `SELECT n.lng, n.name FROM place_names n
             JOIN level${level}_locations p ON p.id = n.place_id
            WHERE n.level = $1 AND p.name = $2 AND p.country_code = 'DE' ORDER BY n.lng`,
          [level, name],
        )
      ).rows
    const city = await rows(3, 'München')
    expect(city).toContainEqual({ lng: 'en', name: 'Munich' })
    expect(city).toContainEqual({ lng: 'pl', name: 'Monachium' })
    expect(await rows(2, 'München')).toEqual(city)
    expect(await rows(2, 'Landkreis München')).toEqual([])
  })

  it('a database seeded before the table existed gets the names at its next start', async () => {
    const count = async () => (await svc.deps.db.query<{ n: number }>('SELECT count(*)::int AS n FROM place_names')).rows[0]!.n
    const before = await count()
    expect(before).toBeGreaterThan(1000)
    await svc.deps.db.query('DELETE FROM place_names')
    await seedIfEmpty(svc.deps.db, svc.deps.config, svc.deps.clock)
    expect(await count()).toBe(before)
    // a start that finds them leaves them be
    await seedIfEmpty(svc.deps.db, svc.deps.config, svc.deps.clock)
    expect(await count()).toBe(before)
  })
})

describe('the extension', () => {
  it('is listed at /api/capabilities/ and documented as one in /api/schema/', async () => {
    const caps = await body<Record<string, unknown>>(await svc.request('/api/capabilities/', { token }))
    expect(caps.place_names).toEqual({ version: 1 })
    type Schema = { 'x-extension'?: boolean }
    const doc = await body<{
      components: { schemas: Record<string, { properties: Record<string, Schema> }> }
      paths: Record<string, Record<string, { parameters: { name: string; schema: Schema }[] }>>
    }>(await svc.request('/api/schema/'))
    expect(doc.components.schemas.PlaceMatch!.properties.matched_name!['x-extension']).toBe(true)
    const lng = doc.paths['/api/locations/search']!.get!.parameters.find((p) => p.name === 'lng')
    expect(lng?.schema['x-extension']).toBe(true)
  })

  it('the interface profile answers the search without a body, so without matched_name', async () => {
    const u = await signUp(iface)
    const res = await iface.request('/api/locations/search/?q=Munich', { token: u.access })
    expect(res.status).toBe(200)
    expect(await res.text()).toBe('')
    expect((await iface.request('/api/capabilities/', { token: u.access })).status).toBe(404)
  })
})
