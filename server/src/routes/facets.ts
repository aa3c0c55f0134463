import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi'
import type { AppEnv } from '../app-env.ts'
import { authed, security } from '../lib/authed.ts'
import type { Db } from '../db/db.ts'
import { cachePerDb, readDataVersion, settled, VersionedCache } from '../lib/data-version.ts'
import { filtersHash, filtersQuerySchema, filtersWhere, normaliseFilters, type Filters } from '../lib/filters.ts'
import { authErrors, jsonError, languageSchema } from '../lib/schemas.ts'
import { EXTENSIONS } from './capabilities.ts'

const LIMIT = EXTENSIONS.facets!.limit as number

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
          `Top ${LIMIT} states/regions by matching leads (the chosen ones when several are chosen); null when counties or ` +
          'cities are chosen, where narrowing to a whole region would widen the search.',
      }),
    categories: z.array(Bucket).openapi({
      description: `Top ${LIMIT} categories of the matching leads (the chosen ones when categories are chosen; main category only with main_activity_only).`,
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

/** Narrowing to one region is exact only when no county or city is chosen (a chosen city would be widened). */
const regionsNarrowable = (f: Filters) => f.level2_location.length === 0 && f.level3_location.length === 0

export function registerFacetRoutes(app: OpenAPIHono<AppEnv>) {
  app.openapi(facetsRoute, async (c) => {
    const { lang = 'en', ...query } = c.req.valid('query')
    const { db, clock } = c.var.deps
    const now = clock.now()
    const filters = normaliseFilters(query)
    const version = await readDataVersion(db)
    const compute = () => facetsOf(db, filters, now, lang)
    const facets = settled(version, now) ? await facetsCache(db).get(version, `${filtersHash(filters)}:${lang}`, compute) : await compute()
    return c.json(facets, 200)
  })
}

type Facets = z.output<typeof FacetsSchema>

/** Facets by data version, filters and language (lib/data-version.ts): ≈ 2 KB each. */
const facetsCache = cachePerDb(() => new VersionedCache<Facets>(2000, 8 * 1024 * 1024, (f) => 2 * JSON.stringify(f).length))

async function facetsOf(db: Db, filters: Filters, now: Date, lang: string): Promise<Facets> {
  const where = filtersWhere(filters, 2)
  const params = [now.toISOString(), ...where.params]
  const matching = `FROM companies c WHERE c.created_at <= $1 AND ${where.sql}`
  const next = params.length + 1
  const categoryCounts = filters.main_activity_only
    ? 'SELECT m.main_category_id AS id, count(*)::int AS n FROM m GROUP BY 1'
    : 'SELECT u.id, count(*)::int AS n FROM m CROSS JOIN LATERAL unnest(m.category_ids) AS u(id) GROUP BY 1'
  // the chosen categories (or regions) split the count; otherwise the top ones of the matches
  const chosenRegions = `WHERE (cardinality($${next}::int[]) = 0 OR t.id = ANY($${next}::int[]))`
  const chosenCategories = `WHERE (cardinality($${next + 1}::int[]) = 0 OR t.id = ANY($${next + 1}::int[]))`

  // one statement: PGlite serves one query at a time, so three round trips would queue thrice
  const { rows } = await db.query<{ kind: string; id: number | null; name: string | null; country: string | null; n: number; e: number; p: number; w: number }>(
    `WITH m AS (SELECT c.level1_id, c.category_ids, c.main_category_id, c.has_email, c.has_phone, c.has_website ${matching}),
          totals AS (SELECT 'total'::text AS kind, NULL::int AS id, NULL::text AS name, NULL::text AS country, count(*)::int AS n,
                            count(*) FILTER (WHERE m.has_email)::int AS e, count(*) FILTER (WHERE m.has_phone)::int AS p,
                            count(*) FILTER (WHERE m.has_website)::int AS w FROM m),
          regions AS (SELECT 'level1'::text, l1.id, l1.name, l1.country_code::text, t.n, 0, 0, 0
                      FROM (SELECT m.level1_id AS id, count(*)::int AS n FROM m GROUP BY 1) t
                      JOIN level1_locations l1 ON l1.id = t.id ${chosenRegions}
                      ORDER BY t.n DESC, l1.id LIMIT ${LIMIT}),
          cats AS (SELECT 'category'::text, cat.id, coalesce(cat.names ->> $${next + 2}::text, cat.name_en), NULL::text, t.n, 0, 0, 0
                   FROM (${categoryCounts}) t
                   JOIN categories cat ON cat.id = t.id ${chosenCategories}
                   ORDER BY t.n DESC, cat.id LIMIT ${LIMIT})
     SELECT * FROM totals UNION ALL SELECT * FROM regions UNION ALL SELECT * FROM cats`,
    [...params, filters.level1_location, filters.category, lang],
  )
  const total = rows.find((r) => r.kind === 'total')!
  const buckets = (kind: string) => rows.filter((r) => r.kind === kind)
  return {
    totalCount: total.n,
    with_email: total.e,
    with_phone: total.p,
    with_website: total.w,
    level1: regionsNarrowable(filters)
      ? buckets('level1').map((r) => ({ id: r.id!, name: r.name!, country: r.country!.trim(), count: r.n }))
      : null,
    categories: buckets('category').map((r) => ({ id: r.id!, name: r.name!, count: r.n })),
  }
}
