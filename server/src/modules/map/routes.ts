import { createRoute, z } from '@hono/zod-openapi'
import type { Context } from 'hono'
import type { AppEnv } from '../../app-env.ts'
import { openApiApp } from '../../lib/openapi-app.ts'
import { authErrors, jsonError, LANGUAGES } from '../../lib/schemas.ts'
import { authed, security } from '../auth/authed.ts'
import { placeLabels } from '../geo/service.ts'
import { countriesGeoJson, styleDocument, type Document } from './service.ts'

const tags = ['Map', 'Extensions']

const styleRoute = createRoute({
  method: 'get',
  path: '/api/map/style.json',
  tags,
  summary: 'The offline basemap: a MapLibre style of country borders (public)',
  description:
    'Extension `geo`. A MapLibre style (version 8) that needs nothing from the internet: water, land and country borders ' +
    '(Natural Earth, from `/api/map/countries.geojson`), no tiles and no glyphs. `theme=dark` for dark mode.',
  'x-extension': true,
  request: {
    query: z.object({
      theme: z.enum(['light', 'dark']).optional().openapi({ description: 'Colours for a light (default) or dark page.' }),
    }),
  },
  responses: {
    200: {
      description: 'A MapLibre style',
      content: { 'application/json': { schema: z.object({ version: z.literal(8) }).passthrough() } },
    },
    400: jsonError('Invalid theme'),
  },
})

const countriesRoute = createRoute({
  method: 'get',
  path: '/api/map/countries.geojson',
  tags,
  summary: "Countries' outlines as GeoJSON (Natural Earth 1:110m; public)",
  'x-extension': true,
  responses: {
    200: {
      description: 'A GeoJSON FeatureCollection, one feature per country (`name`)',
      content: { 'application/geo+json': { schema: z.object({ type: z.literal('FeatureCollection') }).passthrough() } },
    },
  },
})

const LabelSchema = z
  .object({
    id: z.string().openapi({ description: "The place's id (a state's `level1_location`, a city's `level3_location`)." }),
    name: z.string(),
    level: z.union([z.literal(1), z.literal(3)]).openapi({ description: '1: a state or region, 3: a city.' }),
    size: z.number().int().openapi({ description: 'Its number of companies: the bigger places are labelled first.' }),
    latitude: z.number(),
    longitude: z.number(),
  })
  .openapi('MapLabel')

const labelsRoute = createRoute({
  method: 'get',
  path: '/api/map/labels',
  tags,
  summary: "The map's place labels: states and cities with their positions",
  description: "Extension `geo`. Names in the reader's language (`lng`) where the place has one, else its own; biggest first.",
  'x-extension': true,
  middleware: authed,
  security,
  request: { query: z.object({ lng: z.enum(LANGUAGES).optional().openapi({ description: "The reader's language." }) }) },
  responses: {
    200: { description: 'Labels', content: { 'application/json': { schema: z.array(LabelSchema) } } },
    400: jsonError('Invalid language'),
    ...authErrors,
  },
})

/** A document made once (service.ts): gzip when the client takes it, 304 when it has it, cached a day. */
function sendDocument(c: Context<AppEnv>, doc: Document, type: string) {
  const headers: Record<string, string> = {
    'Content-Type': type,
    'Cache-Control': 'public, max-age=86400',
    ETag: doc.etag,
    Vary: 'Accept-Encoding',
  }
  if (c.req.header('If-None-Match') === doc.etag) return c.body(null, 304, headers)
  if (/\bgzip\b/.test(c.req.header('Accept-Encoding') ?? ''))
    return c.body(new Uint8Array(doc.gzipped), 200, { ...headers, 'Content-Encoding': 'gzip' })
  return c.body(doc.text, 200, headers)
}

/**
 * The basemap's style and borders are open data anyone may fetch (MapLibre asks for them without the
 * account's token) and cost nothing after the first request; the labels are the service's own data.
 */
export function mapRoutes() {
  const app = openApiApp()
  app.openapi(
    styleRoute,
    (c) => sendDocument(c, styleDocument(c.req.valid('query').theme ?? 'light'), 'application/json; charset=utf-8') as never,
  )
  app.openapi(countriesRoute, async (c) => sendDocument(c, await countriesGeoJson(), 'application/geo+json') as never)
  app.openapi(labelsRoute, async (c) => c.json(await placeLabels(c.var.deps.db, c.req.valid('query').lng ?? 'en'), 200))
  return app
}
