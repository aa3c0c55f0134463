import type { Db, Queryable } from '../db/db.ts'
import { filtersWhere, normaliseFilters, type Filters } from './filters.ts'

/**
 * Which companies an export holds (issue 11, "never pay twice for a lead"). An export's leads are
 * fixed in `export_leads` in the transaction that charges it, so the file holds exactly what was
 * charged whatever is added or exported meanwhile, and "leads this account already has" is an index
 * lookup by place_id over the account's exports. Every export counts, whatever its status: a PENDING
 * one is charged and will be delivered (so ten concurrent skip-owned exports cannot buy the same lead
 * twice), a FAILED one was charged and its retry delivers the same leads at no new charge.
 */

export interface LeadSet {
  filters: Filters
  /** Companies that existed at this moment (the export's snapshot). */
  upTo: Date
  /** Only companies created after this moment (a fresh-data export). */
  after?: Date | null
  /** Leave out the leads this account already has. */
  skipOwnedBy?: number | null
}

function leadSetWhere(set: LeadSet, first: number): { sql: string; params: unknown[] } {
  const where = filtersWhere(set.filters, first)
  const params: unknown[] = [...where.params, set.upTo]
  const conditions = [where.sql, `c.created_at <= $${first + params.length - 1}`]
  if (set.after) {
    params.push(set.after)
    conditions.push(`c.created_at > $${first + params.length - 1}`)
  }
  if (set.skipOwnedBy != null) {
    params.push(set.skipOwnedBy)
    conditions.push(`NOT EXISTS (SELECT 1 FROM export_leads o WHERE o.user_id = $${first + params.length - 1} AND o.place_id = c.place_id)`)
  }
  return { sql: conditions.join(' AND '), params }
}

/** How many companies the set holds. */
export async function countMatches(q: Queryable, set: LeadSet): Promise<number> {
  const where = leadSetWhere(set, 1)
  const { rows } = await q.query<{ n: number }>(`SELECT count(*)::int AS n FROM companies c WHERE ${where.sql}`, where.params)
  return rows[0]?.n ?? 0
}

/** Of the companies matching `filters` now, how many this account already has (by place_id). */
export async function ownedCount(q: Queryable, userId: number, filters: Filters, upTo: Date): Promise<number> {
  // an account that never exported owns nothing: no need to look at the companies
  const any = await q.query('SELECT 1 FROM export_leads WHERE user_id = $1 LIMIT 1', [userId])
  if (!any.rows.length) return 0
  const where = leadSetWhere({ filters, upTo }, 1)
  const u = `$${where.params.length + 1}`
  const { rows } = await q.query<{ n: number }>(
    `SELECT count(*)::int AS n FROM companies c
      WHERE ${where.sql} AND EXISTS (SELECT 1 FROM export_leads o WHERE o.user_id = ${u} AND o.place_id = c.place_id)`,
    [...where.params, userId],
  )
  return rows[0]?.n ?? 0
}

/**
 * Records the first `limit` companies of the set (by id) as the leads of export `exportId`, and
 * marks the export as recorded; answers how many were recorded. Run in the transaction that charges
 * the export, after the account row is locked.
 */
export async function recordExportLeads(
  q: Queryable,
  exportId: number,
  userId: number,
  set: LeadSet,
  limit: number | null,
): Promise<number> {
  const where = leadSetWhere(set, 3)
  const params = [exportId, userId, ...where.params]
  let sql = `SELECT $1::int, c.id, $2::int, c.place_id FROM companies c WHERE ${where.sql} ORDER BY c.id`
  if (limit !== null) {
    params.push(limit)
    sql += ` LIMIT $${params.length}`
  }
  const { rows } = await q.query<{ n: number }>(
    `WITH added AS (
       INSERT INTO export_leads (export_id, company_id, user_id, place_id) ${sql}
       ON CONFLICT DO NOTHING RETURNING 1
     ) SELECT count(*)::int AS n FROM added`,
    params,
  )
  await q.query('UPDATE searches SET leads_recorded = true WHERE id = $1', [exportId])
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
  }>("SELECT id, user_id, filters, snapshot_at, created_at, created_after, lead_count FROM searches WHERE kind = 'export' AND NOT leads_recorded ORDER BY id")
  for (const row of rows) {
    const filters = normaliseFilters(row.filters && typeof row.filters === 'object' ? (row.filters as Record<string, unknown>) : {})
    await db.tx((q) =>
      recordExportLeads(q, row.id, row.user_id, { filters, upTo: new Date(row.snapshot_at ?? row.created_at), after: row.created_after }, row.lead_count),
    )
  }
  return rows.length
}
