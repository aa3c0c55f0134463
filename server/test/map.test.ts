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

interface Style {
  version: number
  sources: Record<string, { type: string; data?: string; url?: string; tiles?: string[]; attribution?: string }>
  layers: { id: string; type: string; source?: string; paint?: Record<string, unknown> }[]
  glyphs?: string
  sprite?: string
}

describe('the offline basemap (extension geo)', () => {
  it('is a MapLibre style that fetches nothing but this service’s countries, in a light and a dark theme', async () => {
    const light = await body<Style>(await svc.request('/api/map/style.json'))
    const dark = await body<Style>(await svc.request('/api/map/style.json?theme=dark'))
    for (const style of [light, dark]) {
      expect(style.version).toBe(8)
      // no glyphs, sprites or tiles: a fresh machine with no network draws it all
      expect(style.glyphs).toBeUndefined()
      expect(style.sprite).toBeUndefined()
      for (const source of Object.values(style.sources)) {
        expect(source).toMatchObject({ type: 'geojson', data: '/api/map/countries.geojson' })
        expect(source.attribution).toContain('Natural Earth')
      }
      expect(style.layers.some((l) => l.type === 'symbol')).toBe(false)
    }
    const colour = (s: Style, id: string) => JSON.stringify(s.layers.find((l) => l.id === id)?.paint)
    expect(colour(light, 'water')).not.toBe(colour(dark, 'water'))
    expect(colour(light, 'land')).not.toBe(colour(dark, 'land'))
    expect((await svc.request('/api/map/style.json?theme=sepia')).status).toBe(400)
  })

  it('serves every country’s outline as GeoJSON, compressed once, with an ETag a second request is answered 304 by', async () => {
    const res = await svc.request('/api/map/countries.geojson', { headers: { 'Accept-Encoding': 'gzip' } })
    expect(res.status).toBe(200)
    expect(res.headers.get('content-type')).toContain('application/geo+json')
    const geo = (await res.json()) as { type: string; features: { properties: { name: string }; geometry: { type: string } }[] }
    expect(geo.type).toBe('FeatureCollection')
    expect(geo.features.length).toBeGreaterThan(150)
    const names = geo.features.map((f) => f.properties.name)
    expect(names).toEqual(expect.arrayContaining(['Germany', 'France', 'Israel']))
    expect(new Set(geo.features.map((f) => f.geometry.type))).toEqual(new Set(['Polygon', 'MultiPolygon']))

    // the body on the wire is gzip (fetch decodes it above)
    const raw = await fetch(`${svc.url}/api/map/countries.geojson`, { headers: { 'Accept-Encoding': 'gzip' } })
    expect(raw.headers.get('content-encoding')).toBe('gzip')
    const etag = raw.headers.get('etag')!
    expect(etag).toMatch(/^"countries-110m-/)
    const again = await svc.request('/api/map/countries.geojson', { headers: { 'If-None-Match': etag } })
    expect(again.status).toBe(304)
  })

  it('labels states and cities at their places, in the reader’s language where the place has a name in it', async () => {
    expect((await svc.request('/api/map/labels')).status).toBe(401)
    type Label = { id: string; name: string; level: number; size: number; latitude: number; longitude: number }
    const en = await body<Label[]>(await svc.request('/api/map/labels?lng=en', { token }))
    const de = await body<Label[]>(await svc.request('/api/map/labels?lng=de', { token }))
    expect(en.length).toBeGreaterThan(20)
    expect(new Set(en.map((l) => l.level))).toEqual(new Set([1, 3]))
    for (const l of en) {
      expect(Math.abs(l.latitude)).toBeLessThanOrEqual(90)
      expect(Math.abs(l.longitude)).toBeLessThanOrEqual(180)
    }
    // biggest first
    expect(en.map((l) => l.size)).toEqual([...en.map((l) => l.size)].sort((a, b) => b - a))
    // München is Munich to an English reader and München to a German one, at the same place
    const munich = en.find((l) => l.name === 'Munich')
    expect(munich).toBeDefined()
    expect(de.find((l) => l.name === 'München')).toMatchObject({ id: munich!.id, latitude: munich!.latitude, longitude: munich!.longitude })
  })
})
