import { getResolution, isValidCell, latLngToCell } from 'h3-js'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { fillCompanyCells } from '../src/db/company-cells.ts'
import { cellsOf, h3Cover } from '../src/lib/geometry.ts'
import { searchCells } from '../src/modules/search/cells.ts'
import { normaliseFilters } from '../src/modules/search/filters.ts'
import { startTestService, type TestService } from './helpers.ts'
import { body, paidUser, parseCsv, preview, signUp, startExport, waitForExport, type TestUser } from './account-helpers.ts'

/** Issue 26: leads and owned leads per H3 cell of a map box (GET /api/companies/cells/, extension `geo`). */

let svc: TestService
let u: TestUser
beforeAll(async () => {
  svc = await startTestService()
  u = await paidUser(svc, 100_000)
})
afterAll(async () => {
  await svc?.close()
})

interface Cells {
  resolution: number
  cells: { h3: string; count: number; owned: number }[]
  total: number
  truncated: boolean
}

const WORLD = '-180,-90,180,90'
const cells = async (query: string, user = u) => {
  const res = await svc.request(`/api/companies/cells/?${query}`, { token: user.access })
  expect(res.status, await res.clone().text()).toBe(200)
  return body<Cells>(res)
}
const sum = (c: Cells, key: 'count' | 'owned' = 'count') => c.cells.reduce((s, cell) => s + cell[key], 0)

/** The companies' cells at a resolution, counted apart (h3-js on each position), by SQL condition. */
async function expectedCells(where: string, res: 3 | 5 | 7 | 9, params: unknown[] = []): Promise<Map<string, number>> {
  const { rows } = await svc.deps.db.query<{ latitude: number; longitude: number }>(
    `SELECT latitude, longitude FROM companies c WHERE ${where}`,
    params,
  )
  const counts = new Map<string, number>()
  for (const r of rows) {
    const cell = BigInt(cellsOf(r.latitude, r.longitude)[[3, 5, 7, 9].indexOf(res)]!).toString(16)
    counts.set(cell, (counts.get(cell) ?? 0) + 1)
  }
  return counts
}
const asMap = (c: Cells, key: 'count' | 'owned' = 'count') =>
  new Map(c.cells.filter((cell) => cell[key] > 0).map((cell) => [cell.h3, cell[key]]))

describe('the cover of a box (the index prefilter)', () => {
  it('holds the resolution-3 cell of every point of the box, its edges and corners included', async () => {
    let seed = 7
    const random = () => (seed = (seed * 16807) % 2147483647) / 2147483647
    for (let box = 0; box < 60; box++) {
      // the service shares this thread: its timers (keep-alive) run between boxes
      await new Promise((resolve) => setImmediate(resolve))
      const west = -175 + random() * 260
      const south = -78 + random() * 140
      const b = { west, south, east: Math.min(180, west + 0.05 + random() * 85), north: Math.min(80, south + 0.05 + random() * 55) }
      const cover = new Set(h3Cover(b))
      expect(cover.size).toBeGreaterThan(0)
      for (let i = 0; i < 200; i++) {
        const lat = [b.south, b.north, b.south + random() * (b.north - b.south)][i % 3]!
        const lng = i % 6 < 3 ? b.west + random() * (b.east - b.west) : [b.west, b.east][i % 2]!
        expect(cover.has(latLngToCell(lat, lng, 3)), `${JSON.stringify(b)} ${lat},${lng}`).toBe(true)
      }
    }
    // beyond what a cover saves: none, the index is read whole
    expect(h3Cover({ west: -170, south: -60, east: 170, north: 60 })).toBeNull()
  })
})

describe('capabilities and schema', () => {
  it('lists geo with its limits and documents the cells as an extension', async () => {
    const caps = await body<Record<string, Record<string, unknown>>>(await svc.request('/api/capabilities/', { token: u.access }))
    expect(caps.geo).toMatchObject({ version: 1, max_vertices: 1000, max_radius_km: 200, max_cells: 5000, resolutions: [3, 5, 7, 9] })
    const schema = await body<{ paths: Record<string, Record<string, { 'x-extension'?: boolean; parameters: { name: string }[] }>> }>(
      await svc.request('/api/schema/'),
    )
    const cellsOp = schema.paths['/api/companies/cells']!.get!
    expect(cellsOp['x-extension']).toBe(true)
    expect(cellsOp.parameters.map((p) => p.name)).toEqual(expect.arrayContaining(['bbox', 'zoom', 'within', 'near', 'countries']))
    // the territory on every search, marked as the extension it is
    const previewParams = schema.paths['/api/companies']!.get!.parameters as { name: string; schema: Record<string, unknown> }[]
    for (const name of ['within', 'near']) expect(previewParams.find((p) => p.name === name)!.schema['x-extension'], name).toBe(true)
  })
})

describe('cells', () => {
  it('add up to the preview count over a box holding the whole search, at every resolution', async () => {
    for (const query of ['countries=DE', 'countries=FR&email=true&category=1,2', 'countries=PL&near=52.23,21.01,30']) {
      const { totalCount } = await preview(svc, u.access, query)
      expect(totalCount, query).toBeGreaterThan(0)
      for (const zoom of [2, 6, 9, 12]) {
        const answer = await cells(`${query}&bbox=${WORLD}&zoom=${zoom}`)
        expect(answer.resolution).toBe(zoom <= 4 ? 3 : zoom <= 7 ? 5 : zoom <= 10 ? 7 : 9)
        expect(sum(answer), `${query} zoom ${zoom}`).toBe(totalCount)
        expect(answer.total).toBe(totalCount)
        expect(answer.truncated).toBe(false)
        for (const cell of answer.cells) {
          expect(isValidCell(cell.h3), cell.h3).toBe(true)
          expect(getResolution(cell.h3)).toBe(answer.resolution)
        }
      }
    }
  })

  it('put each company in the cell of its position, and only those of the box', async () => {
    // around Berlin at zoom 9: the box is widened to the grid of 180/2^9 degrees
    const step = 180 / 2 ** 9
    const [west, south, east, north] = [13.2, 52.4, 13.6, 52.6]
    const snapped = [
      Math.floor(west / step) * step,
      Math.floor(south / step) * step,
      Math.ceil(east / step) * step,
      Math.ceil(north / step) * step,
    ]
    const answer = await cells(`countries=DE&bbox=${[west, south, east, north].join(',')}&zoom=9`)
    const expected = await expectedCells(
      "c.country_code = 'DE' AND c.longitude BETWEEN $1 AND $3 AND c.latitude BETWEEN $2 AND $4",
      7,
      snapped,
    )
    expect(expected.size).toBeGreaterThan(1)
    expect(asMap(answer)).toEqual(expected)
  })

  it('count what the account already has, per cell', async () => {
    const buyer = await paidUser(svc, 100_000)
    const before = await cells(`countries=NL&bbox=${WORLD}&zoom=6`, buyer)
    expect(sum(before, 'owned')).toBe(0)
    const p = await preview(svc, buyer.access, 'countries=NL')
    const started = await body<{ search_id: number; lead_count: number }>(
      await startExport(svc, buyer.access, { search_id: p.search_id, export_format: 'csv', max_leads: 25 }),
    )
    expect((await waitForExport(svc, buyer.access, started.search_id)).status).toBe('COMPLETED')
    const d = await body<{ download_url: string }>(
      await svc.request(`/api/download-completed-csv/${started.search_id}/`, { token: buyer.access }),
    )
    const [header, ...rows] = parseCsv(await (await fetch(d.download_url)).text())
    const bought = rows.map((r) => r[header!.indexOf('place_id')]!)
    expect(bought).toHaveLength(25)

    const after = await cells(`countries=NL&bbox=${WORLD}&zoom=6`, buyer)
    expect(asMap(after, 'owned')).toEqual(await expectedCells('c.place_id = ANY($1::text[])', 5, [bought]))
    expect(after.cells.every((cell) => cell.owned <= cell.count)).toBe(true)
    // the same as the owned count of the search, and nothing of it for another account
    const owned = await body<{ owned_count: number }>(await svc.request('/api/companies/owned/?countries=NL', { token: buyer.access }))
    expect(sum(after, 'owned')).toBe(owned.owned_count)
    expect(sum(await cells(`countries=NL&bbox=${WORLD}&zoom=6`, await signUp(svc)), 'owned')).toBe(0)
    // a narrower search owns only its part
    const narrowed = await cells(`countries=NL&email=true&bbox=${WORLD}&zoom=6`, buyer)
    expect(asMap(narrowed, 'owned')).toEqual(await expectedCells('c.place_id = ANY($1::text[]) AND c.has_email', 5, [bought]))
  })

  it('place companies written without cells (by hand) until the next start fills them', async () => {
    const db = svc.deps.db
    const query = `countries=IT&bbox=${WORLD}&zoom=8`
    const whole = await cells(query)
    await db.query("UPDATE companies SET h3_r3 = NULL, h3_r5 = NULL, h3_r7 = NULL, h3_r9 = NULL WHERE country_code = 'IT' AND id % 3 = 0")
    expect(await cells(query)).toEqual(whole)
    expect(await fillCompanyCells(db)).toBeGreaterThan(0)
    expect(await fillCompanyCells(db)).toBe(0)
    expect(await cells(query)).toEqual(whole)
  })

  it('keep the cells with the most leads when there are more than an answer holds', async () => {
    const world = { west: -180, south: -90, east: 180, north: 90 }
    const filters = normaliseFilters({ countries: ['ES'] })
    const all = await searchCells(svc.deps.db, u.id, filters, world, 12, svc.deps.clock.now())
    expect(all.cells.length).toBeGreaterThan(10)
    const some = await searchCells(svc.deps.db, u.id, filters, world, 12, svc.deps.clock.now(), 10)
    expect(some.truncated).toBe(true)
    expect(some.total).toBe(all.total)
    expect(some.cells).toEqual(all.cells.slice(0, 10))
    const counts = all.cells.map((c) => c.count)
    expect(counts).toEqual([...counts].sort((a, b) => b - a))
    expect(Math.min(...some.cells.map((c) => c.count))).toBeGreaterThanOrEqual(Math.max(...all.cells.slice(10).map((c) => c.count)))
  })

  it('refuse a bad box or zoom, on the field', async () => {
    const refused = async (query: string, field: string, code: string) => {
      const res = await svc.request(`/api/companies/cells/?countries=DE&${query}`, { token: u.access })
      expect(res.status, query).toBe(400)
      const answer = await body<{ errors: Record<string, string[]>; error_codes: Record<string, { code: string }[]> }>(res)
      expect(
        answer.error_codes[field]!.map((e) => e.code),
        query,
      ).toEqual([code])
      expect(answer.errors[field]![0]).toMatch(/\w{4}/)
    }
    await refused('bbox=1,2,3&zoom=5', 'bbox', 'invalid_bbox')
    await refused('bbox=1,2,3,x&zoom=5', 'bbox', 'invalid_bbox')
    await refused('bbox=10,40,5,50&zoom=5', 'bbox', 'invalid_bbox')
    await refused('bbox=5,50,10,40&zoom=5', 'bbox', 'invalid_bbox')
    await refused('bbox=-190,40,10,50&zoom=5', 'bbox', 'invalid_bbox')
    await refused('bbox=5,40,10,50&zoom=23', 'zoom', 'invalid_zoom')
    await refused('bbox=5,40,10,50&zoom=2.5', 'zoom', 'invalid_zoom')
    await refused('bbox=5,40,10,50', 'zoom', 'required')
    await refused('bbox=5,40,10,50&zoom=5&near=1,2,0', 'near', 'radius_out_of_range')
  })
})
