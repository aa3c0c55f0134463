import { cellToBoundary, cellToLatLng } from 'h3-js'
import type { FeatureCollection, Polygon } from 'geojson'
import type { Cell } from '@/api/search/get-cells'
import { MAX_RADIUS_KM, roundCoord, type LngLat, type Territory } from '@/domain/search-filters'

/** The cells as GeoJSON polygons ([lng, lat]) for MapLibre, each with its counts and its colour class. */
export function cellsGeoJson(cells: Cell[], breaks: number[]): FeatureCollection<Polygon, CellProps> {
  return {
    type: 'FeatureCollection',
    features: cells.map((c) => ({
      type: 'Feature',
      id: c.h3,
      properties: { h3: c.h3, count: c.count, owned: c.owned, step: classOf(c.count, breaks) },
      geometry: { type: 'Polygon', coordinates: [outlineOf(c.h3)] },
    })),
  }
}
export interface CellProps {
  h3: string
  count: number
  owned: number
  /** Its class on the legend: 0 (fewest) … breaks.length - 1. */
  step: number
}

const closed = (ring: LngLat[]) => (ring.length ? [...ring, ring[0]!] : ring)

/**
 * Each cell's outline and centre, kept: after a pan most of the next answer's cells are the last one's
 * (h3's outlines for an answer of 5,000 cells took 9-36 ms, 1-2 ms once they are kept).
 */
const shapes = new Map<string, { outline?: LngLat[]; centre?: [lat: number, lng: number] }>()
function shapeOf(h3: string) {
  let shape = shapes.get(h3)
  if (!shape) {
    if (shapes.size >= 50_000) shapes.clear()
    shape = {}
    shapes.set(h3, shape)
  }
  return shape
}
const outlineOf = (h3: string) => (shapeOf(h3).outline ??= closed(cellToBoundary(h3, true) as LngLat[]))
const centreOf = (h3: string) => (shapeOf(h3).centre ??= cellToLatLng(h3) as [number, number])

/** The sequential scale's colours, light to dark (readable on the light and the dark basemap). */
export const SCALE = ['#fed7aa', '#fdba74', '#fb923c', '#ea580c', '#9a3412'] as const

/**
 * Where each colour class starts: up to SCALE.length classes of about as many cells each (quantiles of
 * the counts), so one dense city does not leave every other cell the palest colour. Ascending, no repeats.
 */
export function classBreaks(counts: number[]): number[] {
  if (!counts.length) return []
  const sorted = [...counts].sort((a, b) => a - b)
  const breaks = SCALE.map((_, i) => sorted[Math.floor((i * sorted.length) / SCALE.length)]!)
  return [...new Set(breaks)]
}

export function classOf(count: number, breaks: number[]): number {
  let step = 0
  for (let i = 0; i < breaks.length; i++) if (count >= breaks[i]!) step = i
  return step
}

/** The legend's rows: each class's range of counts ("from–to"; the last one up to the largest count). */
export function legendRanges(breaks: number[], max: number): { from: number; to: number; colour: string }[] {
  return breaks.map((from, i) => ({ from, to: i + 1 < breaks.length ? breaks[i + 1]! - 1 : max, colour: SCALE[i]! }))
}

const EARTH_KM = 6371.0088
const rad = (d: number) => (d * Math.PI) / 180

/** Great-circle distance in km (the service measures `near` the same way). */
export function distanceKm(a: { lat: number; lng: number }, b: { lat: number; lng: number }): number {
  const h = Math.sin(rad(b.lat - a.lat) / 2) ** 2 + Math.cos(rad(a.lat)) * Math.cos(rad(b.lat)) * Math.sin(rad(b.lng - a.lng) / 2) ** 2
  return 2 * EARTH_KM * Math.asin(Math.min(1, Math.sqrt(h)))
}

export interface Area {
  /** The nearest place's name, or null (then the cell's centre names it). */
  name: string | null
  lat: number
  lng: number
  count: number
  owned: number
}

type Place = { name: string; latitude: number; longitude: number }
/** A place as the search for the nearest one reads it: latitude and longitude in radians, its index in the list. */
type Located = { place: Place; index: number; phi: number; lambda: number; cosPhi: number }

/** The places by latitude, made once per list of places. */
const byLatitude = new WeakMap<Place[], Located[]>()

/**
 * The table's rows: the cells grouped by the place nearest their centre (the basemap's labels), so
 * that the numbers read as "around Munich" rather than as hexagon ids. Without labels, one row a cell.
 * Each answer of 5,000 cells is grouped on the main thread, so the places are searched outwards from the
 * cell's latitude, nearest latitude first, while one can still be nearer than the nearest found (a place
 * Δφ of latitude away is at least R·Δφ away): a full scan of 580 places took 20-45 ms an answer, of 20,000
 * half a second. Of places as near, the one listed first.
 */
export function areasOf(cells: Cell[], places: Place[]): Area[] {
  let sorted = byLatitude.get(places)
  if (!sorted) {
    sorted = places
      .map((place, index) => ({
        place,
        index,
        phi: rad(place.latitude),
        lambda: rad(place.longitude),
        cosPhi: Math.cos(rad(place.latitude)),
      }))
      .sort((a, b) => a.phi - b.phi)
    byLatitude.set(places, sorted)
  }
  const byName = new Map<string, Area>()
  const rows: Area[] = []
  for (const c of cells) {
    const [lat, lng] = centreOf(c.h3)
    const phi = rad(lat)
    const lambda = rad(lng)
    const cosPhi = Math.cos(phi)
    // compared as haversine's h, which grows with the distance: sin²(Δφ/2) + cos φ1 cos φ2 sin²(Δλ/2)
    let best: Located | null = null
    let bestH = Infinity
    let lo = 0
    let hi = sorted.length
    while (lo < hi) {
      const mid = (lo + hi) >> 1
      if (sorted[mid]!.phi < phi) lo = mid + 1
      else hi = mid
    }
    let north = lo
    let south = lo - 1
    for (;;) {
      const dn = north < sorted.length ? sorted[north]!.phi - phi : Infinity
      const ds = south >= 0 ? phi - sorted[south]!.phi : Infinity
      const d = Math.min(dn, ds)
      // h of a place Δφ away is at least sin²(Δφ/2): none further out can be nearer
      if (d === Infinity || Math.sin(d / 2) ** 2 > bestH) break
      const p = dn <= ds ? sorted[north++]! : sorted[south--]!
      const h = Math.sin((p.phi - phi) / 2) ** 2 + cosPhi * p.cosPhi * Math.sin((p.lambda - lambda) / 2) ** 2
      if (h < bestH || (h === bestH && p.index < best!.index)) [best, bestH] = [p, h]
    }
    const found = best as Located | null
    if (!found) {
      rows.push({ name: null, lat, lng, count: c.count, owned: c.owned })
      continue
    }
    const row = byName.get(found.place.name)
    if (row) {
      row.count += c.count
      row.owned += c.owned
    } else {
      const area = { name: found.place.name, lat: found.place.latitude, lng: found.place.longitude, count: c.count, owned: c.owned }
      byName.set(found.place.name, area)
      rows.push(area)
    }
  }
  return rows
}

/** A drawn ring as the territory keeps it: 5 decimals, open (no closing point), repeated points dropped. */
export function ringOf(coordinates: number[][]): LngLat[] {
  const ring: LngLat[] = []
  for (const [lng, lat] of coordinates) {
    const p: LngLat = [roundCoord(lng!), roundCoord(lat!)]
    const last = ring.at(-1)
    if (!last || last[0] !== p[0] || last[1] !== p[1]) ring.push(p)
  }
  if (ring.length > 1 && ring[0]!.join() === ring.at(-1)!.join()) ring.pop()
  return ring
}

/** A drawn circle (a ring around its centre) as the service's `near`: its centre and radius, within 200 km. */
export function circleOf(coordinates: number[][], radiusKm?: number): Territory {
  const ring = ringOf(coordinates)
  const lat = ring.reduce((s, p) => s + p[1], 0) / ring.length
  const lng = ring.reduce((s, p) => s + p[0], 0) / ring.length
  const r = radiusKm ?? distanceKm({ lat, lng }, { lat: ring[0]![1], lng: ring[0]![0] })
  return {
    kind: 'circle',
    lat: roundCoord(lat),
    lng: roundCoord(lng),
    radiusKm: Math.min(MAX_RADIUS_KM, Math.max(0.1, Math.round(r * 10) / 10)),
  }
}

/** A circle as a ring of `points` vertices (to show and edit it on the map), [lng, lat]. */
export function circleRing(t: { lat: number; lng: number; radiusKm: number }, points = 64): LngLat[] {
  const ring: LngLat[] = []
  const d = t.radiusKm / EARTH_KM
  const lat1 = rad(t.lat)
  const lng1 = rad(t.lng)
  for (let i = 0; i < points; i++) {
    const bearing = (2 * Math.PI * i) / points
    const lat2 = Math.asin(Math.sin(lat1) * Math.cos(d) + Math.cos(lat1) * Math.sin(d) * Math.cos(bearing))
    const lng2 = lng1 + Math.atan2(Math.sin(bearing) * Math.sin(d) * Math.cos(lat1), Math.cos(d) - Math.sin(lat1) * Math.sin(lat2))
    ring.push([(lng2 * 180) / Math.PI, (lat2 * 180) / Math.PI])
  }
  return ring
}
