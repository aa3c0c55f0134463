import type { Db } from '../../db/db.ts'
import { EXTENSIONS } from '../capabilities/service.ts'
import { choosesPlaces, companyRows, needsDistinct, Params } from './company-counts.ts'
import { cachePerDb, readDataVersion, settled, VersionedCache } from './data-version.ts'
import { filtersHash, filtersWhere, hasTerritory, ownLists, withoutLists, type Filters } from './filters.ts'

/** Buckets per kind: the number capabilities declare (`facets.limit`). */
export const FACET_LIMIT = EXTENSIONS.facets!.limit as number

/** Narrowing to one region is exact only when no county or city is chosen (a chosen city would be widened). */
const regionsNarrowable = (f: Filters) => f.level2_location.length === 0 && f.level3_location.length === 0

interface Bucket {
  id: number
  name: string
  count: number
}

/** The coverage of a search (Facets in /api/schema/). */
interface Facets {
  totalCount: number
  with_email: number
  with_phone: number
  with_website: number
  level1: (Bucket & { country: string })[] | null
  categories: Bucket[]
}

/** Facets by data version, filters and language (data-version.ts): ≈ 2 KB each. */
const facetsCache = cachePerDb(() => new VersionedCache<Facets>(2000, 8 * 1024 * 1024, (f) => 2 * JSON.stringify(f).length))

/**
 * GET /api/companies/facets/: the same for every account, so cached by data version while the clock
 * is not behind the data; a search leaving the account's lists out (extension `lists`) is the
 * account's own, cached by its lists' match versions too (ownLists).
 */
export async function facets(db: Db, account: number, filters: Filters, lang: string, now: Date): Promise<Facets> {
  const [lists, version] = await Promise.all([ownLists(db, account, filters), readDataVersion(db)])
  const compute = () => facetsOf(db, account, filters, now, lang)
  return settled(version, now) ? facetsCache(db).get(version, `${filtersHash(filters)}:${lists}:${lang}`, compute) : compute()
}

type FacetRow = { kind: string; id: number | null; name: string | null; country: string | null; n: number; e: number; p: number; w: number }

/**
 * The facets from the counts kept beside the companies (company-counts.ts, migration 025): the
 * totals and regions from the (city, flags) counts, or the (category, city, flags) counts when
 * categories are chosen, or the distinct companies of company_categories for "any of several
 * categories"; the category buckets from the (category, city or country, flags) counts. One
 * statement, bounded by categories × places × flags. It answers nothing when a company was created
 * after `now` (a test clock behind the data): then plainFacets counts the companies themselves.
 *
 * Lists left out (extension `lists`): the companies they matched among the search's (`x`, found from
 * the lists' rows) are taken from every count before the buckets are ranked.
 */
export function aggregateFacetsSql(
  searched: Filters,
  now: Date,
  lang: string,
  account: number | null = null,
): { sql: string; params: unknown[] } {
  const p = new Params(account)
  const at = p.add(now.toISOString())
  const filters = withoutLists(searched)
  const place = { ...filters, category: [], main_activity_only: false }
  const count = filters.main_activity_only ? 'n_main' : 'n'
  let source: string
  let total: (flag?: string) => string
  if (!filters.category.length) {
    source = `company_counts c WHERE ${p.where(place)}`
    total = (flag) => `sum(c.n)${flag ? ` FILTER (WHERE c.${flag})` : ''}`
  } else if (needsDistinct(filters)) {
    // a company once: the entry of the first chosen category it has (company-counts.ts)
    source = `(${companyRows(filters, p)}) c WHERE TRUE`
    total = (flag) => `count(*)${flag ? ` FILTER (WHERE c.${flag})` : ''}`
  } else {
    source = `category_counts c WHERE c.category_id = ANY(${p.add(filters.category)}::int[]) AND ${p.where(place)}`
    total = (flag) => `sum(c.${count})${flag ? ` FILTER (WHERE c.${flag})` : ''}`
  }
  const categorySource = choosesPlaces(filters) ? 'category_counts' : 'category_country_counts'
  const chosen = filters.category.length ? p.add(filters.category) : null
  const chosenCategories = chosen ? ` AND c.category_id = ANY(${chosen}::int[])` : ''
  const categoryWhere = p.where(place)
  const language = p.add(lang)
  // the lists' matches among the search's companies (read by the lists' rows), and each count less theirs
  const lists = searched.exclude_lists
    ? `, x AS MATERIALIZED (SELECT c.level1_id, c.category_ids, c.main_category_id, c.has_email, c.has_phone, c.has_website
                            FROM companies c WHERE ${p.inLists(searched)} AND c.created_at <= ${at}::timestamptz AND ${p.where(filters)})`
    : ''
  const less = (counts: string, excluded: string) =>
    lists ? `SELECT id, sum(n) AS n FROM (${counts} UNION ALL ${excluded}) u GROUP BY 1` : counts
  const xCategories = filters.main_activity_only
    ? `SELECT x.main_category_id, -count(*) FROM x${chosen ? ` WHERE x.main_category_id = ANY(${chosen}::int[])` : ''} GROUP BY 1`
    : `SELECT k.id, -count(*) FROM x CROSS JOIN LATERAL unnest(x.category_ids) k(id)${chosen ? ` WHERE k.id = ANY(${chosen}::int[])` : ''} GROUP BY 1`
  const chosenRegions = () => (filters.level1_location.length ? `AND l1.id = ANY(${p.add(filters.level1_location)}::int[])` : '')
  const regionCounts = less(
    `SELECT c.level1_id AS id, ${total()} AS n FROM ${source} GROUP BY 1`,
    'SELECT x.level1_id, -count(*) FROM x GROUP BY 1',
  )
  const regions = regionsNarrowable(filters)
    ? `UNION ALL (SELECT 'level1', l1.id, l1.name, l1.country_code::text, t.n::int, 0, 0, 0
                    FROM gate, (${regionCounts}) t
                    JOIN level1_locations l1 ON l1.id = t.id
                   WHERE t.n > 0 ${chosenRegions()}
                   ORDER BY t.n DESC, l1.id LIMIT ${FACET_LIMIT})`
    : ''
  const totals = `SELECT coalesce(${total()}, 0) AS n, coalesce(${total('has_email')}, 0) AS e,
                         coalesce(${total('has_phone')}, 0) AS p, coalesce(${total('has_website')}, 0) AS w FROM ${source}`
  const xTotals = `SELECT count(*) AS n, count(*) FILTER (WHERE x.has_email) AS e, count(*) FILTER (WHERE x.has_phone) AS p,
                          count(*) FILTER (WHERE x.has_website) AS w FROM x`
  const totalRow = lists
    ? `SELECT (t.n - xt.n)::int AS n, (t.e - xt.e)::int AS e, (t.p - xt.p)::int AS p, (t.w - xt.w)::int AS w FROM (${totals}) t, (${xTotals}) xt`
    : `SELECT t.n::int AS n, t.e::int AS e, t.p::int AS p, t.w::int AS w FROM (${totals}) t`
  const categoryCounts = less(
    `SELECT c.category_id AS id, sum(c.${count}) AS n FROM ${categorySource} c WHERE ${categoryWhere}${chosenCategories} GROUP BY 1`,
    xCategories,
  )
  const sql = `WITH gate AS (SELECT 1 FROM company_counts_state WHERE max_created_at IS NULL OR max_created_at <= ${at}::timestamptz)${lists}
    SELECT 'total'::text AS kind, NULL::int AS id, NULL::text AS name, NULL::text AS country, t.*
      FROM gate, (${totalRow}) t
    ${regions}
    UNION ALL (SELECT 'category', cat.id, coalesce(cat.names ->> ${language}::text, cat.name_en), NULL, t.n::int, 0, 0, 0
                 FROM gate, (${categoryCounts}) t
                 JOIN categories cat ON cat.id = t.id
                WHERE t.n > 0
                ORDER BY t.n DESC, cat.id LIMIT ${FACET_LIMIT})`
  return { sql, params: p.values }
}

async function facetsOf(db: Db, account: number, filters: Filters, now: Date, lang: string): Promise<Facets> {
  let rows: FacetRow[] = []
  // a territory (extension `geo`) is no place the kept counts know: its companies are counted
  if (!hasTerritory(filters)) {
    const aggregate = aggregateFacetsSql(filters, now, lang, account)
    rows = (await db.query<FacetRow>(aggregate.sql, aggregate.params)).rows
  }
  if (!rows.some((r) => r.kind === 'total')) rows = await plainFacets(db, account, filters, now, lang)
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

/** The facets counted from the companies themselves: a pass over every match (for a territory, or a clock behind the data). */
async function plainFacets(db: Db, account: number, filters: Filters, now: Date, lang: string): Promise<FacetRow[]> {
  const where = filtersWhere(filters, 2, account)
  const params = [now.toISOString(), ...where.params]
  const matching = `FROM companies c WHERE c.created_at <= $1 AND ${where.sql}`
  const next = params.length + 1
  const categoryCounts = filters.main_activity_only
    ? 'SELECT m.main_category_id AS id, count(*)::int AS n FROM m GROUP BY 1'
    : 'SELECT u.id, count(*)::int AS n FROM m CROSS JOIN LATERAL unnest(m.category_ids) AS u(id) GROUP BY 1'
  // the chosen categories (or regions) split the count; otherwise the top ones of the matches
  const chosenRegions = `WHERE (cardinality($${next}::int[]) = 0 OR t.id = ANY($${next}::int[]))`
  const chosenCategories = `WHERE (cardinality($${next + 1}::int[]) = 0 OR t.id = ANY($${next + 1}::int[]))`
  const { rows } = await db.query<FacetRow>(
    `WITH m AS (SELECT c.level1_id, c.category_ids, c.main_category_id, c.has_email, c.has_phone, c.has_website ${matching}),
          totals AS (SELECT 'total'::text AS kind, NULL::int AS id, NULL::text AS name, NULL::text AS country, count(*)::int AS n,
                            count(*) FILTER (WHERE m.has_email)::int AS e, count(*) FILTER (WHERE m.has_phone)::int AS p,
                            count(*) FILTER (WHERE m.has_website)::int AS w FROM m),
          regions AS (SELECT 'level1'::text, l1.id, l1.name, l1.country_code::text, t.n, 0, 0, 0
                      FROM (SELECT m.level1_id AS id, count(*)::int AS n FROM m GROUP BY 1) t
                      JOIN level1_locations l1 ON l1.id = t.id ${chosenRegions}
                      ORDER BY t.n DESC, l1.id LIMIT ${FACET_LIMIT}),
          cats AS (SELECT 'category'::text, cat.id, coalesce(cat.names ->> $${next + 2}::text, cat.name_en), NULL::text, t.n, 0, 0, 0
                   FROM (${categoryCounts}) t
                   JOIN categories cat ON cat.id = t.id ${chosenCategories}
                   ORDER BY t.n DESC, cat.id LIMIT ${FACET_LIMIT})
     SELECT * FROM totals UNION ALL SELECT * FROM regions UNION ALL SELECT * FROM cats`,
    [...params, filters.level1_location, filters.category, lang],
  )
  return rows
}
