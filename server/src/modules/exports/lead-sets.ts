import type { Db, Queryable } from '../../db/db.ts'
import { countCompanies, ownedIdsSql, Params } from '../search/company-counts.ts'
import { normaliseFilters, type Filters } from '../search/filters.ts'

/**
 * Which companies an export holds (issue 11, "never pay twice for a lead"). An export's leads are
 * fixed in `export_leads` in the transaction that charges it, so the file holds exactly what was
 * charged whatever is added or exported meanwhile, and "leads this account already has" are the
 * companies any of its exports lists. Every export counts, whatever its status: a PENDING one is
 * charged and will be delivered (so ten concurrent skip-owned exports cannot buy the same lead
 * twice), a FAILED one was charged and its retry delivers the same leads at no new charge.
 *
 * Since issue 24 a list is a few rows of company ids (ranges of 1,024 ids, migration 025) written by
 * one statement, and the account's owned counts follow by statement triggers: recording 100,000
 * leads is one INSERT … SELECT of a hundred-odd rows, counting what an account owns sums its counts.
 */

export interface LeadSet {
  filters: Filters
  /** Companies that existed at this moment (the export's snapshot). */
  upTo: Date
  /** Only companies created after this moment (a fresh-data export). */
  after?: Date | null
  /** Leave out the leads this account already has. */
  skipOwnedBy?: number | null
  /** The account whose export it is: whose lists the filters may leave out (extension `lists`). */
  account?: number
}

/**
 * The advisory lock (class 24, the account's id) under which an account's exports start and its lead
 * lists change, one after another: an export start and a fresh-data start take it first (what a
 * skip_owned or fresh-data export holds depends on the exports before it), and the trigger of
 * migration 025 for every change of the lists. Unlike the account row, locked only for the charge,
 * it blocks nothing but the account's exports.
 */
export async function lockAccountExports(q: Queryable, userId: number): Promise<void> {
  await q.query('SELECT pg_advisory_xact_lock(24, $1)', [userId])
}

/** The set's condition on `companies c`; `owned` names a relation of the account's owned ids (skip_owned). */
function leadSetWhere(set: LeadSet, p: Params, owned = 'owned'): string {
  const conditions = [p.where(set.filters), `c.created_at <= ${p.add(set.upTo)}`]
  if (set.after) conditions.push(`c.created_at > ${p.add(set.after)}`)
  if (set.skipOwnedBy != null) conditions.push(`NOT EXISTS (SELECT 1 FROM ${owned} o WHERE o.id = c.id)`)
  return conditions.join(' AND ')
}

/** `WITH owned AS (…)` for a set that skips what its account owns: read once, then a hash anti-join. */
function ownedCte(set: LeadSet, p: Params): string {
  return set.skipOwnedBy != null ? `WITH owned AS MATERIALIZED (${ownedIdsSql(p.add(set.skipOwnedBy))}) ` : ''
}

/**
 * How many companies the set holds: from the kept counts (modules/search/company-counts.ts) for a whole set, and
 * by the companies' creation index for the few created after a fresh-data export's cut-off.
 */
export async function countMatches(q: Queryable, set: LeadSet): Promise<number> {
  const account = set.account ?? null
  if (!set.after) {
    const total = (await countCompanies(q, set.filters, set.upTo, null, account)).count
    if (set.skipOwnedBy == null) return total
    return total - (await ownedCount(q, set.skipOwnedBy, set.filters, set.upTo))
  }
  const p = new Params(account)
  const cte = ownedCte(set, p)
  const { rows } = await q.query<{ n: number }>(`${cte}SELECT count(*)::int AS n FROM companies c WHERE ${leadSetWhere(set, p)}`, p.values)
  return rows[0]?.n ?? 0
}

/** Of the companies matching `filters` now, how many this account already has. */
export async function ownedCount(q: Queryable, userId: number, filters: Filters, upTo: Date): Promise<number> {
  // an account that never exported owns nothing: no need to count
  const any = await q.query('SELECT 1 FROM export_leads WHERE user_id = $1 LIMIT 1', [userId])
  if (!any.rows.length) return 0
  return (await countCompanies(q, filters, upTo, userId)).count
}

/**
 * Records the first `limit` companies of the set (by id) as the leads of export `exportId`, and
 * marks the export as recorded when it exists already; answers how many were recorded. One statement,
 * in the transaction that charges the export, under the account's exports lock: the list (a row per
 * 1,024 ids), and the account's owned counts (migration 025) for the companies it did not own yet,
 * from the columns of the companies just picked (the counts' triggers rebuild them only when lists are
 * removed or changed).
 */
export async function recordExportLeads(
  q: Queryable,
  exportId: number,
  userId: number,
  set: LeadSet,
  limit: number | null,
): Promise<number> {
  await lockAccountExports(q, userId)
  // the 100,000 rows of a large export sorted and grouped in memory, not in temporary files
  await q.query("SELECT set_config('work_mem', '64MB', true)")
  // what it picks and the account does not own yet: everything, for a first export or one that skips
  // what the account owns
  const ownsSome =
    set.skipOwnedBy == null && (await q.query('SELECT 1 FROM export_leads WHERE user_id = $1 LIMIT 1', [userId])).rows.length > 0
  const p = new Params(userId)
  const user = p.add(userId)
  const where = leadSetWhere(set, p)
  const picked = `SELECT c.id, c.country_code, c.level1_id, c.level2_id, c.level3_id, c.has_email, c.has_phone, c.has_website,
                         c.main_category_id, c.category_ids
                    FROM companies c WHERE ${where} ORDER BY c.id${limit === null ? '' : ` LIMIT ${p.add(limit)}`}`
  const { rows } = await q.query<{ n: number }>(
    `WITH owned AS MATERIALIZED (${ownedIdsSql(user)}),
     picked AS MATERIALIZED (${picked}),
     listed AS (
       INSERT INTO export_leads (export_id, chunk, user_id, company_ids)
       SELECT ${p.add(exportId)}::int, id >> 10, ${user}::int, array_agg(id ORDER BY id) FROM picked GROUP BY id >> 10
       ON CONFLICT DO NOTHING RETURNING cardinality(company_ids) AS n),
     -- what the account did not own: added to its owned counts (as owned_counts_sql does, migration 025)
     fresh AS ${ownsSome ? 'MATERIALIZED (SELECT * FROM picked k WHERE NOT EXISTS (SELECT 1 FROM owned o WHERE o.id = k.id))' : '(SELECT * FROM picked)'},
     places AS (
       INSERT INTO owned_counts AS t (user_id, country_code, level1_id, level2_id, level3_id, has_email, has_phone, has_website, n)
       SELECT ${user}::int, country_code, level1_id, level2_id, level3_id, has_email, has_phone, has_website, count(*)
         FROM fresh GROUP BY 2, 3, 4, 5, 6, 7, 8
       ON CONFLICT (user_id, level3_id, level2_id, level1_id, country_code, has_email, has_phone, has_website) DO UPDATE SET n = t.n + EXCLUDED.n),
     categories AS (
       INSERT INTO owned_category_counts AS t (user_id, category_id, country_code, has_email, has_phone, has_website, n, n_main)
       SELECT ${user}::int, category_id, country_code, has_email, has_phone, has_website, sum(n), sum(n_main)
         FROM (SELECT unnest(category_ids) AS category_id, 1 AS n, 0 AS n_main, country_code, has_email, has_phone, has_website FROM fresh
               UNION ALL
               SELECT main_category_id, 0, 1, country_code, has_email, has_phone, has_website FROM fresh) k
        GROUP BY 2, 3, 4, 5, 6
       ON CONFLICT (user_id, category_id, country_code, has_email, has_phone, has_website)
       DO UPDATE SET n = t.n + EXCLUDED.n, n_main = t.n_main + EXCLUDED.n_main)
     SELECT coalesce(sum(n), 0)::int AS n FROM listed`,
    p.values,
  )
  await q.query('UPDATE searches SET leads_recorded = true WHERE id = $1 AND NOT leads_recorded', [exportId])
  return rows[0]?.n ?? 0
}

/**
 * Exports made before leads were recorded get their lead sets once, at start-up, from what their
 * files hold (the first `lead_count` matches by id at the snapshot, after `created_after`). Several
 * instances starting together do the same work harmlessly (ON CONFLICT DO NOTHING).
 */
export async function recordLegacyExports(db: Db): Promise<number> {
  const { rows } = await db.query<{
    id: number
    user_id: number
    filters: unknown
    snapshot_at: Date | null
    created_at: Date
    created_after: Date | null
    lead_count: number
  }>(
    "SELECT id, user_id, filters, snapshot_at, created_at, created_after, lead_count FROM searches WHERE kind = 'export' AND NOT leads_recorded ORDER BY id",
  )
  for (const row of rows) {
    const filters = normaliseFilters(row.filters && typeof row.filters === 'object' ? (row.filters as Record<string, unknown>) : {})
    await db.tx((q) =>
      recordExportLeads(
        q,
        row.id,
        row.user_id,
        { filters, upTo: new Date(row.snapshot_at ?? row.created_at), after: row.created_after },
        row.lead_count,
      ),
    )
  }
  return rows.length
}
