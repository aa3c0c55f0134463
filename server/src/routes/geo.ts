import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi'
import type { AppEnv } from '../app-env.ts'
import type { Db } from '../db/db.ts'
import { authed, security } from '../lib/authed.ts'
import { notFound } from '../lib/errors.ts'
import { countCompaniesAt } from '../lib/company-counts.ts'
import { readDataVersion } from '../lib/data-version.ts'
import { countryCodeQuery, idListQuery, normaliseFilters } from '../lib/filters.ts'
import { authErrors, idParam, jsonError, safeString } from '../lib/schemas.ts'

/** Case- and accent-insensitive form of a name for matching ("Łódź" → "lodz", "Köln" → "koln"). */
export function fold(s: string): string {
  return s
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/ł/gi, 'l')
    .replace(/ß/g, 'ss')
    .toLowerCase()
    .replace(/[’'`]/g, '')
    .replace(/[^\p{L}\p{M}\p{N}]+/gu, ' ')
    .trim()
}

/** 0 = the name starts with the query, 1 = one of its words does, 2 = it contains it, null = no match. */
export function matchRank(foldedName: string, foldedQuery: string): number | null {
  if (!foldedQuery) return 0
  if (foldedName.startsWith(foldedQuery)) return 0
  if (foldedName.includes(` ${foldedQuery}`)) return 1
  if (foldedName.includes(foldedQuery)) return 2
  return null
}

// ---- shapes ----

const CountrySchema = z
  .object({ code: z.string(), name: z.string(), language: z.string(), company_count: z.number().int() })
  .openapi('Country')
const Level1Schema = z.object({ id: z.number().int(), name: z.string(), code: z.string(), country: z.string() }).openapi('Level1Location')
const Level2Schema = z
  .object({ id: z.number().int(), name: z.string(), code: z.string(), level1_id: z.number().int(), level1_name: z.string() })
  .openapi('Level2Location')
const Level3Schema = z
  .object({
    id: z.string(),
    name: z.string(),
    code: z.string(),
    level2_id: z.number().int(),
    level2_name: z.string(),
    level1_id: z.number().int(),
    level1_name: z.string(),
  })
  .openapi('Level3Location')
const CitySchema = z.object({ id: z.string(), name: z.string(), code: z.string() }).openapi('City')
const PlaceMatchSchema = z
  .object({
    id: z.union([z.number().int(), z.string()]).openapi({ description: 'A number for levels 1 and 2, a string for cities.' }),
    name: z.string(),
    level: z.union([z.literal(1), z.literal(2), z.literal(3)]),
    country: z.string(),
    level1_id: z.number().int().optional(),
    level1_name: z.string().optional(),
    level2_id: z.number().int().optional(),
    level2_name: z.string().optional(),
  })
  .openapi('PlaceMatch')
const PlaceSearchSchema = z
  .object({ level1: z.array(PlaceMatchSchema), level2: z.array(PlaceMatchSchema), level3: z.array(PlaceMatchSchema) })
  .openapi('PlaceSearchResult')

const json = <T extends z.ZodType>(schema: T, description: string) => ({
  description,
  content: { 'application/json': { schema } },
})
const protectedRoute = { tags: ['Geography'], middleware: authed, security }

// ---- the geography is fixed after the seed: one in-memory copy per database ----

interface Place {
  id: number
  name: string
  code: string
  country: string
  folded: string
  level1_id: number
  level1_name: string
  level2_id: number
  level2_name: string
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
  type Row = { id: number; name: string; code: string; country: string; l1: number; l1n: string; l2: number; l2n: string }
  const place = (r: Row): Place => ({
    id: r.id,
    name: r.name,
    code: r.code,
    country: r.country.trim(),
    folded: fold(r.name),
    level1_id: r.l1,
    level1_name: r.l1n,
    level2_id: r.l2,
    level2_name: r.l2n,
  })
  const [l1, l2, l3] = await Promise.all([
    db.query<Row>(
      `SELECT id, name, code, country_code AS country, id AS l1, name AS l1n, 0 AS l2, '' AS l2n
       FROM level1_locations ORDER BY id`,
    ),
    db.query<Row>(
      `SELECT l2.id, l2.name, l2.code, l2.country_code AS country, l1.id AS l1, l1.name AS l1n, l2.id AS l2, l2.name AS l2n
       FROM level2_locations l2 JOIN level1_locations l1 ON l1.id = l2.level1_id ORDER BY l2.id`,
    ),
    db.query<Row>(
      `SELECT l3.id, l3.name, l3.code, l3.country_code AS country, l1.id AS l1, l1.name AS l1n, l2.id AS l2, l2.name AS l2n
       FROM level3_locations l3
       JOIN level2_locations l2 ON l2.id = l3.level2_id
       JOIN level1_locations l1 ON l1.id = l3.level1_id
       ORDER BY l3.id`,
    ),
  ])
  const level2 = l2.rows.map(place)
  return {
    level1: l1.rows.map(place),
    level2,
    level3: l3.rows.map(place),
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

// ---- routes ----

const countriesRoute = createRoute({
  ...protectedRoute,
  method: 'get',
  path: '/api/locations/countries',
  summary: 'Countries with their main language and number of companies',
  responses: { 200: json(z.array(CountrySchema), 'Countries'), ...authErrors },
})

const level1Route = createRoute({
  ...protectedRoute,
  method: 'get',
  path: '/api/locations/level1',
  summary: 'States/regions (level 1), optionally of one country',
  request: { query: z.object({ country: countryCodeQuery }) },
  responses: { 200: json(z.array(Level1Schema), 'Level-1 locations'), 400: jsonError('Invalid input'), ...authErrors },
})

const level2Route = createRoute({
  ...protectedRoute,
  method: 'get',
  path: '/api/locations/level2',
  summary: 'Counties/departments (level 2), narrowed by country and states',
  request: { query: z.object({ country: countryCodeQuery, states: idListQuery('state') }) },
  responses: { 200: json(z.array(Level2Schema), 'Level-2 locations'), 400: jsonError('Invalid input'), ...authErrors },
})

const level2OneRoute = createRoute({
  ...protectedRoute,
  method: 'get',
  path: '/api/locations/level2/{id}',
  summary: 'One county/department',
  request: { params: z.object({ id: idParam('id') }) },
  responses: {
    200: json(Level2Schema, 'The level-2 location'),
    400: jsonError('Invalid id'),
    404: jsonError('Unknown id'),
    ...authErrors,
  },
})

const level3Route = createRoute({
  ...protectedRoute,
  method: 'get',
  path: '/api/locations/level3',
  summary: 'Cities (level 3), narrowed by country, states and counties',
  request: {
    query: z.object({ country: countryCodeQuery, states: idListQuery('state'), counties: idListQuery('county') }),
  },
  responses: { 200: json(z.array(Level3Schema), 'Level-3 locations'), 400: jsonError('Invalid input'), ...authErrors },
})

const citiesRoute = createRoute({
  ...protectedRoute,
  method: 'get',
  path: '/api/cities/{country_alpha2_code}',
  summary: 'Cities of a country that have companies (interface 2.7)',
  request: {
    params: z.object({
      country_alpha2_code: safeString()
        .regex(/^[a-zA-Z]{2}$/, 'Must be a two-letter country code.')
        .openapi({ param: { name: 'country_alpha2_code', in: 'path' }, example: 'DE' }),
    }),
  },
  responses: {
    200: json(z.array(CitySchema), 'Cities'),
    400: jsonError('Invalid country code'),
    404: jsonError('Unknown country'),
    ...authErrors,
  },
})

const searchRoute = createRoute({
  ...protectedRoute,
  method: 'get',
  path: '/api/locations/search',
  summary: 'Find places of every level by name (case- and accent-insensitive; prefix matches first)',
  description:
    'At most 10 per level. `states` narrows levels 2 and 3 to those states, `counties` narrows level 3 to those counties. ' +
    'Items carry their parents so that places sharing a name can be told apart.',
  request: {
    query: z.object({
      q: safeString().trim().min(1, 'Type at least one character.').max(100, 'At most 100 characters.'),
      country: countryCodeQuery,
      states: idListQuery('state'),
      counties: idListQuery('county'),
    }),
  },
  responses: { 200: json(PlaceSearchSchema, 'Matches per level'), 400: jsonError('Invalid input'), ...authErrors },
})

const MAX_MATCHES = 10

function bestMatches(places: Place[], query: string): Place[] {
  const folded = fold(query)
  const ranked: { p: Place; rank: number }[] = []
  for (const p of places) {
    const rank = matchRank(p.folded, folded)
    if (rank !== null) ranked.push({ p, rank })
  }
  ranked.sort((a, b) => a.rank - b.rank || a.p.name.length - b.p.name.length || a.p.name.localeCompare(b.p.name) || a.p.id - b.p.id)
  return ranked.slice(0, MAX_MATCHES).map((r) => r.p)
}

export function registerGeoRoutes(app: OpenAPIHono<AppEnv>) {
  app.openapi(countriesRoute, async (c) => {
    const { db, clock } = c.var.deps
    const now = clock.now()
    const [version, countries] = await Promise.all([readDataVersion(db), loadCountries(db)])
    const result = []
    for (const r of countries) {
      result.push({ ...r, company_count: (await countCompaniesAt(db, version, normaliseFilters({ countries: [r.code] }), now)).count })
    }
    return c.json(result, 200)
  })

  app.openapi(level1Route, async (c) => {
    const geo = await loadGeo(c.var.deps.db)
    return c.json(narrow(geo.level1, c.req.valid('query')).map(level1Item), 200)
  })

  app.openapi(level2Route, async (c) => {
    const geo = await loadGeo(c.var.deps.db)
    return c.json(narrow(geo.level2, c.req.valid('query')).map(level2Item), 200)
  })

  app.openapi(level2OneRoute, async (c) => {
    const geo = await loadGeo(c.var.deps.db)
    const place = geo.level2ById.get(c.req.valid('param').id)
    if (!place) throw notFound('No such level-2 location.')
    return c.json(level2Item(place), 200)
  })

  app.openapi(level3Route, async (c) => {
    const geo = await loadGeo(c.var.deps.db)
    return c.json(narrow(geo.level3, c.req.valid('query')).map(level3Item), 200)
  })

  app.openapi(citiesRoute, async (c) => {
    const { db, clock } = c.var.deps
    const code = c.req.valid('param').country_alpha2_code.toUpperCase()
    const known = await db.query('SELECT 1 FROM countries WHERE code = $1', [code])
    if (!known.rows.length) throw notFound('No such country.')
    const { rows } = await db.query<{ id: number; name: string; code: string }>(
      `SELECT l3.id, l3.name, l3.code FROM level3_locations l3
       WHERE l3.country_code = $1
         AND EXISTS (SELECT 1 FROM companies c WHERE c.level3_id = l3.id AND c.created_at <= $2)
       ORDER BY l3.name, l3.id`,
      [code, clock.now().toISOString()],
    )
    return c.json(
      rows.map((r) => ({ id: String(r.id), name: r.name, code: r.code })),
      200,
    )
  })

  app.openapi(searchRoute, async (c) => {
    const { q, country, states, counties } = c.req.valid('query')
    const geo = await loadGeo(c.var.deps.db)
    const item = (level: 1 | 2 | 3) => (p: Place) => ({
      id: level === 3 ? String(p.id) : p.id,
      name: p.name,
      level,
      country: p.country,
      ...(level > 1 ? { level1_id: p.level1_id, level1_name: p.level1_name } : {}),
      ...(level > 2 ? { level2_id: p.level2_id, level2_name: p.level2_name } : {}),
    })
    return c.json(
      {
        level1: bestMatches(narrow(geo.level1, { country }), q).map(item(1)),
        level2: bestMatches(narrow(geo.level2, { country, states }), q).map(item(2)),
        level3: bestMatches(narrow(geo.level3, { country, states, counties }), q).map(item(3)),
      },
      200,
    )
  })
}
