import type { Db, Queryable } from '../db/db.ts'
import { filtersWhere, type Filters } from './filters.ts'

/**
 * How many companies match the filters and existed at `now` (created_at <= now): the preview's
 * totalCount, exactly the plain count(*), only faster. Without a category filter it comes from
 * the pre-aggregated company_counts (migration 003) plus a live count of the companies added since
 * the aggregate was brought up to date (id > max_id). Both read one snapshot (REPEATABLE READ), so
 * a concurrent insert is never counted twice. `companies` is about how many companies there are
 * in all (for choosing a query plan).
 */
export async function countCompanies(
  db: Db,
  filters: Filters,
  now: Date,
): Promise<{ count: number; companies: number }> {
  const where = filtersWhere(filters, 2)
  const params = [now.toISOString(), ...where.params]
  return db.tx(async (q) => {
    if (db.kind === 'pg') await q.query('SET TRANSACTION ISOLATION LEVEL REPEATABLE READ')
    const state = (
      await q.query<{ max_id: number; max_created_at: Date | string | null }>(
        'SELECT max_id, max_created_at FROM company_counts_state',
      )
    ).rows[0]
    const companies = state?.max_id ?? 0
    // The aggregate holds companies created up to max_created_at; should the clock ever be behind
    // that (a restarted test clock), or a category be asked for, count the companies directly.
    const aggregateUsable =
      state && !filters.category.length && (state.max_created_at === null || new Date(state.max_created_at) <= now)
    if (!aggregateUsable) {
      const { rows } = await q.query<{ n: number }>(
        `SELECT count(*)::int AS n FROM companies c WHERE c.created_at <= $1 AND ${where.sql}`,
        params,
      )
      return { count: rows[0]!.n, companies }
    }
    const maxIdParam = `$${params.length + 1}`
    const { rows } = await q.query<{ n: number }>(
      `SELECT ((SELECT coalesce(sum(c.n), 0) FROM company_counts c WHERE ${where.sql})
             + (SELECT count(*) FROM companies c WHERE c.id > ${maxIdParam} AND c.created_at <= $1 AND ${where.sql}))::int AS n`,
      [...params, state.max_id],
    )
    return { count: rows[0]!.n, companies }
  })
}

/**
 * Adds companies with id > max_id to company_counts. Call inside the transaction that inserted
 * them, after locking the state row (lockCompanyCounts), so concurrent inserts cannot slip past.
 */
export async function lockCompanyCounts(q: Queryable): Promise<void> {
  await q.query('SELECT max_id FROM company_counts_state FOR UPDATE')
}

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
    `UPDATE company_counts_state s
     SET max_id = greatest(s.max_id, m.max_id), max_created_at = greatest(s.max_created_at, m.max_created_at)
     FROM (SELECT max(id) AS max_id, max(created_at) AS max_created_at FROM companies
           WHERE id > (SELECT max_id FROM company_counts_state)) m
     WHERE m.max_id IS NOT NULL`,
  )
}
