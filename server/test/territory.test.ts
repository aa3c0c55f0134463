import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ringSelfIntersects, territoryAreaKm2, type Territory } from '../src/lib/geometry.ts'
import { filtersHash, normaliseFilters } from '../src/modules/search/filters.ts'
import { startTestService, type TestService } from './helpers.ts'
import { advanceClock, body, paidUser, parseCsv, preview, startExport, waitForExport, type TestUser } from './account-helpers.ts'

/** Issue 26: a search narrowed to a polygon (`within`) or a circle (`near`) counts, exports and refreshes the same leads. */

let svc: TestService
let u: TestUser
/** The seed's busiest city: its companies lie within a few km of its centre. */
let city: { lat: number; lng: number; country: string }
beforeAll(async () => {
  svc = await startTestService()
  u = await paidUser(svc, 100_000)
  const { rows } = await svc.deps.db.query<{ latitude: number; longitude: number; country_code: string }>(
    `SELECT l3.latitude, l3.longitude, l3.country_code FROM companies c JOIN level3_locations l3 ON l3.id = c.level3_id
      GROUP BY l3.id ORDER BY count(*) DESC, l3.id LIMIT 1`,
  )
  city = { lat: rows[0]!.latitude, lng: rows[0]!.longitude, country: rows[0]!.country_code.trim() }
})
afterAll(async () => {
  await svc?.close()
})

type Position = [number, number]

/** Ray casting, written apart from the service's SQL: whether [lng, lat] is inside the ring. */
function inRing([x, y]: Position, ring: Position[]): boolean {
  let inside = false
  for (let i = 0, j = ring.length - 1; i < ring.length; j = i++) {
    const [xi, yi] = ring[i]!
    const [xj, yj] = ring[j]!
    if (yi > y !== yj > y && x < ((xj - xi) * (y - yi)) / (yj - yi) + xi) inside = !inside
  }
  return inside
}
function inTerritory(p: Position, t: Territory): boolean {
  const polygons = t.type === 'Polygon' ? [t.coordinates] : t.coordinates
  return polygons.some(([outer, ...holes]) => inRing(p, outer as Position[]) && !holes.some((h) => inRing(p, h as Position[])))
}
function distanceKm(lat1: number, lng1: number, lat2: number, lng2: number): number {
  const r = (d: number) => (d * Math.PI) / 180
  const a = Math.sin(r(lat2 - lat1) / 2) ** 2 + Math.cos(r(lat1)) * Math.cos(r(lat2)) * Math.sin(r(lng2 - lng1) / 2) ** 2
  return 2 * 6371.0088 * Math.asin(Math.sqrt(a))
}

interface Company {
  place_id: string
  latitude: number
  longitude: number
  created_at: Date
}
async function companies(): Promise<Company[]> {
  return (await svc.deps.db.query<Company>('SELECT place_id, latitude, longitude, created_at FROM companies ORDER BY id')).rows
}

const square = (lat: number, lng: number, d: number): Position[] => [
  [lng - d, lat - d],
  [lng + d, lat - d],
  [lng + d, lat + d],
  [lng - d, lat + d],
  [lng - d, lat - d],
]

const q = (params: Record<string, string>) => new URLSearchParams(params).toString()

async function exportedPlaceIds(id: number): Promise<{ ids: string[]; positions: Position[] }> {
  const d = await body<{ download_url: string }>(await svc.request(`/api/download-completed-csv/${id}/`, { token: u.access }))
  const [header, ...rows] = parseCsv(await (await fetch(d.download_url)).text())
  const [at, lat, lng] = ['place_id', 'latitude', 'longitude'].map((c) => header!.indexOf(c))
  return { ids: rows.map((r) => r[at!]!), positions: rows.map((r) => [Number(r[lng!]), Number(r[lat!])]) }
}

const delta = (id: number, json: Record<string, unknown>) =>
  svc.request(`/api/user/search-history/${id}/download-delta/`, { method: 'POST', token: u.access, json })

/**
 * The same territory in the preview, the facets, the owned count, an export's file, its history
 * entry and a fresh-data export from it, each against the companies counted apart in JavaScript.
 */
async function sameEverywhere(territory: Record<string, string>, inside: (c: Company) => boolean) {
  const now = svc.deps.clock.now()
  const expected = (await companies()).filter((c) => new Date(c.created_at) <= now && inside(c))
  expect(expected.length, 'the territory holds some of the seed').toBeGreaterThan(5)
  const query = q({ countries: city.country, ...territory })

  const p = await preview(svc, u.access, query)
  expect(p.totalCount).toBe(expected.length)
  const facets = await body<{ totalCount: number }>(await svc.request(`/api/companies/facets/?${query}`, { token: u.access }))
  expect(facets.totalCount).toBe(expected.length)
  const owned = await body<{ totalCount: number }>(await svc.request(`/api/companies/owned/?${query}`, { token: u.access }))
  expect(owned.totalCount).toBe(expected.length)

  const started = await body<{ search_id: number; lead_count: number }>(
    await startExport(svc, u.access, { search_id: p.search_id, export_format: 'csv' }),
  )
  expect(started.lead_count).toBe(expected.length)
  expect((await waitForExport(svc, u.access, started.search_id)).status).toBe('COMPLETED')
  const file = await exportedPlaceIds(started.search_id)
  expect(file.ids.sort()).toEqual(expected.map((c) => c.place_id).sort())

  // the history entry keeps the territory, and fresh data from it holds only the new companies inside
  const entry = await body<{ filters: Record<string, unknown> }>(
    await svc.request(`/api/user/search-history/${started.search_id}/`, { token: u.access }),
  )
  const kept = normaliseFilters(entry.filters)
  expect(filtersHash(kept)).toBe(filtersHash(normaliseFilters({ countries: [city.country], ...parsed(territory) })))
  await advanceClock(svc, 60)
  const added = await svc.request('/api/_test/new-companies/', {
    method: 'POST',
    token: u.access,
    json: { count: 400, countries: [city.country] },
  })
  expect(added.status).toBe(201)
  const cutOff = new Date(svc.deps.clock.now().getTime() - 30_000)
  const fresh = (await companies()).filter((c) => new Date(c.created_at) > cutOff && inside(c))
  expect(fresh.length, 'some new companies fall inside').toBeGreaterThan(0)
  const dry = await body<{ validation_code: string; lead_count: number }>(await delta(started.search_id, { dry_run: true }))
  expect(dry).toMatchObject({ validation_code: 'ok', lead_count: fresh.length })
  const go = await body<{ search_id: number; lead_count: number }>(await delta(started.search_id, {}))
  expect(go.lead_count).toBe(fresh.length)
  expect((await waitForExport(svc, u.access, go.search_id)).status).toBe('COMPLETED')
  expect((await exportedPlaceIds(go.search_id)).ids.sort()).toEqual(fresh.map((c) => c.place_id).sort())
  return file
}

const parsed = (territory: Record<string, string>) => {
  if (territory.within) return { within: JSON.parse(territory.within) as unknown }
  const [lat, lng, radius_km] = territory.near!.split(',').map(Number)
  return { near: { lat, lng, radius_km } }
}

describe('within: a polygon', () => {
  it('counts, exports and refreshes exactly the companies inside it (holes left out)', async () => {
    // a square around the city's centre with a square hole in its middle, and a second square beside it
    const within: Territory = {
      type: 'MultiPolygon',
      coordinates: [[square(city.lat, city.lng, 0.012), square(city.lat, city.lng, 0.004)], [square(city.lat + 0.02, city.lng, 0.006)]],
    }
    const file = await sameEverywhere({ within: JSON.stringify(within) }, (c) => inTerritory([c.longitude, c.latitude], within))
    // the file's own coordinates are inside too
    expect(file.positions.every((p) => inTerritory(p, within))).toBe(true)
  })
})

describe('near: a radius', () => {
  it('counts, exports and refreshes exactly the companies within the great-circle distance', async () => {
    const radius = 1.2
    const file = await sameEverywhere(
      { near: `${city.lat},${city.lng},${radius}` },
      (c) => distanceKm(city.lat, city.lng, c.latitude, c.longitude) <= radius,
    )
    expect(file.positions.every(([lng, lat]) => distanceKm(city.lat, city.lng, lat, lng) <= radius + 1e-6)).toBe(true)
  })
})

describe('bad territories', () => {
  const polygon = (coordinates: unknown) => JSON.stringify({ type: 'Polygon', coordinates })
  const ask = async (query: string) => {
    const res = await svc.request(`/api/companies/?${query}`, { token: u.access })
    expect(res.status).toBe(400)
    return body<{ errors: Record<string, string[]>; error_codes: Record<string, { code: string }[]> }>(res)
  }
  const refused = async (field: 'within' | 'near', value: string, code: string) => {
    const answer = await ask(q({ countries: 'DE', [field]: value }))
    expect(answer.error_codes[field]!.map((e) => e.code)).toEqual([code])
    expect(answer.errors[field]![0]).toMatch(/\w{4}/)
  }

  it('names what is wrong with a polygon, on the field', async () => {
    await refused('within', '{"type":"Polygon",', 'invalid_geometry')
    await refused('within', JSON.stringify({ type: 'Point', coordinates: [11, 48] }), 'invalid_geometry')
    await refused(
      'within',
      polygon([
        [
          [0, 0],
          [1, 0],
          [1, 1],
          [0, 1],
        ],
      ]),
      'ring_not_closed',
    )
    await refused(
      'within',
      polygon([
        [
          [0, 0],
          [1, 1],
          [1, 0],
          [0, 1],
          [0, 0],
        ],
      ]),
      'self_intersection',
    )
    await refused(
      'within',
      polygon([
        [
          [0, 0],
          [200, 0],
          [1, 1],
          [0, 0],
        ],
      ]),
      'invalid_geometry',
    )
    await refused(
      'within',
      polygon([
        [
          [0, 0],
          [1, 0],
          [0, 0],
        ],
      ]),
      'invalid_geometry',
    )
    // 30° × 30° near the equator: about 11 million km²
    await refused('within', polygon([square(0, 0, 15)]), 'area_too_large')
  })

  it('refuses 10,000 vertices before looking at them', async () => {
    const ring = Array.from({ length: 9999 }, (_, i) => [i % 2, Math.floor(i / 2) % 2])
    ring.push(ring[0]!)
    // sent as JSON text in the address as a client might (URLSearchParams would triple its size)
    const answer = await ask(`countries=DE&within=${polygon([ring]).replace(/"/g, '%22')}`)
    expect(answer.error_codes.within!.map((e) => e.code)).toEqual(['too_many_vertices'])
  })

  it('names what is wrong with a radius', async () => {
    await refused('near', '48.1,11.5,0', 'radius_out_of_range')
    await refused('near', '48.1,11.5,5000', 'radius_out_of_range')
    await refused('near', '48.1,11.5,-3', 'radius_out_of_range')
    await refused('near', '48.1,11.5', 'invalid_near')
    await refused('near', '95,11.5,10', 'invalid_near')
    await refused('near', 'north,11.5,10', 'invalid_near')
  })

  it('finds a crossing anywhere in a ring, and area on the sphere', () => {
    const ok: Position[] = [
      [0, 0],
      [2, 0],
      [2, 2],
      [1, 1],
      [0, 2],
      [0, 0],
    ]
    expect(ringSelfIntersects(ok)).toBe(false)
    // the same ring with its notch pushed through the bottom edge
    expect(ringSelfIntersects(ok.map(([x, y]) => (x === 1 && y === 1 ? [1, -1] : [x, y])))).toBe(true)
    // a spike folding back along its own edge
    expect(
      ringSelfIntersects([
        [0, 0],
        [2, 0],
        [1, 0],
        [1, 1],
        [0, 0],
      ]),
    ).toBe(true)
    // 1° × 1° at the equator ≈ 111.3 km × 110.6 km
    expect(territoryAreaKm2({ type: 'Polygon', coordinates: [square(0.5, 0.5, 0.5)] })).toBeCloseTo(12_364, -2)
  })
})

describe('filters hash', () => {
  it('keeps the hash of a search without a territory (stored hashes and caches stay valid)', () => {
    // computed by the filters code before territories existed
    expect(filtersHash(normaliseFilters({ countries: ['DE'], category: [3], level1_location: [2], email: true }))).toBe(
      '8a509bcebc8e710c60a296d4cf9219322b7d5838cb4d165a9fcbea86d8de8e96',
    )
    expect(filtersHash(normaliseFilters({}))).toBe('652b4863057a0176bde5827dfa4863118994452d7ed4d0b69d7f128b20154866')
  })

  it('gives one hash to one territory however it is written', () => {
    const a = {
      type: 'Polygon',
      coordinates: [
        [
          [11.0000001, 48],
          [11.2, 48],
          [11.2, 48.2],
          [11.2, 48.2],
          [11.0000001, 48],
        ],
      ],
    }
    const b = {
      coordinates: [
        [
          [11, 48],
          [11.2, 48],
          [11.2, 48.2],
          [11, 48],
        ],
      ],
      type: 'Polygon',
    }
    expect(filtersHash(normaliseFilters({ within: a }))).toBe(filtersHash(normaliseFilters({ within: b })))
    expect(filtersHash(normaliseFilters({ near: { lat: 48.1000000004, lng: 11.5, radius_km: 10 } }))).toBe(
      filtersHash(normaliseFilters({ near: { radius_km: 10, lng: 11.5, lat: 48.1 } })),
    )
    expect(filtersHash(normaliseFilters({ within: b }))).not.toBe(filtersHash(normaliseFilters({})))
  })
})
