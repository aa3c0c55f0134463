import { cellToParent, gridDisk, latLngToCell, POLYGON_TO_CELLS_FLAGS, polygonToCellsExperimental } from 'h3-js'

/**
 * Territories of a search (extension `geo`, issue 26): a GeoJSON Polygon or MultiPolygon (`within`)
 * and a circle (`near`). RFC 7946 positions are [longitude, latitude] and its edges straight lines in
 * longitude/latitude, so a point-in-polygon test on the plane of degrees is exact; a circle is a
 * great-circle distance.
 */

export const MAX_VERTICES = 1000
/** About the size of a large country (Argentina ≈ 2.8 M km², Kazakhstan 2.7 M): a territory, not a continent. */
export const MAX_AREA_KM2 = 2_500_000
export const MAX_RADIUS_KM = 200
/** The mean earth radius (IUGG), for great-circle distances here and in SQL. */
export const EARTH_RADIUS_KM = 6371.0088

type Position = [number, number]
type Ring = Position[]
export type Territory = { type: 'Polygon'; coordinates: Ring[] } | { type: 'MultiPolygon'; coordinates: Ring[][] }
export interface Near {
  lat: number
  lng: number
  radius_km: number
}
/** A box in degrees, west < east (never across the antimeridian). */
export interface Box {
  west: number
  south: number
  east: number
  north: number
}

export type GeometryCode = 'invalid_geometry' | 'ring_not_closed' | 'too_many_vertices' | 'self_intersection' | 'area_too_large'
export class GeometryError extends Error {
  constructor(
    readonly code: GeometryCode | 'invalid_near' | 'radius_out_of_range',
    message: string,
  ) {
    super(message)
  }
}

/** Six decimals: about 10 cm, finer than any map click; the canonical form hashes the same for the same shape. */
const round6 = (x: number) => Math.round(x * 1e6) / 1e6 + 0 // + 0: no -0 in the canonical JSON

const isPosition = (p: unknown): p is number[] =>
  Array.isArray(p) && (p.length === 2 || p.length === 3) && p.every((x) => typeof x === 'number' && Number.isFinite(x))

function readRing(value: unknown): Ring {
  if (!Array.isArray(value) || !value.every(isPosition)) {
    throw new GeometryError('invalid_geometry', 'A ring is a list of [longitude, latitude] positions.')
  }
  // an altitude (a third number) is allowed by RFC 7946 and means nothing here
  const ring = value.map((p): Position => [round6(p[0]!), round6(p[1]!)])
  for (const [lng, lat] of ring) {
    if (lng < -180 || lng > 180 || lat < -90 || lat > 90) {
      throw new GeometryError(
        'invalid_geometry',
        'Positions are [longitude, latitude] with longitude in [-180, 180] and latitude in [-90, 90].',
      )
    }
  }
  return ring
}

/** The rings of each polygon, as given (not yet checked beyond their shape). */
function readPolygons(value: unknown): { type: Territory['type']; polygons: Ring[][] } {
  if (!value || typeof value !== 'object' || Array.isArray(value)) {
    throw new GeometryError('invalid_geometry', 'A GeoJSON geometry object is expected.')
  }
  const { type, coordinates } = value as { type?: unknown; coordinates?: unknown }
  const polygon = (rings: unknown): Ring[] => {
    if (!Array.isArray(rings) || rings.length === 0) throw new GeometryError('invalid_geometry', 'A polygon is a non-empty list of rings.')
    return rings.map(readRing)
  }
  if (type === 'Polygon') return { type, polygons: [polygon(coordinates)] }
  if (type === 'MultiPolygon') {
    if (!Array.isArray(coordinates) || coordinates.length === 0) {
      throw new GeometryError('invalid_geometry', 'A MultiPolygon is a non-empty list of polygons.')
    }
    return { type, polygons: coordinates.map(polygon) }
  }
  throw new GeometryError('invalid_geometry', 'Only a GeoJSON Polygon or MultiPolygon geometry is accepted.')
}

const samePosition = (a: Position, b: Position) => a[0] === b[0] && a[1] === b[1]

/** Repeated consecutive positions (a double click) say nothing about the shape: dropped. */
const withoutRepeats = (ring: Ring): Ring => ring.filter((p, i) => i === 0 || !samePosition(p, ring[i - 1]!))

/** The sign of the turn a → b → c. */
const orientation = (a: Position, b: Position, c: Position) => Math.sign((b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0]))
const within1d = (a: number, b: number, x: number) => Math.min(a, b) <= x && x <= Math.max(a, b)
const onSegment = (a: Position, b: Position, p: Position) => within1d(a[0], b[0], p[0]) && within1d(a[1], b[1], p[1])

/** Whether segments ab and cd share a point (crossing, touching or overlapping). */
export function segmentsMeet(a: Position, b: Position, c: Position, d: Position): boolean {
  const o1 = orientation(a, b, c)
  const o2 = orientation(a, b, d)
  const o3 = orientation(c, d, a)
  const o4 = orientation(c, d, b)
  if (o1 !== o2 && o3 !== o4) return true
  return (
    (o1 === 0 && onSegment(a, b, c)) ||
    (o2 === 0 && onSegment(a, b, d)) ||
    (o3 === 0 && onSegment(c, d, a)) ||
    (o4 === 0 && onSegment(c, d, b))
  )
}

/**
 * Whether a closed ring crosses or touches itself: every pair of its edges but neighbours (which share
 * their one end) must not meet. O(n²) in the edges: at most 1,000 vertices make half a million pairs,
 * a few milliseconds, once per new territory.
 */
export function ringSelfIntersects(ring: Ring): boolean {
  const edges = ring.length - 1
  for (let i = 0; i < edges; i++) {
    for (let j = i + 1; j < edges; j++) {
      const neighbours = j === i + 1 || (i === 0 && j === edges - 1)
      if (neighbours) {
        // neighbours meet at their shared end; more than that (folding back on itself) is a crossing
        const shared = j === i + 1 ? ring[j]! : ring[i]!
        const [p, q] = j === i + 1 ? [ring[i]!, ring[j + 1]!] : [ring[i + 1]!, ring[j]!]
        if (orientation(p, shared, q) === 0 && onSegment(shared, p, q)) return true
        if (orientation(q, shared, p) === 0 && onSegment(shared, q, p)) return true
        continue
      }
      if (segmentsMeet(ring[i]!, ring[i + 1]!, ring[j]!, ring[j + 1]!)) return true
    }
  }
  return false
}

const rad = (deg: number) => (deg * Math.PI) / 180

/**
 * A ring's area on the sphere in km² (the formula of Chamberlain and Duquette, NASA JPL 2007, as
 * @turf/area computes it, on the WGS 84 equatorial radius).
 */
export function ringAreaKm2(ring: Ring): number {
  const n = ring.length - 1 // the closing position repeats the first
  if (n < 3) return 0
  let total = 0
  for (let i = 0; i < n; i++) {
    const lower = ring[i]!
    const middle = ring[(i + 1) % n]!
    const upper = ring[(i + 2) % n]!
    total += (rad(upper[0]) - rad(lower[0])) * Math.sin(rad(middle[1]))
  }
  const R = 6378.137
  return Math.abs((total * R * R) / 2)
}

/** Outer rings less their holes, summed over the polygons. */
export function territoryAreaKm2(t: Territory): number {
  return polygonsOf(t).reduce(
    (sum, [outer, ...holes]) => sum + ringAreaKm2(outer!) - holes.reduce((h, ring) => h + ringAreaKm2(ring), 0),
    0,
  )
}

export const polygonsOf = (t: Territory): Ring[][] => (t.type === 'Polygon' ? [t.coordinates] : t.coordinates)

/**
 * A territory checked and in its canonical form: coordinates rounded to six decimals, repeated
 * positions dropped, keys in a fixed order. Throws a GeometryError naming what is wrong.
 */
export function canonicalTerritory(value: unknown): Territory {
  const { type, polygons: given } = readPolygons(value)
  let vertices = 0
  for (const rings of given) for (const ring of rings) vertices += ring.length
  // counted before anything costlier: 10,000 vertices are refused without testing 50 million pairs
  if (vertices > MAX_VERTICES) {
    throw new GeometryError('too_many_vertices', `At most ${MAX_VERTICES} vertices in all (got ${vertices}).`)
  }
  const polygons = given.map((rings) =>
    rings.map((given) => {
      if (given.length < 2 || !samePosition(given[0]!, given[given.length - 1]!)) {
        throw new GeometryError('ring_not_closed', 'Each ring must end where it starts (its last position equal to its first).')
      }
      const ring = withoutRepeats(given)
      if (ring.length < 4)
        throw new GeometryError('invalid_geometry', 'A ring needs at least four positions (three corners and the closing one).')
      if (ringSelfIntersects(ring)) throw new GeometryError('self_intersection', 'A ring crosses or touches itself.')
      return ring
    }),
  )
  const territory: Territory = type === 'Polygon' ? { type, coordinates: polygons[0]! } : { type, coordinates: polygons }
  const area = territoryAreaKm2(territory)
  if (area > MAX_AREA_KM2) {
    throw new GeometryError(
      'area_too_large',
      `The area is at most ${MAX_AREA_KM2.toLocaleString('en')} km² (got ${Math.round(area).toLocaleString('en')}).`,
    )
  }
  return territory
}

/** `within` as sent: GeoJSON text. */
export function parseTerritory(text: string): Territory {
  let value: unknown
  try {
    value = JSON.parse(text)
  } catch {
    throw new GeometryError('invalid_geometry', 'Not JSON: a GeoJSON Polygon or MultiPolygon geometry is expected.')
  }
  return canonicalTerritory(value)
}

const NUMBER = /^[-+]?(\d+(\.\d*)?|\.\d+)$/

/** `near` as sent: "lat,lng,radius_km". */
export function parseNear(text: string): Near {
  const parts = text.split(',').map((p) => p.trim())
  if (parts.length !== 3 || !parts.every((p) => NUMBER.test(p))) {
    throw new GeometryError('invalid_near', 'Expected "latitude,longitude,radius_km", e.g. "48.137,11.575,10".')
  }
  return canonicalNear({ lat: Number(parts[0]), lng: Number(parts[1]), radius_km: Number(parts[2]) })
}

/** A circle checked and rounded (six decimals) for a stable hash. */
export function canonicalNear(value: unknown): Near {
  const { lat, lng, radius_km } = (value ?? {}) as Record<string, unknown>
  if (![lat, lng, radius_km].every((x) => typeof x === 'number' && Number.isFinite(x))) {
    throw new GeometryError('invalid_near', 'Expected "latitude,longitude,radius_km", e.g. "48.137,11.575,10".')
  }
  const near = { lat: round6(lat as number), lng: round6(lng as number), radius_km: round6(radius_km as number) }
  if (near.lat < -90 || near.lat > 90 || near.lng < -180 || near.lng > 180) {
    throw new GeometryError('invalid_near', 'Latitude is in [-90, 90] and longitude in [-180, 180].')
  }
  if (!(near.radius_km > 0 && near.radius_km <= MAX_RADIUS_KM)) {
    throw new GeometryError('radius_out_of_range', `The radius is more than 0 and at most ${MAX_RADIUS_KM} km.`)
  }
  return near
}

/** The smallest box holding every outer ring (edges are straight in degrees, so the vertices bound them). */
export function territoryBox(t: Territory): Box {
  const box = { west: 180, south: 90, east: -180, north: -90 }
  for (const [outer] of polygonsOf(t)) {
    for (const [lng, lat] of outer!) {
      box.west = Math.min(box.west, lng)
      box.east = Math.max(box.east, lng)
      box.south = Math.min(box.south, lat)
      box.north = Math.max(box.north, lat)
    }
  }
  return box
}

/**
 * A box holding the circle: its latitudes exactly, its longitudes from the widest point of a spherical
 * cap; the whole range of longitudes when the circle reaches a pole or crosses the antimeridian. A
 * thousandth of a degree wider all round, so that rounding in SQL never drops a company on the edge.
 */
export function nearBox(n: Near): Box {
  const angle = n.radius_km / EARTH_RADIUS_KM
  const dLat = (angle * 180) / Math.PI
  const margin = 1e-3
  const south = Math.max(-90, n.lat - dLat - margin)
  const north = Math.min(90, n.lat + dLat + margin)
  const cosLat = Math.cos(rad(n.lat))
  if (n.lat + dLat >= 90 || n.lat - dLat <= -90 || Math.sin(angle) >= cosLat) return { west: -180, south, east: 180, north }
  const dLng = (Math.asin(Math.sin(angle) / cosLat) * 180) / Math.PI
  const west = n.lng - dLng - margin
  const east = n.lng + dLng + margin
  if (west < -180 || east > 180) return { west: -180, south, east: 180, north }
  return { west, south, east, north }
}

/** The H3 resolutions stored per company (migration 030), coarse to fine. */
export const CELL_RESOLUTIONS = [3, 5, 7, 9] as const
export type CellResolution = (typeof CELL_RESOLUTIONS)[number]

/** A position's H3 cells at CELL_RESOLUTIONS, as 64-bit integers in decimal (for bigint columns). */
export function cellsOf(lat: number, lng: number): [string, string, string, string] {
  const finest = latLngToCell(lat, lng, 9)
  const int = (cell: string) => BigInt(`0x${cell}`).toString()
  return [int(cellToParent(finest, 3)), int(cellToParent(finest, 5)), int(cellToParent(finest, 7)), int(finest)]
}

/** A polygon as PostgreSQL's `polygon` text, its closing position left out (a polygon closes itself). */
export const pgPolygon = (ring: Ring) =>
  `(${ring
    .slice(0, -1)
    .map(([lng, lat]) => `(${lng},${lat})`)
    .join(',')})`

/**
 * The resolution-3 H3 cells that hold every point of the box (and some around it), for an index
 * prefilter; null when the box is too large for a cover to pay (wider than 90° or taller than 60°, or
 * reaching beyond 80° of latitude). H3 fills the box with the cells that overlap it, drawing its edges
 * as great circles: the edges are cut into pieces of at most a degree, whose arcs stray from the
 * straight lines of the box by well under a kilometre, and the cells next to those (gridDisk 1, at
 * least 60 km across) take in whatever strays.
 */
export function h3Cover(box: Box): string[] | null {
  if (box.east - box.west > 90 || box.north - box.south > 60 || Math.max(Math.abs(box.south), Math.abs(box.north)) > 80) return null
  const ring: [number, number][] = []
  const pieces = (from: number, to: number) => Math.max(1, Math.ceil(to - from))
  const nx = pieces(box.west, box.east)
  const ny = pieces(box.south, box.north)
  const lng = (i: number) => box.west + ((box.east - box.west) * i) / nx
  const lat = (i: number) => box.south + ((box.north - box.south) * i) / ny
  for (let i = 0; i < nx; i++) ring.push([box.south, lng(i)])
  for (let i = 0; i < ny; i++) ring.push([lat(i), box.east])
  for (let i = nx; i > 0; i--) ring.push([box.north, lng(i)])
  for (let i = ny; i > 0; i--) ring.push([lat(i), box.west])
  const cover = new Set<string>()
  for (const cell of polygonToCellsExperimental([ring], 3, POLYGON_TO_CELLS_FLAGS.containmentOverlapping)) {
    for (const near of gridDisk(cell, 1)) cover.add(near)
  }
  return [...cover]
}
