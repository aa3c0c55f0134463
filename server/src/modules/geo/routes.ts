import { createRoute, z } from '@hono/zod-openapi'
import { openApiApp } from '../../lib/openapi-app.ts'
import { authErrors, idParam, jsonError, LANGUAGES, safeString } from '../../lib/schemas.ts'
import { authed, security } from '../auth/authed.ts'
import { countryCodeQuery, idListQuery } from '../search/filters.ts'
import { citiesOf, countriesWithCounts, findPlaces, level1Places, level2Place, level2Places, level3Places } from './service.ts'

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
    matched_name: z.string().optional().openapi({
      description:
        'Extension `place_names`: the place\'s name in another language that the query matched ("Munich" for München), when its own did not match as well.',
      'x-extension': true,
    }),
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
  summary: 'Find places of every level by name (case- and accent-insensitive; whole and prefix matches first)',
  description:
    'At most 10 per level: the whole name first, then names starting with `q`, then a later word doing so, then names containing it. ' +
    '`states` narrows levels 2 and 3 to those states, `counties` narrows level 3 to those counties. ' +
    'Items carry their parents so that places sharing a name can be told apart. ' +
    "Extension `place_names`: a place is also found by its name in any of the service's languages (`matched_name`).",
  request: {
    query: z.object({
      q: safeString().trim().min(1, 'Type at least one character.').max(100, 'At most 100 characters.'),
      country: countryCodeQuery,
      states: idListQuery('state'),
      counties: idListQuery('county'),
      lng: z.enum(LANGUAGES).optional().openapi({
        description:
          "Extension `place_names`: the reader's language. Names in it rank as the places' own, and are the `matched_name` shown when several languages' names match.",
        'x-extension': true,
      }),
    }),
  },
  responses: { 200: json(PlaceSearchSchema, 'Matches per level'), 400: jsonError('Invalid input'), ...authErrors },
})

export function geoRoutes() {
  const app = openApiApp()
  app.openapi(countriesRoute, async (c) => c.json(await countriesWithCounts(c.var.deps.db, c.var.deps.clock.now()), 200))
  app.openapi(level1Route, async (c) => c.json(await level1Places(c.var.deps.db, c.req.valid('query')), 200))
  app.openapi(level2Route, async (c) => c.json(await level2Places(c.var.deps.db, c.req.valid('query')), 200))
  app.openapi(level2OneRoute, async (c) => c.json(await level2Place(c.var.deps.db, c.req.valid('param').id), 200))
  app.openapi(level3Route, async (c) => c.json(await level3Places(c.var.deps.db, c.req.valid('query')), 200))
  app.openapi(citiesRoute, async (c) => {
    const { db, clock } = c.var.deps
    return c.json(await citiesOf(db, c.req.valid('param').country_alpha2_code.toUpperCase(), clock), 200)
  })
  app.openapi(searchRoute, async (c) => {
    const { q, ...narrowing } = c.req.valid('query')
    return c.json(await findPlaces(c.var.deps.db, q, narrowing), 200)
  })
  return app
}
