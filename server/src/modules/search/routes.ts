import { createRoute, z } from '@hono/zod-openapi'
import { authErrors, jsonError, languageSchema, safeString } from '../../lib/schemas.ts'
import { openApiApp } from '../../lib/openapi-app.ts'
import { authed, security } from '../auth/authed.ts'
import { findCategories } from './categories.ts'
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
    return c.json(await facets(db, normaliseFilters(query), lang, now), 200)
  })

  app.openapi(ownedRoute, async (c) => {
    const { db, clock } = c.var.deps
    const now = clock.now()
    return c.json(await ownedLeads(db, c.var.user.id, normaliseFilters(c.req.valid('query')), now), 200)
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
