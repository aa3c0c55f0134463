/**
 * The whole search as plain data, and its one-to-one mapping to the address bar, so that a
 * reload, back/forward or a pasted link restores it exactly.
 */
export type ExportFormat = 'csv' | 'excel'

/** A chosen category or place: the id the service filters by, plus the name shown on its chip. */
export interface NamedId {
  id: string
  name: string
}

/**
 * The name a chosen place goes by on its chip (and in the address): its parents follow it, so places
 * that share a name stay apart once chosen, e.g. "Springfield (Hampden County, Massachusetts)".
 */
export function placeName(name: string, parents: readonly (string | null | undefined)[]): string {
  const known = parents.filter((p): p is string => Boolean(p))
  return known.length ? `${name} (${known.join(', ')})` : name
}

/** A chosen place remembers its country, so removing the country drops its places. */
export interface Place extends NamedId {
  country: string
}

/** A point as GeoJSON writes it: [longitude, latitude]. */
export type LngLat = [number, number]

/**
 * The area the leads must lie in (extension `geo`): a drawn polygon or rectangle (its outer ring, then
 * any holes; rings open, the first point not repeated) or a circle around a point, with the name of
 * the place it was chosen around, for its chip.
 */
export type Territory =
  { kind: 'polygon'; rings: LngLat[][] } | { kind: 'circle'; lat: number; lng: number; radiusKm: number; place?: string }

export interface SearchFilters {
  countries: string[]
  categories: NamedId[]
  level1: Place[]
  level2: Place[]
  level3: Place[]
  email: boolean
  phone: boolean
  website: boolean
  mainActivityOnly: boolean
  /** Most leads to export; null = all that match. */
  cap: number | null
  format: ExportFormat
  territory: Territory | null
  /** The account's lists whose matched businesses are left out (extension `lists`): list ids. */
  excludeLists: string[]
}

export const emptyFilters: SearchFilters = {
  countries: [],
  categories: [],
  level1: [],
  level2: [],
  level3: [],
  email: false,
  phone: false,
  website: false,
  mainActivityOnly: false,
  cap: null,
  format: 'csv',
  territory: null,
  excludeLists: [],
}

const FLAGS = [
  ['email', 'email'],
  ['phone', 'phone'],
  ['website', 'website'],
  ['mainActivityOnly', 'main'],
] as const

const PLACE_LEVELS = [
  ['level1', 'l1'],
  ['level2', 'l2'],
  ['level3', 'l3'],
] as const

// "id:name" and "country:id:name": ids and alpha-2 codes never hold a colon, names may.
const encodeNamed = (n: NamedId) => `${n.id}:${n.name}`
const encodePlace = (p: Place) => `${p.country}:${p.id}:${p.name}`

function decodeNamed(raw: string): NamedId | null {
  const i = raw.indexOf(':')
  const id = (i < 0 ? raw : raw.slice(0, i)).trim()
  if (!id) return null
  return { id, name: i < 0 ? id : raw.slice(i + 1) }
}

function decodePlace(raw: string): Place | null {
  const i = raw.indexOf(':')
  if (i < 0) return null
  const country = raw.slice(0, i).toUpperCase()
  const rest = decodeNamed(raw.slice(i + 1))
  if (!/^[A-Z]{2}$/.test(country) || !rest) return null
  return { country, ...rest }
}

// ---- the territory in the address: each ring of a polygon as "lng_lat_lng_lat…" (5 decimals; `_` is one of
// the few characters an address keeps unescaped), a circle as the service's "lat,lng,km", then ":place".
// Plain decimals rather than an encoded polyline, whose codec would not fit the search page's first-load budget.

/** The service's limits (`within`: at most 1,000 vertices; `near`: a radius up to 200 km). */
export const MAX_RADIUS_KM = 200

/** Coordinates as the address keeps them: 5 decimals (about a metre). */
export const roundCoord = (x: number) => Math.round(x * 1e5) / 1e5

const onGlobe = (lng = NaN, lat = NaN) => Math.abs(lat) <= 90 && Math.abs(lng) <= 180 && typeof lng + typeof lat == 'numbernumber'

/**
 * A polygon the service can take (`within`) from its rings: 3+ points on the globe each (a closing point
 * repeating the first dropped), 1,000 vertices at most; else null. May throw on what is no list of rings.
 */
export function polygonTerritory(rings: LngLat[][]): Territory | null {
  const checked = rings.map((r) => {
    const ring = r.map(([lng, lat]) => [lng, lat] as LngLat)
    if (ring[0]!.join() === ring.at(-1)!.join()) ring.pop()
    return ring.length > 2 && ring.every(([lng, lat]) => onGlobe(lng, lat)) ? ring : []
  })
  return checked.length && checked.every((r) => r.length) && checked.flat().length <= 1000 ? { kind: 'polygon', rings: checked } : null
}

/**
 * The address's territory (`area`, else `near`), if the service can take it: a radius of 200 km at most.
 * Anything else, even what makes this throw, is no territory. (An API-style link's `within` is the link
 * resolver's: features/search/link-resolver.ts.)
 */
function decodeTerritory(p: URLSearchParams): Territory | null {
  try {
    const near = p.get('near')
    const nums = (text: string) => text.split(/[,_]/).map((x) => (/^-?[\d.]+$/.test(x) ? Number(x) : NaN))
    if (p.has('area'))
      return polygonTerritory(p.getAll('area').map((a) => nums(a).flatMap((lng, i, n) => (i % 2 ? [] : [[lng, n[i + 1]!]]))))
    if (!near) return null
    const { id, name } = decodeNamed(near)!
    const [lat, lng, radiusKm = 0, ...rest] = nums(id)
    return !rest.length && onGlobe(lng, lat) && radiusKm > 0 && radiusKm <= MAX_RADIUS_KM
      ? { kind: 'circle', lat: lat!, lng: lng!, radiusKm, place: name === id ? undefined : name }
      : null
  } catch {
    return null
  }
}

const nearText = (t: { lat: number; lng: number; radiusKm: number }) => `${t.lat},${t.lng},${t.radiusKm}`
const nearParam = (t: Extract<Territory, { kind: 'circle' }>) => nearText(t) + (t.place ? `:${t.place}` : '')

/** The territory as the service's filters `within` (a GeoJSON Polygon, each ring closed) and `near` (extension `geo`). */
const territoryQuery = (t: Territory | null) => ({
  within: t?.kind === 'polygon' ? JSON.stringify({ type: 'Polygon', coordinates: t.rings.map((r) => [...r, r[0]]) }) : undefined,
  near: t?.kind === 'circle' ? nearText(t) : undefined,
})

function uniqueBy<T>(items: T[], key: (t: T) => string): T[] {
  const seen = new Set<string>()
  return items.filter((t) => {
    const k = key(t)
    if (seen.has(k)) return false
    seen.add(k)
    return true
  })
}

export function filtersToSearchParams(f: SearchFilters): URLSearchParams {
  const p = new URLSearchParams()
  for (const c of f.countries) p.append('country', c)
  for (const c of f.categories) p.append('cat', encodeNamed(c))
  for (const [field, param] of PLACE_LEVELS) for (const place of f[field]) p.append(param, encodePlace(place))
  for (const [field, param] of FLAGS) if (f[field]) p.set(param, '1')
  if (f.cap !== null) p.set('cap', String(f.cap))
  if (f.format !== 'csv') p.set('format', f.format)
  if (f.territory?.kind === 'polygon') for (const ring of f.territory.rings) p.append('area', ring.flat().join('_'))
  if (f.territory?.kind === 'circle') p.set('near', nearParam(f.territory))
  // ids joined by dots, which an address keeps unescaped: `xl=3.7`
  if (f.excludeLists.length) p.set('xl', f.excludeLists.join('.'))
  return p
}

/** The service takes at most 20 lists to leave out. */
export const MAX_EXCLUDE_LISTS = 20

export function searchParamsToFilters(p: URLSearchParams): SearchFilters {
  const countries = uniqueBy(
    p
      .getAll('country')
      .map((c) => c.trim().toUpperCase())
      .filter((c) => /^[A-Z]{2}$/.test(c)),
    (c) => c,
  )
  const categories = uniqueBy(
    p
      .getAll('cat')
      .map(decodeNamed)
      .filter((n): n is NamedId => n !== null),
    (n) => n.id,
  )
  const places = Object.fromEntries(
    PLACE_LEVELS.map(([field, param]) => [
      field,
      uniqueBy(
        p
          .getAll(param)
          .map(decodePlace)
          .filter((x): x is Place => x !== null && countries.includes(x.country)),
        (x) => x.id,
      ),
    ]),
  ) as Pick<SearchFilters, 'level1' | 'level2' | 'level3'>
  const flags = Object.fromEntries(FLAGS.map(([field, param]) => [field, p.get(param) === '1'])) as Pick<
    SearchFilters,
    'email' | 'phone' | 'website' | 'mainActivityOnly'
  >
  const capRaw = Number(p.get('cap'))
  const cap = p.has('cap') && Number.isInteger(capRaw) && capRaw > 0 && capRaw <= 2_147_483_647 ? capRaw : null
  return {
    countries,
    categories,
    ...places,
    ...flags,
    cap,
    format: p.get('format') === 'excel' ? 'excel' : 'csv',
    territory: decodeTerritory(p),
    excludeLists: uniqueBy(
      (p.get('xl') ?? '').split('.').filter((id) => /^[\w-]{1,40}$/.test(id)),
      (id) => id,
    ).slice(0, MAX_EXCLUDE_LISTS),
  }
}

/** The service's own filter names (an export's "Edit in search" link, or a pasted API query). */
const API_PARAMS = [
  'countries',
  'category',
  'level1_location',
  'level2_location',
  'level3_location',
  'phone_number',
  'main_activity_only',
  'max_leads',
  'within',
  'exclude_lists',
] as const

/**
 * Whether the address holds the API-style form, whose ids need names from the service before
 * they are filters (`email`/`website` count only as "true": "1" is also the canonical form).
 */
export function isApiStyleLink(p: URLSearchParams): boolean {
  return API_PARAMS.some((name) => p.has(name)) || p.get('email') === 'true' || p.get('website') === 'true'
}

/**
 * The same search in the API-style form (ids only, no names), so that a canonical address's names can
 * be asked from the service instead of being believed: a pasted link may carry any name.
 */
export function filtersToApiParams(f: SearchFilters): URLSearchParams {
  const p = new URLSearchParams()
  for (const [name, value] of Object.entries(previewQuery(f)))
    for (const v of [value].flat()) if (v !== undefined) p.append(name, String(v))
  if (f.cap !== null) p.set('max_leads', String(f.cap))
  if (f.format !== 'csv') p.set('format', f.format)
  // a circle's place has no id to ask the service for: its name goes along as the canonical address writes it
  if (f.territory?.kind === 'circle') p.set('near', nearParam(f.territory))
  return p
}

/** Whether the search holds names that came with the address (categories or places). */
export const hasNamedIds = (f: SearchFilters) => f.categories.length + f.level1.length + f.level2.length + f.level3.length > 0

/** The query of GET /api/companies/ (what the count depends on: not the cap, not the format). */
export function previewQuery(f: SearchFilters) {
  return {
    countries: f.countries,
    category: f.categories.map((c) => c.id),
    level1_location: f.level1.map((p) => p.id),
    level2_location: f.level2.map((p) => p.id),
    level3_location: f.level3.map((p) => p.id),
    email: f.email || undefined,
    phone_number: f.phone || undefined,
    website: f.website || undefined,
    main_activity_only: f.mainActivityOnly || undefined,
    ...territoryQuery(f.territory),
    exclude_lists: f.excludeLists.length ? f.excludeLists : undefined,
  }
}

export type PreviewQuery = ReturnType<typeof previewQuery>

/** Drops places of countries no longer chosen. */
export function withCountries(f: SearchFilters, countries: string[]): SearchFilters {
  const keep = (p: Place) => countries.includes(p.country)
  return { ...f, countries, level1: f.level1.filter(keep), level2: f.level2.filter(keep), level3: f.level3.filter(keep) }
}

export const hasAnyFilter = (f: SearchFilters) =>
  f.countries.length + f.categories.length > 0 || f.email || f.phone || f.website || f.mainActivityOnly || f.territory !== null
