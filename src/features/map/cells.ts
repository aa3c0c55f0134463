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
      geometry: { type: 'Polygon', coordinates: [closed(cellToBoundary(c.h3, true) as LngLat[])] },
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

/**
 * The table's rows: the cells grouped by the place nearest their centre (the basemap's labels), so
 * that the numbers read as "around Munich" rather than as hexagon ids. Without labels, one row a cell.
 */
export function areasOf(cells: Cell[], places: { name: string; latitude: number; longitude: number }[]): Area[] {
  const byName = new Map<string, Area>()
  const rows: Area[] = []
  for (const c of cells) {
    const [lat, lng] = cellToLatLng(c.h3)
    let best: (typeof places)[number] | null = null
    let bestKm = Infinity
    for (const p of places) {
      // a cheap bound first: a degree of latitude is 111 km, so most places are ruled out without trigonometry
      if (Math.abs(p.latitude - lat) * 111 > bestKm) continue
      const km = distanceKm({ lat, lng }, { lat: p.latitude, lng: p.longitude })
      if (km < bestKm) [best, bestKm] = [p, km]
    }
    if (!best) {
      rows.push({ name: null, lat, lng, count: c.count, owned: c.owned })
      continue
    }
    const row = byName.get(best.name)
    if (row) {
      row.count += c.count
      row.owned += c.owned
    } else {
      const area = { name: best.name, lat: best.latitude, lng: best.longitude, count: c.count, owned: c.owned }
      byName.set(best.name, area)
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
