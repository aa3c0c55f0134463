import type { Db } from '../../db/db.ts'
import type { Clock } from '../../lib/clock.ts'
import { notFound } from '../../lib/errors.ts'
import { fold, lower, matchRank } from '../../lib/name-match.ts'
import { countCompaniesAt } from '../search/company-counts.ts'
import { readDataVersion } from '../search/data-version.ts'
import { normaliseFilters } from '../search/filters.ts'

// ---- the geography is fixed after the seed: one in-memory copy per database ----

/** A name as matched: folded (case and accents), and lowered (case only: "Mü" typed with its accent). */
interface MatchForms {
  folded: string
  lowered: string
}
const matchForms = (name: string): MatchForms => ({ folded: fold(name), lowered: lower(name) })

/** A place's name in another language (migration 028). */
interface OtherName extends MatchForms {
  lng: string
  name: string
}

interface Place extends MatchForms {
  id: number
  name: string
  code: string
  country: string
  /** Its names in other languages, where they differ from its own. */
  otherNames: OtherName[]
  /** Its number of companies when the geography was read: how big a place it is, for ranking. */
  size: number
  level1_id: number
  level1_name: string
  level2_id: number
  level2_name: string
  /** Where its label goes on the map: a city's own position, a state's the mean of its cities'; none for a county (no label). */
  latitude: number | null
  longitude: number | null
}
interface Geo {
  level1: Place[]
  level2: Place[]
  level3: Place[]
  level2ById: Map<number, Place>
}

const geoCache = new WeakMap<Db, Promise<Geo>>()

function loadGeo(db: Db): Promise<Geo> {
  let geo = geoCache.get(db)
  if (!geo) {
    geo = readGeo(db)
    geoCache.set(db, geo)
    geo.catch(() => geoCache.delete(db))
  }
  return geo
}

async function readGeo(db: Db): Promise<Geo> {
  type Row = {
    id: number
    name: string
    code: string
    country: string
    l1: number
    l1n: string
    l2: number
    l2n: string
    lat: number | null
    lng: number | null
  }
  const [{ rows: names }, { rows: sizes }] = await Promise.all([
    db.query<{ level: number; place_id: number; lng: string; name: string }>(
      'SELECT level, place_id, lng, name FROM place_names ORDER BY level, place_id, lng',
    ),
    // the counts kept beside the companies (migration 003): a few rows per city, never the companies
    db.query<{ l1: number; l2: number; l3: number; n: number }>(
      'SELECT level1_id AS l1, level2_id AS l2, level3_id AS l3, sum(n)::int AS n FROM company_counts GROUP BY 1, 2, 3',
    ),
  ])
  const otherNames = new Map<string, OtherName[]>()
  for (const n of names) {
    const key = `${n.level}:${n.place_id}`
    otherNames.set(key, [...(otherNames.get(key) ?? []), { lng: n.lng, name: n.name, ...matchForms(n.name) }])
  }
  const size = new Map<string, number>()
  const grow = (key: string, n: number) => size.set(key, (size.get(key) ?? 0) + n)
  for (const r of sizes) {
    grow(`1:${r.l1}`, r.n)
    grow(`2:${r.l2}`, r.n)
    grow(`3:${r.l3}`, r.n)
  }
  const place =
    (level: 1 | 2 | 3) =>
    (r: Row): Place => ({
      id: r.id,
      name: r.name,
      code: r.code,
      country: r.country.trim(),
      ...matchForms(r.name),
      otherNames: otherNames.get(`${level}:${r.id}`) ?? [],
      size: size.get(`${level}:${r.id}`) ?? 0,
      level1_id: r.l1,
      level1_name: r.l1n,
      level2_id: r.l2,
      level2_name: r.l2n,
      latitude: r.lat,
      longitude: r.lng,
    })
  const [l1, l2, l3] = await Promise.all([
    db.query<Row>(
      `SELECT l1.id, l1.name, l1.code, l1.country_code AS country, l1.id AS l1, l1.name AS l1n, 0 AS l2, '' AS l2n,
              (SELECT avg(latitude) FROM level3_locations WHERE level1_id = l1.id) AS lat,
              (SELECT avg(longitude) FROM level3_locations WHERE level1_id = l1.id) AS lng
       FROM level1_locations l1 ORDER BY l1.id`,
    ),
    db.query<Row>(
      `SELECT l2.id, l2.name, l2.code, l2.country_code AS country, l1.id AS l1, l1.name AS l1n, l2.id AS l2, l2.name AS l2n,
              NULL AS lat, NULL AS lng
       FROM level2_locations l2 JOIN level1_locations l1 ON l1.id = l2.level1_id ORDER BY l2.id`,
    ),
    db.query<Row>(
      `SELECT l3.id, l3.name, l3.code, l3.country_code AS country, l1.id AS l1, l1.name AS l1n, l2.id AS l2, l2.name AS l2n,
              l3.latitude AS lat, l3.longitude AS lng
       FROM level3_locations l3
       JOIN level2_locations l2 ON l2.id = l3.level2_id
       JOIN level1_locations l1 ON l1.id = l3.level1_id
       ORDER BY l3.id`,
    ),
  ])
  const level2 = l2.rows.map(place(2))
  return {
    level1: l1.rows.map(place(1)),
    level2,
    level3: l3.rows.map(place(3)),
    level2ById: new Map(level2.map((p) => [p.id, p])),
  }
}

/** The seeded countries (fixed like the places), by name. */
const countriesCache = new WeakMap<Db, Promise<{ code: string; name: string; language: string }[]>>()

function loadCountries(db: Db) {
  let countries = countriesCache.get(db)
  if (!countries) {
    countries = db
      .query<{ code: string; name: string; language: string }>('SELECT code, name, language FROM countries ORDER BY name')
      .then(({ rows }) => rows.map((r) => ({ ...r, code: r.code.trim() })))
    countriesCache.set(db, countries)
    countries.catch(() => countriesCache.delete(db))
  }
  return countries
}

const level1Item = (p: Place) => ({ id: p.id, name: p.name, code: p.code, country: p.country })
const level2Item = (p: Place) => ({ id: p.id, name: p.name, code: p.code, level1_id: p.level1_id, level1_name: p.level1_name })
const level3Item = (p: Place) => ({
  id: String(p.id),
  name: p.name,
  code: p.code,
  level2_id: p.level2_id,
  level2_name: p.level2_name,
  level1_id: p.level1_id,
  level1_name: p.level1_name,
})

/** Keeps places of the country (when given) and under the given parents (when given). */
function narrow(places: Place[], q: { country?: string; states?: number[]; counties?: number[] }): Place[] {
  const states = q.states?.length ? new Set(q.states) : null
  const counties = q.counties?.length ? new Set(q.counties) : null
  return places.filter(
    (p) => (!q.country || p.country === q.country) && (!states || states.has(p.level1_id)) && (!counties || counties.has(p.level2_id)),
  )
}

const MAX_MATCHES = 10
/** One collator for every comparison: `localeCompare` builds one per call, which dominated a search's time. */
const byName = new Intl.Collator('en').compare

/** What a name of a place makes of the query: how well it matches (matchRank) and with the accents as typed. */
interface NameMatch {
  rank: number
  /** The query has accents and the name has them too ("Mü": München, not Mumbles). */
  asTyped: boolean
}

/** A place the query matches: by its own name or by `other`, one of its names in another language. */
interface Found extends NameMatch {
  p: Place
  other: OtherName | null
  /** Matched by a name in a language other than the reader's. */
  foreign: boolean
}

function matchName(name: MatchForms, query: MatchForms): NameMatch | null {
  const rank = matchRank(name.folded, query.folded)
  if (rank === null) return null
  return { rank, asTyped: query.lowered !== query.folded && name.lowered.includes(query.lowered) }
}

/** Negative when `a` matches better than `b`. */
const compareMatches = (a: NameMatch, b: NameMatch) => a.rank - b.rank || Number(b.asTyped) - Number(a.asTyped)

/**
 * The name by which the query finds the place: its own whenever it matches (a name in a foreign
 * language beside the one typed would puzzle), else the best of its other names: the reader's
 * language, then English, then the shortest (the closest match), so that "Colo" reads Cologne and, for
 * a Spanish reader (`lng=es`), Colonia.
 */
function matchPlace(p: Place, query: MatchForms, lng: string | undefined): Found | null {
  const own = matchName(p, query)
  if (own) return { ...own, p, other: null, foreign: false }
  const preference = (n: OtherName) => (n.lng === lng ? 0 : n.lng === 'en' ? 1 : 2)
  let best: Found | null = null
  for (const other of p.otherNames) {
    const m = matchName(other, query)
    if (!m) continue
    const order = best?.other
      ? compareMatches(m, best) ||
        preference(other) - preference(best.other) ||
        other.folded.length - best.other.folded.length ||
        byName(other.lng, best.other.lng)
      : -1
    if (order < 0) best = { ...m, p, other, foreign: other.lng !== lng }
  }
  return best
}

/**
 * The best MAX_MATCHES: the whole name, then names starting with the query, then a later word doing
 * so, then containing it (matchRank); at the same rank, a name with the accents typed, then a place's
 * own name or one in the reader's language before other languages' names, then the bigger place (more
 * companies), the shorter name, by name.
 */
function bestMatches(places: Place[], q: string, lng: string | undefined): Found[] {
  const query = matchForms(q)
  const found: Found[] = []
  for (const p of places) {
    const f = matchPlace(p, query, lng)
    if (f) found.push(f)
  }
  found.sort(
    (a, b) =>
      compareMatches(a, b) ||
      Number(a.foreign) - Number(b.foreign) ||
      b.p.size - a.p.size ||
      a.p.name.length - b.p.name.length ||
      byName(a.p.name, b.p.name) ||
      a.p.id - b.p.id,
  )
  return found.slice(0, MAX_MATCHES)
}

/** Parents that narrow a list of places: a country, states (level 1), counties (level 2). */
interface Narrowing {
  country?: string
  states?: number[]
  counties?: number[]
}

/** The seeded countries, each with its number of companies (as a search of the whole country counts them). */
export async function countriesWithCounts(db: Db, now: Date) {
  const [version, countries] = await Promise.all([readDataVersion(db), loadCountries(db)])
  const result = []
  for (const r of countries) {
    result.push({ ...r, company_count: (await countCompaniesAt(db, version, normaliseFilters({ countries: [r.code] }), now)).count })
  }
  return result
}

export const level1Places = async (db: Db, q: Narrowing) => narrow((await loadGeo(db)).level1, q).map(level1Item)
export const level2Places = async (db: Db, q: Narrowing) => narrow((await loadGeo(db)).level2, q).map(level2Item)
export const level3Places = async (db: Db, q: Narrowing) => narrow((await loadGeo(db)).level3, q).map(level3Item)

export async function level2Place(db: Db, id: number) {
  const place = (await loadGeo(db)).level2ById.get(id)
  if (!place) throw notFound('No such level-2 location.')
  return level2Item(place)
}

/** The cities of a country (ISO alpha-2, upper case) that have a company now; 404 for an unknown country. */
export async function citiesOf(db: Db, code: string, clock: Clock) {
  const known = await db.query('SELECT 1 FROM countries WHERE code = $1', [code])
  if (!known.rows.length) throw notFound('No such country.')
  const { rows } = await db.query<{ id: number; name: string; code: string }>(
    `SELECT l3.id, l3.name, l3.code FROM level3_locations l3
       WHERE l3.country_code = $1
         AND EXISTS (SELECT 1 FROM companies c WHERE c.level3_id = l3.id AND c.created_at <= $2)
       ORDER BY l3.name, l3.id`,
    [code, clock.now().toISOString()],
  )
  return rows.map((r) => ({ id: String(r.id), name: r.name, code: r.code }))
}

/** Where a place's label goes; a state without cities has none. */
const position = (p: Place) =>
  p.latitude === null || p.longitude === null ? {} : { latitude: Number(p.latitude), longitude: Number(p.longitude) }

/**
 * The labels of the map's basemap (extension `geo`): every state and city with its position, in the
 * reader's language where the place has a name in it, the biggest (most companies) first.
 */
export async function placeLabels(db: Db, lng: string) {
  const geo = await loadGeo(db)
  const label = (level: 1 | 3) => (p: Place) => ({
    id: String(p.id),
    name: p.otherNames.find((n) => n.lng === lng)?.name ?? p.name,
    level,
    size: p.size,
    ...position(p),
  })
  return [...geo.level1.map(label(1)), ...geo.level3.map(label(3))]
    .filter((l): l is typeof l & { latitude: number; longitude: number } => 'latitude' in l)
    .sort((a, b) => b.size - a.size)
}

/**
 * Places of every level whose name matches `q`, in any language (`lng`: the reader's, preferred), the
 * best MAX_MATCHES per level, each with its parents and, when another language's name matched rather
 * than its own, that name (`matched_name`, extension `place_names`).
 */
export async function findPlaces(db: Db, q: string, { country, states, counties, lng }: Narrowing & { lng?: string }) {
  const geo = await loadGeo(db)
  const item =
    (level: 1 | 2 | 3) =>
    ({ p, other }: Found) => ({
      id: level === 3 ? String(p.id) : p.id,
      name: p.name,
      level,
      country: p.country,
      ...(level > 1 ? { level1_id: p.level1_id, level1_name: p.level1_name } : {}),
      ...(level > 2 ? { level2_id: p.level2_id, level2_name: p.level2_name } : {}),
      ...(other ? { matched_name: other.name } : {}),
    })
  return {
    level1: bestMatches(narrow(geo.level1, { country }), q, lng).map(item(1)),
    level2: bestMatches(narrow(geo.level2, { country, states }), q, lng).map(item(2)),
    level3: bestMatches(narrow(geo.level3, { country, states, counties }), q, lng).map(item(3)),
  }
}
