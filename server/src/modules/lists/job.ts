import type { Db } from '../../db/db.ts'
import type { Lease } from '../../jobs/runner.ts'
import { CityNames } from './city-names.ts'
import { fillCompanyKeys } from './keys.ts'
import type { Mapping } from './mapping.ts'
import { loadPlaces, matchBatch, rowKeys } from './match.ts'
import type { ListRow } from './service.ts'

/** Rows matched per batch: one candidate query each, and one transaction writing the results with the progress. */
const BATCH = { pg: 2000, pglite: 500 }

/** Test hook (test clock only): milliseconds per row, so a test can stop or kill an instance mid-match. */
const testRowDelayMs = () => (process.env.LEADS_TEST_CLOCK === '1' ? Number(process.env.LEADS_TEST_LIST_ROW_DELAY_MS ?? 0) : 0)

/**
 * Matches a list's rows after `matched_rows` (where a run before this one stopped), in row order, a
 * batch at a time. Each batch's results and the progress are written in one transaction, and only
 * while this worker holds the lease (a cancelled list has none): a worker that lost it changes
 * nothing, and whoever holds the job next goes on from the last batch written.
 */
export async function matchList(db: Db, list: ListRow, lease: Lease, stopping: () => boolean): Promise<void> {
  // companies written since the keys were last filled (the seed writes them with the companies)
  await fillCompanyKeys(db)
  const places = await loadPlaces(db)
  const names = new CityNames()
  const mapping = list.mapping as Mapping
  const size = BATCH[db.kind]
  let done = list.matched_rows
  while (!stopping() && !lease.lost) {
    const { rows } = await db.query<{ row_no: number; cells: string[] }>(
      'SELECT row_no, cells FROM list_rows WHERE list_id = $1 AND row_no > $2 ORDER BY row_no LIMIT $3',
      [list.id, done, size],
    )
    if (!rows.length) break
    const results = await matchBatch(
      db,
      rows.map((r) => rowKeys(r.row_no, r.cells, mapping, places, list.default_country)),
      names,
    )
    if (testRowDelayMs()) await new Promise((r) => setTimeout(r, testRowDelayMs() * rows.length))
    const last = rows[rows.length - 1]!.row_no
    const held = await db.tx(async (q) => {
      const progress = await q.query(
        `UPDATE lists SET matched_rows = $3 WHERE id = $1 AND lease_owner IS NOT DISTINCT FROM $2 AND status = 'matching' RETURNING id`,
        [list.id, lease.owner, last],
      )
      if (!progress.rows.length) return false
      await q.query(
        `UPDATE list_rows r SET status = m.status, company_id = m.company_id, rule = m.rule, confidence = m.confidence,
                candidates = m.candidates::int[]
           FROM unnest($2::int[], $3::text[], $4::int[], $5::text[], $6::real[], $7::text[])
                AS m(row_no, status, company_id, rule, confidence, candidates)
          WHERE r.list_id = $1 AND r.row_no = m.row_no`,
        [
          list.id,
          results.map((m) => m.row_no),
          results.map((m) => m.status),
          results.map((m) => m.company_id),
          results.map((m) => m.rule),
          results.map((m) => m.confidence),
          results.map((m) => (m.candidates ? `{${m.candidates.join(',')}}` : null)),
        ],
      )
      return true
    })
    if (!held) {
      lease.lost = true
      return
    }
    done = last
  }
}
