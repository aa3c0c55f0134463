import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi'
import type { AppEnv } from '../app-env.ts'
import { JsonText, SharedJsonTail } from '../lib/json-answer.ts'
import { authed, security } from '../lib/authed.ts'
import { notFound } from '../lib/errors.ts'
import { countCompanies, Params } from '../lib/company-counts.ts'
import { filtersHash, filtersQuerySchema, normaliseFilters, type Filters } from '../lib/filters.ts'
import { authErrors, jsonError, languageSchema } from '../lib/schemas.ts'
import { prepared, type Db, type Queryable } from '../db/db.ts'
import { cachePerDb, DATA_VERSION_COLUMNS, dataVersionOf, settled, VersionedCache, type DataVersion } from '../lib/data-version.ts'

export const PREVIEW_SIZE = 10
export const PAGE_SIZE = 50

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

/** "john@example.com" → "j***@example.com": the preview is free, the addresses are what is paid for. */
export function maskEmail(email: string): string {
  const at = email.lastIndexOf('@')
  if (at <= 0) return '***'
  return `${email[0]}***${email.slice(at)}`
}

/**
 * One preview search per account and filter set (decisions.md: same filters → same search_id).
 * Looked up first: `INSERT … ON CONFLICT` takes a value of the 32-bit id sequence on every call, so
 * repeated identical previews (each keystroke of a person, each poll of a script) used to burn ids.
 * Now only a filter set never seen for the account takes one; a concurrent first insert of the same
 * set loses the race quietly (DO NOTHING) and reads the winner's id. The lookup shares its round
 * trip with the data version (lib/data-version.ts) that says whether a cached page may be served.
 * A preview search not asked for in PREVIEW_SEARCH_DAYS, and never exported, is deleted by the
 * clean-up (jobs/cleanup.ts): its last use is written at most once a day.
 */
const PREVIEW_HEAD = prepared(
  `SELECT s.id, coalesce(s.used_at, s.created_at) AS used_at, ${DATA_VERSION_COLUMNS}
     FROM (VALUES (1)) one
     LEFT JOIN data_version dv ON true
     LEFT JOIN searches s ON s.user_id = $1 AND s.filters_hash = $2 AND s.kind = 'preview'`,
)

async function previewHead(
  q: Queryable,
  userId: number,
  hash: string,
): Promise<{ searchId: number | undefined; usedAt: Date | null; version: DataVersion | null }> {
  const { rows } = await q.query<{
    id: number | null
    used_at: Date | null
    data_version: string | null
    data_max_created_at: Date | null
  }>(PREVIEW_HEAD, [userId, hash])
  const usedAt = rows[0]?.used_at
  return { searchId: rows[0]?.id ?? undefined, usedAt: usedAt ? new Date(usedAt) : null, version: dataVersionOf(rows[0]) }
}

const DAY_MS = 86_400_000

/** The search's last use, when the one written is a day old or more (so that it does not expire while asked for). */
async function touchPreviewSearch(q: Queryable, searchId: number, usedAt: Date | null, now: Date): Promise<number> {
  if (usedAt && now.getTime() - usedAt.getTime() >= DAY_MS) await q.query('UPDATE searches SET used_at = $2 WHERE id = $1', [searchId, now])
  return searchId
}

async function newPreviewSearch(q: Queryable, userId: number, filters: Filters, hash: string, now: Date): Promise<number> {
  const { rows } = await q.query<{ id: number }>(
    `INSERT INTO searches (user_id, kind, filters, filters_hash, created_at)
     VALUES ($1, 'preview', $2, $3, $4)
     ON CONFLICT (user_id, filters_hash) WHERE kind = 'preview' DO NOTHING
     RETURNING id`,
    [userId, JSON.stringify(filters), hash, now.toISOString()],
  )
  const id =
    rows[0]?.id ??
    (await q.query<{ id: number }>(`SELECT id FROM searches WHERE user_id = $1 AND filters_hash = $2 AND kind = 'preview'`, [userId, hash]))
      .rows[0]?.id
  if (id === undefined) throw new Error('preview search vanished between insert and read')
  return id
}

interface LeadRow {
  name: string
  emails: string[]
  phone: string | null
  address: string | null
  city: string
  zipcode: string | null
  country: string
  level1_location: string
  level2_location: string
  website: string | null
  instagram: string | null
  facebook: string | null
  categories: string[]
  rating: string | null
  review_count: number
  latitude: number
  longitude: number
  place_id: string
  collected_at: Date | string
}

type Lead = z.output<typeof LeadSchema>

/**
 * A page of the preview: the same for every account, so it can be cached by data version. The
 * leads are kept as the end of the answer's JSON text (serialized once, and compressed once when
 * an answer is gzipped), after the account's own head (its search_id).
 */
interface PreviewPage {
  totalCount: number
  /** `"results":[…]}`; null: the page is past the end (404) */
  tail: SharedJsonTail | null
}

/**
 * Pages by data version, filters, language and page (lib/data-version.ts). Bounded: 2,000 pages or
 * about 32 MB (a 50-lead page is ≈ 60 KB as strings), whichever is reached first.
 */
const pageCache = cachePerDb(() => new VersionedCache<PreviewPage>(2000, 32 * 1024 * 1024, (p) => (p.tail?.bytes() ?? 0) + 64))

/**
 * The ids of a page of the preview, the cheapest of three ways, in rows read (issue 24):
 * - walking the primary key reads about (offset + page) × companies / matches company rows, in the
 *   order they lie on disk;
 * - fetching every match through the filter indexes and sorting reads `matches` company rows, each
 *   at a random place (about five times the cost of one read in order);
 * - with categories chosen (and every company counted by the kept counts), the matching entries of
 *   company_categories' index give the ids without reading a company (an entry costs a fifth of a row).
 */
function pageIds(
  filters: Filters,
  p: Params,
  counted: { count: number; companies: number; aggregated: boolean },
  take: number,
  offset: number,
  now: string,
) {
  const matches = Math.max(counted.count, 1)
  const walk = (take * Math.max(counted.companies, counted.count)) / matches
  const fetchAll = 5 * matches
  const fromIndex = counted.aggregated && filters.category.length ? 0.2 * matches * filters.category.length + 5 * take : Infinity
  const limit = `LIMIT ${take - offset} OFFSET ${offset}`
  if (fromIndex < Math.min(walk, fetchAll)) {
    return `SELECT c.company_id AS id FROM company_categories c
             WHERE c.category_id = ANY(${p.add(filters.category)}::int[]) AND c.${filters.main_activity_only ? 'is_main' : 'listed'}
               AND ${p.where({ ...filters, category: [], main_activity_only: false })}
             GROUP BY c.company_id ORDER BY c.company_id ${limit}`
  }
  // `c.id + 0` hides the primary-key order from the planner
  return `SELECT c.id FROM companies c WHERE c.created_at <= ${now} AND ${p.where(filters)}
           ORDER BY ${walk < fetchAll ? 'c.id' : 'c.id + 0'} ${limit}`
}

async function previewPage(db: Db, filters: Filters, now: Date, lang: string, pageSize: number, offset: number): Promise<PreviewPage> {
  const counted = await countCompanies(db, filters, now)
  const { count: totalCount } = counted
  if (offset > 0 && offset >= totalCount) return { totalCount, tail: null }
  const p = new Params()
  const at = p.add(now.toISOString())
  const language = p.add(lang)
  const ids = pageIds(filters, p, counted, offset + pageSize, offset, `${at}::timestamptz`)
  const { rows } = await db.query<LeadRow>(
    `SELECT c.name, c.emails, c.phone, c.address, l3.name AS city, c.zipcode, c.country_code AS country,
            l1.name AS level1_location, l2.name AS level2_location, c.website, c.instagram, c.facebook,
            ARRAY(SELECT coalesce(cat.names ->> ${language}::text, cat.name_en) FROM categories cat
                  WHERE cat.id = ANY(c.category_ids) ORDER BY array_position(c.category_ids, cat.id)) AS categories,
            c.rating, c.review_count, c.latitude, c.longitude, c.place_id, c.collected_at
     FROM (${ids}) page
     JOIN companies c ON c.id = page.id AND c.created_at <= ${at}::timestamptz
     JOIN level3_locations l3 ON l3.id = c.level3_id
     JOIN level2_locations l2 ON l2.id = c.level2_id
     JOIN level1_locations l1 ON l1.id = c.level1_id
     ORDER BY c.id`,
    p.values,
  )
  const results: Lead[] = rows.map(({ emails, rating, collected_at, ...r }) => ({
    ...r,
    country: r.country.trim(),
    email: emails.map(maskEmail),
    rating: rating === null ? null : Number(rating),
    collected_at: new Date(collected_at).toISOString(),
  }))
  return { totalCount, tail: new SharedJsonTail(`"results":${JSON.stringify(results)}}`) }
}

export function registerCompanyRoutes(app: OpenAPIHono<AppEnv>) {
  app.openapi(previewRoute, async (c) => {
    const { paginate, page, lang = 'en', ...query } = c.req.valid('query')
    const { db, clock } = c.var.deps
    const userId = c.var.user.id
    const now = clock.now()
    const filters = normaliseFilters(query)
    const hash = filtersHash(filters)
    const pageSize = paginate ? PAGE_SIZE : PREVIEW_SIZE
    const offset = paginate ? (page - 1) * PAGE_SIZE : 0

    const head = await previewHead(db, userId, hash)
    const compute = () => previewPage(db, filters, now, lang, pageSize, offset)
    const [searchId, { totalCount, tail }] = await Promise.all([
      head.searchId === undefined
        ? newPreviewSearch(db, userId, filters, hash, now)
        : touchPreviewSearch(db, head.searchId, head.usedAt, now),
      settled(head.version, now) ? pageCache(db).get(head.version, `${hash}:${lang}:${pageSize}:${offset}`, compute) : compute(),
    ])
    if (!tail) throw notFound('Invalid page.')
    // the keys of PreviewSchema in its order, written by hand in front of the cached leads
    const own = `{"totalCount":${totalCount},"search_id":${searchId},"page":${paginate ? page : 1},"page_size":${pageSize},`
    return c.json(new JsonText(own, tail) as never, 200)
  })
}
