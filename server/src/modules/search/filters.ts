import { createHash } from 'node:crypto'
import { z } from '@hono/zod-openapi'
import {
  canonicalNear,
  canonicalTerritory,
  EARTH_RADIUS_KM,
  GeometryError,
  nearBox,
  parseNear,
  parseTerritory,
  pgPolygon,
  polygonsOf,
  territoryBox,
  type Box,
  type Near,
  type Territory,
} from '../../lib/geometry.ts'
import type { Queryable } from '../../db/db.ts'
import { badRequest } from '../../lib/errors.ts'
import { safeString } from '../../lib/schemas.ts'
import { listsExcludeWhere } from '../lists/service.ts'

/**
 * The company filters of `GET /api/companies/` (decisions.md table), shared by the preview, the
 * exports and the history. Lists arrive repeated (`countries=DE&countries=FR`, which Hono hands over
 * as an array) or comma-separated (`countries=DE,FR`), or both.
 */

export const MAX_LIST_VALUES = 50
/** Lists one search may leave out (extension `lists`): as many as an account may hold. */
export const MAX_EXCLUDE_LISTS = 20
const INT32_MAX = 2_147_483_647

/** One query value or several → trimmed, non-empty parts (splitting on commas). */
function splitList(value: string | string[] | undefined): string[] {
  if (value === undefined) return []
  const parts = Array.isArray(value) ? value : [value]
  return parts
    .flatMap((p) => p.split(','))
    .map((p) => p.trim())
    .filter((p) => p !== '')
}

const rawList = z.union([safeString(), z.array(safeString())]).optional()

function tooMany(ctx: z.RefinementCtx, count: number, limit = MAX_LIST_VALUES): boolean {
  if (count <= limit) return false
  ctx.addIssue({
    code: 'custom',
    message: `At most ${limit} values are allowed (got ${count}).`,
    params: { code: 'too_many_values', limit },
  })
  return true
}

/** An optional single country code query parameter (`?country=de`), normalised to upper case. */
export const countryCodeQuery = safeString()
  .optional()
  .transform((value, ctx) => {
    const v = value?.trim()
    if (!v) return undefined // `?country=` means no country, like leaving it out
    if (!/^[a-zA-Z]{2}$/.test(v)) {
      ctx.addIssue({ code: 'custom', message: 'Must be a two-letter country code.', params: { code: 'invalid_country_code' } })
      return z.NEVER
    }
    return v.toUpperCase()
  })
  .openapi({ type: 'string', example: 'DE', description: 'Country alpha-2 code.' })

const countryList = rawList
  .transform((value, ctx) => {
    const parts = splitList(value)
    if (tooMany(ctx, parts.length)) return z.NEVER
    const bad = parts.filter((p) => !/^[a-z]{2}$/i.test(p))
    if (bad.length) {
      ctx.addIssue({
        code: 'custom',
        message: `Not a two-letter country code: ${bad.slice(0, 5).join(', ')}.`,
        params: { code: 'invalid_country_code' },
      })
      return z.NEVER
    }
    return parts.map((p) => p.toUpperCase())
  })
  .openapi({
    description: 'Country alpha-2 codes, repeated or comma-separated (case-insensitive).',
    example: 'DE',
  })

/** Positive int32 ids, repeated (`states=1&states=2`) or comma-separated (`states=1,2`), at most `limit`. */
export const idListQuery = (what: string, limit = MAX_LIST_VALUES) =>
  rawList
    .transform((value, ctx) => {
      const parts = splitList(value)
      if (tooMany(ctx, parts.length, limit)) return z.NEVER
      const bad = parts.filter((p) => !/^\d{1,10}$/.test(p) || Number(p) < 1 || Number(p) > INT32_MAX)
      if (bad.length) {
        ctx.addIssue({
          code: 'custom',
          message: `Not a valid ${what} id (a positive 32-bit integer): ${bad.slice(0, 5).join(', ')}.`,
          params: { code: 'invalid_id' },
        })
        return z.NEVER
      }
      return parts.map(Number)
    })
    .openapi({ description: `${what} ids, repeated or comma-separated.` })

/** Exactly these (issue 22: `yes`, `on`, `TRUE` or an empty value were read loosely). */
const TRUE_VALUES = new Set(['true', '1'])
const FALSE_VALUES = new Set(['false', '0'])

/** Boolean-like query flag: "true"/"1" or "false"/"0", nothing else; absent = false. */
export const booleanLike = safeString()
  .optional()
  .transform((value, ctx) => {
    if (value === undefined) return false
    if (TRUE_VALUES.has(value)) return true
    if (FALSE_VALUES.has(value)) return false
    ctx.addIssue({ code: 'custom', message: 'Must be a boolean: "true", "1", "false" or "0".', params: { code: 'invalid_boolean' } })
    return z.NEVER
  })
  .openapi({ type: 'string', enum: ['true', 'false', '1', '0'] })

/** A territory parameter (extension `geo`): absent or empty means none; otherwise parsed and checked. */
const territoryQuery = <T>(parse: (text: string) => T) =>
  safeString()
    .optional()
    .transform((value, ctx) => {
      if (value === undefined || value.trim() === '') return undefined
      try {
        return parse(value)
      } catch (err) {
        if (!(err instanceof GeometryError)) throw err
        ctx.addIssue({ code: 'custom', message: err.message, params: { code: err.code } })
        return z.NEVER
      }
    })

export const filtersQuerySchema = z.object({
  countries: countryList,
  category: idListQuery('category'),
  level1_location: idListQuery('level-1 location (state/region)'),
  level2_location: idListQuery('level-2 location (county)'),
  level3_location: idListQuery('level-3 location (city)'),
  email: booleanLike,
  phone_number: booleanLike,
  website: booleanLike,
  main_activity_only: booleanLike,
  within: territoryQuery(parseTerritory).openapi({
    type: 'string',
    description:
      'Extension `geo`: only leads inside this area, a GeoJSON Polygon or MultiPolygon geometry as JSON text ([longitude, latitude] ' +
      'positions, edges straight in degrees as RFC 7946 reads them; holes leave their inside out). Rings closed, at most 1,000 ' +
      'vertices in all, none crossing itself, at most 2,500,000 km².',
    example: '{"type":"Polygon","coordinates":[[[11.4,48.0],[11.8,48.0],[11.8,48.3],[11.4,48.3],[11.4,48.0]]]}',
    'x-extension': true,
  }),
  near: territoryQuery(parseNear).openapi({
    type: 'string',
    description: 'Extension `geo`: only leads within `radius_km` (great-circle distance, more than 0, at most 200) of a point.',
    example: '48.137,11.575,10',
    pattern: '^-?[0-9.]+,-?[0-9.]+,[0-9.]+$',
    'x-extension': true,
  }),
  exclude_lists: idListQuery('list', MAX_EXCLUDE_LISTS).openapi({
    description:
      `Extension \`lists\`: leave out the companies matched by these lists of the account (at most ${MAX_EXCLUDE_LISTS}, repeated or ` +
      "comma-separated; matched rows, manual matches included). A list that is not the caller's, or no longer exists, is a 400 " +
      "(`unknown_list` on `exclude_lists`). Counts follow the lists' matches as they change.",
    example: '12,15',
    'x-extension': true,
  }),
  paginate: booleanLike,
  page: safeString()
    .optional()
    .transform((value, ctx) => {
      if (value === undefined || value.trim() === '') return 1
      const v = value.trim()
      if (!/^\d{1,10}$/.test(v) || Number(v) < 1 || Number(v) > INT32_MAX) {
        ctx.addIssue({ code: 'custom', message: 'A page number is a positive integer.', params: { code: 'invalid_id' } })
        return z.NEVER
      }
      return Number(v)
    })
    .openapi({ type: 'integer', minimum: 1, description: 'Page (with paginate=true), from 1.' }),
})

export type FiltersQuery = z.output<typeof filtersQuerySchema>

export interface Filters {
  countries: string[]
  category: number[]
  level1_location: number[]
  level2_location: number[]
  level3_location: number[]
  email: boolean
  phone_number: boolean
  website: boolean
  main_activity_only: boolean
  /** Extension `geo`: only companies inside this area; absent when not chosen (so the hash of a search without one is unchanged). */
  within?: Territory
  /** Extension `geo`: only companies within this great-circle distance of a point. */
  near?: Near
  /** Extension `lists`: leave out the companies these lists of the account matched; absent when none (the hash stays as it was). */
  exclude_lists?: number[]
}

/** What normaliseFilters accepts: parsed query output, a stored `searches.filters` JSON, or a partial one. */
export type FiltersInput = Partial<Record<keyof Filters, unknown>>

const sortedUniqueNumbers = (v: unknown): number[] =>
  Array.isArray(v) ? [...new Set(v.map(Number).filter((n) => Number.isInteger(n) && n > 0 && n <= INT32_MAX))].sort((a, b) => a - b) : []

const sortedUniqueCountries = (v: unknown): string[] =>
  Array.isArray(v)
    ? [...new Set(v.filter((s): s is string => typeof s === 'string' && /^[a-z]{2}$/i.test(s)).map((s) => s.toUpperCase()))].sort()
    : []

/**
 * Canonical form: lists sorted and de-duplicated, flags strictly boolean, keys in a fixed order. A
 * territory is added only when there is one, so a search without it keeps the JSON (and hash) it had
 * before territories existed. A stored territory was checked when it was asked for; one that is not
 * valid now throws rather than widen a search to everywhere.
 */
export function normaliseFilters(input: FiltersInput): Filters {
  const filters: Filters = {
    countries: sortedUniqueCountries(input.countries),
    category: sortedUniqueNumbers(input.category),
    level1_location: sortedUniqueNumbers(input.level1_location),
    level2_location: sortedUniqueNumbers(input.level2_location),
    level3_location: sortedUniqueNumbers(input.level3_location),
    email: input.email === true,
    phone_number: input.phone_number === true,
    website: input.website === true,
    main_activity_only: input.main_activity_only === true,
  }
  if (input.within != null) filters.within = canonicalTerritory(input.within)
  if (input.near != null) filters.near = canonicalNear(input.near)
  const lists = sortedUniqueNumbers(input.exclude_lists)
  if (lists.length) filters.exclude_lists = lists
  return filters
}

/** The search without its lists: what every account's counts share (cached), from which the lists' matches are taken away. */
export function withoutLists(f: Filters): Filters {
  const { exclude_lists: _lists, ...rest } = f
  return rest
}

/**
 * Refuses a search naming a list that is not the account's (another account's, a deleted one, one
 * still uploading) before anything is counted: 400 `unknown_list` on `field`, in the same words
 * whoever holds the list, so that an answer never tells whether a list id exists. `field` is
 * `exclude_lists` for a search, or `search_id` for an export or fresh data started from a stored
 * search whose list was deleted since (it would otherwise leave nothing out and charge for more).
 * Answers the versions of the lists' matches (migration 034) as a cache key ('' without lists): a
 * search's cached counts are those of the lists as they are matched now.
 */
export async function ownLists(q: Queryable, account: number, f: Filters, field = 'exclude_lists'): Promise<string> {
  if (!f.exclude_lists) return ''
  const { rows } = await q.query<{ id: number; matches_version: string }>(
    `SELECT id, matches_version::text FROM lists WHERE id = ANY($1::int[]) AND user_id = $2 AND status <> 'uploading' ORDER BY id`,
    [f.exclude_lists, account],
  )
  if (rows.length === f.exclude_lists.length) return rows.map((r) => `${r.id}@${r.matches_version}`).join(',')
  const message =
    field === 'exclude_lists' ? 'No such list.' : 'This search leaves out a list that no longer exists: search again without it.'
  throw badRequest({ [field]: [{ code: 'unknown_list', message }] })
}

/** Whether a search is narrowed to a territory (then the counts kept by place cannot answer it). */
export const hasTerritory = (f: Filters) => f.within !== undefined || f.near !== undefined

/** sha256 of the canonical JSON: the same filters (in any order or spelling) give the same hash. */
export function filtersHash(f: Filters): string {
  return createHash('sha256')
    .update(JSON.stringify(normaliseFilters(f)))
    .digest('hex')
}

/**
 * A boolean SQL condition on `companies c` for the filters; 'TRUE' when nothing is chosen.
 * Lists are OR within a field and AND across fields.
 *
 * Locations, "the most specific chosen level wins within a branch" — picking a state and then some of
 * its cities narrows the search to those cities, as a person means it. A company matches when it lies
 *   - in a chosen city, or
 *   - in a chosen county that contains no chosen city, or
 *   - in a chosen state that contains no chosen county and no chosen city.
 * Separate branches add up (a city in another state than the chosen state is simply included too).
 * The effective id sets are computed once per query (uncorrelated ARRAY(...) sub-selects), so the
 * per-level indexes on companies stay usable.
 *
 * Categories: any of the company's categories (`category_ids &&`, GIN), or with main_activity_only
 * only its main category. A parent area is never summed from its children: the count is one
 * count(*) over companies.
 *
 * Lists (extension `lists`): an anti-join on the matches of `account`'s lists (listsExcludeWhere), so
 * a search leaving lists out needs the account asking; whether the lists are its own was checked
 * before (ownLists), with a 400.
 */
export function filtersWhere(f: Filters, firstParam = 1, account: number | null = null): { sql: string; params: unknown[] } {
  const params: unknown[] = []
  const p = (value: unknown) => {
    params.push(value)
    return `$${firstParam + params.length - 1}`
  }
  const conditions: string[] = []

  if (f.countries.length) conditions.push(`c.country_code = ANY(${p(f.countries)}::bpchar[])`)

  if (f.category.length) {
    conditions.push(
      f.main_activity_only ? `c.main_category_id = ANY(${p(f.category)}::int[])` : `c.category_ids && ${p(f.category)}::int[]`,
    )
  }

  const l1 = f.level1_location
  const l2 = f.level2_location
  const l3 = f.level3_location
  if (l1.length || l2.length || l3.length) {
    const branches: string[] = []
    const l3Param = l3.length ? p(l3) : null
    const l2Param = l2.length ? p(l2) : null
    if (l3Param) branches.push(`c.level3_id = ANY(${l3Param}::int[])`)
    if (l2Param) {
      const counties = l3Param
        ? `ARRAY(SELECT unnest(${l2Param}::int[]) EXCEPT SELECT level2_id FROM level3_locations WHERE id = ANY(${l3Param}::int[]))`
        : `${l2Param}::int[]`
      branches.push(`c.level2_id = ANY(${counties})`)
    }
    if (l1.length) {
      const l1Param = p(l1)
      const inner = [
        l2Param ? `SELECT level1_id FROM level2_locations WHERE id = ANY(${l2Param}::int[])` : null,
        l3Param ? `SELECT level1_id FROM level3_locations WHERE id = ANY(${l3Param}::int[])` : null,
      ].filter((s): s is string => s !== null)
      const states = inner.length ? `ARRAY(SELECT unnest(${l1Param}::int[]) EXCEPT (${inner.join(' UNION ')}))` : `${l1Param}::int[]`
      branches.push(`c.level1_id = ANY(${states})`)
    }
    conditions.push(branches.length === 1 ? branches[0]! : `(${branches.join(' OR ')})`)
  }

  if (f.email) conditions.push('c.has_email')
  if (f.phone_number) conditions.push('c.has_phone')
  if (f.website) conditions.push('c.has_website')

  if (f.within) conditions.push(withinSql(f.within, p))
  if (f.near) conditions.push(nearSql(f.near, p))

  if (f.exclude_lists) {
    const lists = listsMatched(f.exclude_lists, account, firstParam + params.length)
    params.push(...lists.params)
    conditions.push(lists.sql)
  }

  return { sql: conditions.length ? conditions.join(' AND ') : 'TRUE', params }
}

/** The account's lists' matches (listsExcludeWhere), parameters numbered from `firstParam`. */
export function listsMatched(listIds: number[], account: number | null, firstParam: number) {
  // a programming error, not a request's: a path that counts a search of lists without saying whose
  if (account === null) throw new Error('A search leaving out lists is counted without its account.')
  return listsExcludeWhere(listIds, account, firstParam)
}

/** The box prefilter (companies_position's index), then the exact test. */
const boxSql = (box: Box, p: (value: unknown) => string) =>
  `c.latitude BETWEEN ${p(box.south)}::float8 AND ${p(box.north)}::float8` +
  (box.west > -180 || box.east < 180 ? ` AND c.longitude BETWEEN ${p(box.west)}::float8 AND ${p(box.east)}::float8` : '')

/**
 * Inside the area: inside one of its polygons' outer rings and inside none of that polygon's holes,
 * by PostgreSQL's own point-in-polygon (on PGlite as on a server), on the plane of degrees as RFC 7946
 * draws the edges.
 */
function withinSql(t: Territory, p: (value: unknown) => string): string {
  const point = 'point(c.longitude, c.latitude)'
  const polygons = polygonsOf(t).map(([outer, ...holes]) =>
    [`${p(pgPolygon(outer!))}::polygon @> ${point}`, ...holes.map((hole) => `NOT (${p(pgPolygon(hole))}::polygon @> ${point})`)].join(
      ' AND ',
    ),
  )
  return `(${boxSql(territoryBox(t), p)} AND (${polygons.map((s) => `(${s})`).join(' OR ')}))`
}

/** Within the radius: the haversine great-circle distance on the mean earth radius. */
function nearSql(n: Near, p: (value: unknown) => string): string {
  const lat = `radians(${p(n.lat)}::float8)`
  const lng = `radians(${p(n.lng)}::float8)`
  const distance =
    `2 * ${EARTH_RADIUS_KM} * asin(least(1, sqrt(power(sin((radians(c.latitude) - ${lat}) / 2), 2) + ` +
    `cos(${lat}) * cos(radians(c.latitude)) * power(sin((radians(c.longitude) - ${lng}) / 2), 2))))`
  return `(${boxSql(nearBox(n), p)} AND ${distance} <= ${p(n.radius_km)}::float8)`
}
