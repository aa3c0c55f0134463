import { createRoute, z } from '@hono/zod-openapi'
import { authErrors, jsonError, languageSchema, safeString } from '../../lib/schemas.ts'
import { openApiApp } from '../../lib/openapi-app.ts'
import { authed, security } from '../auth/authed.ts'
import { findCategories } from './categories.ts'
import { MAX_CELLS, searchCells } from './cells.ts'
import { FACET_LIMIT, facets } from './facets.ts'
import { filtersQuerySchema, idListQuery, normaliseFilters } from './filters.ts'
import { ownedLeads, PAGE_SIZE, preview } from './service.ts'

const CategorySchema = z
  .object({
    id: z.number().int(),
    slug: z.string(),
    name: z.string().openapi({ description: 'Name in `lang` (English when there is no translation).' }),
    name_en: z.string(),
  })
  .openapi('Category')

const categoriesRoute = createRoute({
  method: 'get',
  path: '/api/categories',
  tags: ['Search'],
  summary: 'Business categories type-ahead (English and localized names are searched)',
  middleware: authed,
  security,
  request: {
    query: z.object({
      q: safeString().trim().max(100, 'At most 100 characters.').optional(),
      limit: safeString()
        .regex(/^\d{1,3}$/, 'A whole number from 1 to 100.')
        .transform(Number)
        .refine((n) => n >= 1 && n <= 100, 'A whole number from 1 to 100.')
        .optional()
        .openapi({ type: 'integer', minimum: 1, maximum: 100, default: 20 }),
      lang: languageSchema.optional(),
      ids: idListQuery('category')
        .optional()
        .openapi({ description: 'Only these categories (names for ids a past search holds); q and limit then do not apply.' }),
    }),
  },
  responses: {
    200: { description: 'Categories, best matches first', content: { 'application/json': { schema: z.array(CategorySchema) } } },
    400: jsonError('Invalid input'),
    ...authErrors,
  },
})

const Bucket = z.object({ id: z.number().int(), name: z.string(), count: z.number().int() })

const FacetsSchema = z
  .object({
    totalCount: z.number().int(),
    with_email: z.number().int(),
    with_phone: z.number().int(),
    with_website: z.number().int(),
    level1: z
      .array(Bucket.extend({ country: z.string() }))
      .nullable()
      .openapi({
        description:
          `Top ${FACET_LIMIT} states/regions by matching leads (the chosen ones when several are chosen); null when counties or ` +
          'cities are chosen, where narrowing to a whole region would widen the search.',
      }),
    categories: z.array(Bucket).openapi({
      description: `Top ${FACET_LIMIT} categories of the matching leads (the chosen ones when categories are chosen; main category only with main_activity_only).`,
    }),
  })
  .openapi('Facets')

const facetsRoute = createRoute({
  method: 'get',
  path: '/api/companies/facets',
  tags: ['Search', 'Extensions'],
  summary: 'Coverage of a search before paying: contact data, regions and categories (free)',
  description:
    'Extension (listed as `facets` at /api/capabilities/). Same filters as GET /api/companies/. Every bucket ' +
    'count equals the totalCount of the search narrowed to that bucket (the flag set, or that one region or category).',
  middleware: authed,
  security,
  'x-extension': true,
  request: { query: filtersQuerySchema.omit({ paginate: true, page: true }).extend({ lang: languageSchema.optional() }).strict() },
  responses: {
    200: { description: 'Coverage', content: { 'application/json': { schema: FacetsSchema } } },
    400: jsonError('Invalid filters'),
    ...authErrors,
  },
})

const OwnedSchema = z
  .object({
    totalCount: z.number().int().openapi({ description: 'The same count as GET /api/companies/.' }),
    owned_count: z.number().int().openapi({ description: 'Of those, the leads this account received in an earlier export (by place_id).' }),
    new_count: z
      .number()
      .int()
      .openapi({ description: 'totalCount − owned_count: what an export with `skip_owned` holds and costs (before a cap).' }),
  })
  .openapi('OwnedLeads')

const ownedRoute = createRoute({
  method: 'get',
  path: '/api/companies/owned',
  tags: ['Search', 'Extensions'],
  summary: 'How many leads of a search this account already has (free)',
  description:
    'Extension (listed as `skip_owned` at /api/capabilities/). Same filters as GET /api/companies/. A lead counts as owned once ' +
    'any export of this account holds it, whatever its status: a running export is charged and will deliver it, a failed one ' +
    'was charged and its retry delivers it at no new charge.',
  middleware: authed,
  security,
  'x-extension': true,
  request: { query: filtersQuerySchema.omit({ paginate: true, page: true }).strict() },
  responses: {
    200: { description: 'Owned and new leads', content: { 'application/json': { schema: OwnedSchema } } },
    400: jsonError('Invalid filters'),
    ...authErrors,
  },
})

const LeadSchema = z
  .object({
    name: z.string(),
    email: z.array(z.string()).openapi({ description: 'Masked in the preview: "j***@example.com".' }),
    phone: z.string().nullable(),
    address: z.string().nullable(),
    city: z.string(),
    zipcode: z.string().nullable(),
    country: z.string(),
    level1_location: z.string(),
    level2_location: z.string(),
    website: z.string().nullable(),
    instagram: z.string().nullable(),
    facebook: z.string().nullable(),
    categories: z.array(z.string()),
    rating: z.number().nullable(),
    review_count: z.number().int(),
    latitude: z.number(),
    longitude: z.number(),
    place_id: z.string(),
    collected_at: z.string().openapi({ format: 'date-time' }),
  })
  .openapi('Lead')

const PreviewSchema = z
  .object({
    totalCount: z.number().int(),
    search_id: z.number().int().openapi({ description: 'The same filters always give the same search_id.' }),
    results: z.array(LeadSchema),
    page: z.number().int(),
    page_size: z.number().int(),
    excluded_by_lists: z
      .number()
      .int()
      .optional()
      .openapi({
        description:
          'Extension `lists`, only with `exclude_lists`: how many companies matching the other filters the lists left out ' +
          '(totalCount is what remains).',
        'x-extension': true,
      }),
  })
  .openapi('CompanyPreview')

const previewRoute = createRoute({
  method: 'get',
  path: '/api/companies',
  tags: ['Search'],
  summary: 'Free preview: how many leads match, and a masked sample',
  description:
    'Lists are OR within a parameter and AND across parameters. Locations: the most specific chosen level wins ' +
    'within a branch (a state together with some of its cities means those cities). `paginate=true` gives ' +
    `${PAGE_SIZE} rows per page; a page past the end answers 404.`,
  middleware: authed,
  security,
  // strict: an unknown parameter (`countries[]`, `country`) is a 400, never an unfiltered search
  request: { query: filtersQuerySchema.extend({ lang: languageSchema.optional() }).strict() },
  responses: {
    200: { description: 'Count and sample', content: { 'application/json': { schema: PreviewSchema } } },
    400: jsonError('Invalid filters'),
    404: jsonError('Page past the end'),
    ...authErrors,
  },
})

/** `west,south,east,north` in degrees; a box across the antimeridian is refused (ask for its two halves). */
const bboxQuery = safeString()
  .transform((value, ctx) => {
    const parts = value.split(',').map((p) => p.trim())
    const numbers = parts.map(Number)
    const fail = (message: string) => {
      ctx.addIssue({ code: 'custom', message, params: { code: 'invalid_bbox' } })
      return z.NEVER
    }
    if (parts.length !== 4 || parts.some((p) => p === '') || !numbers.every(Number.isFinite)) {
      return fail('Expected four numbers "west,south,east,north" in degrees.')
    }
    const [west, south, east, north] = numbers as [number, number, number, number]
    if ([west, east].some((x) => x < -180 || x > 180) || [south, north].some((y) => y < -90 || y > 90)) {
      return fail('Longitudes are in [-180, 180] and latitudes in [-90, 90].')
    }
    if (south >= north) return fail('south must be less than north.')
    if (west >= east) return fail('west must be less than east; for a box across the antimeridian ask for its two halves.')
    return { west, south, east, north }
  })
  .openapi({ type: 'string', example: '5.8,47.2,15.1,55.1', description: "The map's box: west,south,east,north in degrees." })

const zoomQuery = safeString()
  .transform((value, ctx) => {
    const v = value.trim()
    if (!/^\d{1,2}$/.test(v) || Number(v) > 22) {
      ctx.addIssue({ code: 'custom', message: 'A whole number from 0 to 22.', params: { code: 'invalid_zoom' } })
      return z.NEVER
    }
    return Number(v)
  })
  .openapi({ type: 'integer', minimum: 0, maximum: 22, description: "The map's zoom (web mercator); it picks the H3 resolution." })

const CellsSchema = z
  .object({
    resolution: z.number().int().openapi({ description: 'The H3 resolution of the cells: 3 (zoom ≤ 4), 5 (≤ 7), 7 (≤ 10) or 9.' }),
    cells: z.array(
      z.object({
        h3: z.string().openapi({ description: 'H3 index (hexadecimal).', example: '851f8d47fffffff' }),
        count: z.number().int().openapi({ description: 'Leads of the search in this cell.' }),
        owned: z.number().int().openapi({ description: 'Of those, the leads this account already has (as GET /api/companies/owned/).' }),
      }),
    ),
    total: z
      .number()
      .int()
      .openapi({ description: 'Leads of the search in the box: the sum of the counts (of all cells, when truncated).' }),
    truncated: z.boolean().openapi({ description: `More than ${MAX_CELLS} cells: only the ${MAX_CELLS} with the most leads are listed.` }),
  })
  .openapi('Cells')

const cellsRoute = createRoute({
  method: 'get',
  path: '/api/companies/cells',
  tags: ['Search', 'Extensions'],
  summary: 'Where the leads of a search are: counts per H3 cell of a map box (free)',
  description:
    "Extension (listed as `geo` at /api/capabilities/). Same filters as GET /api/companies/, plus the map's `bbox` and `zoom`. " +
    'The box is widened to a grid of 180/2^zoom degrees (so that panning reuses answers): the answer holds the cells of the ' +
    `leads in the widened box, at most ${MAX_CELLS} (the largest). Over a box holding the whole search the counts add up to the ` +
    "preview's totalCount.",
  middleware: authed,
  security,
  'x-extension': true,
  request: { query: filtersQuerySchema.omit({ paginate: true, page: true }).extend({ bbox: bboxQuery, zoom: zoomQuery }).strict() },
  responses: {
    200: { description: 'Counts per cell', content: { 'application/json': { schema: CellsSchema } } },
    400: jsonError('Invalid filters, box or zoom'),
    ...authErrors,
  },
})

/** What a search finds before it is paid for: its count and a masked sample, its coverage, the categories to search by. */
export function searchRoutes() {
  const app = openApiApp()

  app.openapi(categoriesRoute, async (c) => {
    const { q, limit = 20, lang = 'en', ids } = c.req.valid('query')
    return c.json(await findCategories(c.var.deps.db, { q, limit, lang, ids }), 200)
  })

  app.openapi(facetsRoute, async (c) => {
    const { lang = 'en', ...query } = c.req.valid('query')
    const { db, clock } = c.var.deps
    const now = clock.now()
    return c.json(await facets(db, c.var.user.id, normaliseFilters(query), lang, now), 200)
  })

  app.openapi(ownedRoute, async (c) => {
    const { db, clock } = c.var.deps
    const now = clock.now()
    return c.json(await ownedLeads(db, c.var.user.id, normaliseFilters(c.req.valid('query')), now), 200)
  })

  app.openapi(cellsRoute, async (c) => {
    const { bbox, zoom, ...query } = c.req.valid('query')
    const { db, clock } = c.var.deps
    return c.json(await searchCells(db, c.var.user.id, normaliseFilters(query), bbox, zoom, clock.now()), 200)
  })

  app.openapi(previewRoute, async (c) => {
    const { paginate, page, lang = 'en', ...query } = c.req.valid('query')
    const { db, clock } = c.var.deps
    const now = clock.now()
    const answer = await preview(db, c.var.user.id, normaliseFilters(query), { paginate, page, lang }, now)
    return c.json(answer as never, 200)
  })

  return app
}
