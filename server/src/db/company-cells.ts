import { cellsOf } from '../lib/geometry.ts'
import { dropSecondaryIndexes } from './bulk.ts'
import type { Db } from './db.ts'

const BATCH = 10_000
/** From this many rows on, the companies' indexes are dropped and built again afterwards (as at a seed). */
const BULK = 50_000

/**
 * Fills the H3 cells (migration 030) of the companies that have none: once after the migration for
 * a database that had companies, and for rows written since without them (by hand, by an instance
 * older than the cells). Batches of 10,000 in one transaction, with the companies' triggers off: a
 * cell changes neither the counts kept by place nor any cached answer (a company's cells follow from
 * its position, which the map's query already used for a row without them), so neither has to be
 * recomputed; the table is locked against other writers meanwhile. A large fill (the first start
 * after migration 030 on a database with companies) drops the companies' secondary indexes and builds
 * them once afterwards, as a seed does: every updated row would otherwise add an entry to each of them
 * (1,000,000 rows on PostgreSQL: 227 s that way, about 2 minutes this way with the VACUUM FULL below,
 * at a load average of 15 on 2 cores).
 */
export async function fillCompanyCells(db: Db): Promise<number> {
  const { rows } = await db.query<{ n: number }>('SELECT count(*)::int AS n FROM companies WHERE h3_r9 IS NULL')
  const missing = rows[0]?.n ?? 0
  if (missing === 0) return 0
  const started = Date.now()
  const filled = await db.tx(async (q) => {
    const dropped = missing >= BULK ? await dropSecondaryIndexes(q, ['companies']) : null
    await q.exec('ALTER TABLE companies DISABLE TRIGGER USER')
    let after = 0
    let done = 0
    for (;;) {
      const batch = (
        await q.query<{ id: number; latitude: number; longitude: number }>(
          'SELECT id, latitude, longitude FROM companies WHERE h3_r9 IS NULL AND id > $1 ORDER BY id LIMIT $2',
          [after, BATCH],
        )
      ).rows
      if (!batch.length) break
      const ids: number[] = []
      const cells: [string[], string[], string[], string[]] = [[], [], [], []]
      for (const row of batch) {
        ids.push(row.id)
        cellsOf(row.latitude, row.longitude).forEach((cell, r) => cells[r]!.push(cell))
      }
      await q.query(
        `UPDATE companies c SET h3_r3 = u.r3, h3_r5 = u.r5, h3_r7 = u.r7, h3_r9 = u.r9
           FROM unnest($1::int[], $2::bigint[], $3::bigint[], $4::bigint[], $5::bigint[]) AS u(id, r3, r5, r7, r9)
          WHERE c.id = u.id`,
        [ids, ...cells],
      )
      after = batch[batch.length - 1]!.id
      done += batch.length
    }
    await q.exec('ALTER TABLE companies ENABLE TRIGGER USER')
    await dropped?.restore()
    return done
  })
  // a large fill left the old version of every row behind: the table is written anew (and its indexes
  // built again), as compact as before. Then VACUUM marks the pages all-visible (VACUUM FULL does not),
  // so that the map's counts stay index-only scans.
  if (missing >= BULK) await db.exec('VACUUM FULL companies')
  await db.exec('VACUUM ANALYZE companies')
  if (filled > BATCH) console.log(`H3 cells: ${filled} companies filled in ${((Date.now() - started) / 1000).toFixed(1)} s`)
  return filled
}
