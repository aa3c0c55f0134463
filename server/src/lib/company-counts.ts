import type { Db, Queryable } from '../db/db.ts'
import { cachePerDb, settled, VersionedCache, type DataVersion } from './data-version.ts'
import { filtersHash, filtersWhere, type Filters } from './filters.ts'

/**
 * How many companies match the filters and existed at `now` (created_at <= now): the preview's
 * totalCount. Exactly the plain count(*), only faster on the embedded database:
 * - without a category filter: the sum of the per-place groups in company_counts (migration 003);
 * - with one: an index-only count over company_categories (migration 004);
 * plus, in both cases, a live count of the companies added since those were brought up to date
 * (id > max_id). Everything reads one snapshot (REPEATABLE READ), so a concurrent insert is never
 * counted twice. `companies` is about how many companies there are in all (to choose a row plan).
 */
export async function countCompanies(
  db: Db,
  filters: Filters,
  now: Date,
): Promise<{ count: number; companies: number }> {
  return db.tx(async (q) => {
    if (db.kind === 'pg') await q.query('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ')
    const state = (
      await q.query<{ max_id: number; max_created_at: Date | string | null }>(
        'SELECT max_id, max_created_at FROM company_counts_state',
      )
    ).rows[0]
    const companies = state?.max_id ?? 0
    const params: unknown[] = [now.toISOString()]
    const where = (f: Filters) => {
      const w = filtersWhere(f, params.length + 1)
      params.push(...w.params)
      return w.sql
    }

    // The derived data holds companies created up to max_created_at; should the clock ever be
    // behind that (a restarted test clock), count the companies directly.
    if (!state || (state.max_created_at !== null && new Date(state.max_created_at) > now)) {
      const { rows } = await q.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM companies c WHERE c.created_at <= $1 AND ${where(filters)}`,
        params,
      )
      return { count: rows[0]!.n, companies }
    }

    let derived: string
    if (!filters.category.length) {
      derived = `SELECT coalesce(sum(c.n), 0) FROM company_counts c WHERE ${where(filters)}`
    } else {
      const others = where({ ...filters, category: [] })
      params.push(filters.category)
      const categories = `$${params.length}`
      // a company has one main category, but may have several of the chosen ones
      const distinct = filters.main_activity_only || filters.category.length === 1 ? '*' : 'DISTINCT c.company_id'
      derived = `SELECT count(${distinct}) FROM company_categories c
                 WHERE c.category_id = ANY(${categories}::int[]) ${filters.main_activity_only ? 'AND c.is_main' : ''}
                   AND c.created_at <= $1 AND ${others}`
    }
    const live = where(filters)
    params.push(state.max_id)
    const { rows } = await q.query<{ n: number }>(
      `SELECT ((${derived})
             + (SELECT count(*) FROM companies c WHERE c.id > $${params.length} AND c.created_at <= $1 AND ${live}))::int AS n`,
      params,
    )
    return { count: rows[0]!.n, companies }
  })
}

/** Counts by data version and filters (lib/data-version.ts): 20,000 of them take a few MB. */
const countCache = cachePerDb(() => new VersionedCache<{ count: number; companies: number }>(20_000, 8 * 1024 * 1024, () => 100))

/**
 * countCompanies, served from the cache when `version` (read by the caller in a round trip it makes
 * anyway) allows it. Never for charging: an export counts inside its own transaction (lib/exports.ts).
 */
export function countCompaniesAt(db: Db, version: DataVersion | null, filters: Filters, now: Date): Promise<{ count: number; companies: number }> {
  if (!settled(version, now)) return countCompanies(db, filters, now)
  return countCache(db).get(version, filtersHash(filters), () => countCompanies(db, filters, now))
}

/**
 * Locks company_counts_state for the inserting transaction, so that concurrent inserts of
 * companies are added to the derived data one after the other and none slips past.
 */
export async function lockCompanyCounts(q: Queryable): Promise<void> {
  await q.query('SELECT max_id FROM company_counts_state FOR UPDATE')
}

/** Adds the companies with id > max_id to company_counts and company_categories, then moves max_id. */
export async function refreshCompanyCounts(q: Queryable): Promise<void> {
  await q.query(
    `WITH s AS (SELECT max_id FROM company_counts_state)
     INSERT INTO company_counts AS cc
     SELECT c.country_code, c.level1_id, c.level2_id, c.level3_id, c.has_email, c.has_phone, c.has_website, count(*)
     FROM companies c, s WHERE c.id > s.max_id
     GROUP BY c.country_code, c.level1_id, c.level2_id, c.level3_id, c.has_email, c.has_phone, c.has_website
     ON CONFLICT (level3_id, has_email, has_phone, has_website) DO UPDATE SET n = cc.n + EXCLUDED.n`,
  )
  await q.query(
    `INSERT INTO company_categories
     SELECT c.id, x.category_id, x.category_id = c.main_category_id, c.country_code, c.level1_id, c.level2_id,
            c.level3_id, c.has_email, c.has_phone, c.has_website, c.created_at
     FROM companies c CROSS JOIN LATERAL unnest(c.category_ids) AS x(category_id)
     WHERE c.id > (SELECT max_id FROM company_counts_state)`,
  )
  await q.query(
    `UPDATE company_counts_state s
     SET max_id = greatest(s.max_id, m.max_id), max_created_at = greatest(s.max_created_at, m.max_created_at)
     FROM (SELECT max(id) AS max_id, max(created_at) AS max_created_at FROM companies
           WHERE id > (SELECT max_id FROM company_counts_state)) m
     WHERE m.max_id IS NOT NULL`,
  )
}
