import type { Db } from '../../db/db.ts'
import { cellsOf, CELL_RESOLUTIONS, h3Cover, type Box, type CellResolution } from '../../lib/geometry.ts'
import { ownedIdsSql, Params } from './company-counts.ts'
import { cachePerDb, readDataVersion, settled, VersionedCache } from './data-version.ts'
import { filtersHash, ownLists, withoutLists, type Filters } from './filters.ts'

/**
 * GET /api/companies/cells/ (extension `geo`, issue 26): how many leads of a search lie in each H3
 * cell of a map's box, and how many of them the account already has. Free, like the preview.
 */

/** At most this many cells an answer: the largest counts, and `truncated`. */
export const MAX_CELLS = 5000

/**
 * The stored resolution a zoom needs: a cell a few dozen pixels across (a whole country at zoom 5–7
 * is hundreds to a few thousand resolution-5 cells, a city at zoom 11 and more resolution-9 ones).
 */
export function resolutionForZoom(zoom: number): CellResolution {
  if (zoom <= 4) return 3
  if (zoom <= 7) return 5
  if (zoom <= 10) return 7
  return 9
}

/**
 * The box widened to the zoom's grid (half a tile, 180 / 2^zoom degrees, in both directions), so
 * that a map panned a little asks for the same box and is answered from the cache. The answer holds
 * the cells of the widened box: a few more around the edges of the view.
 */
export function snapBox(box: Box, zoom: number): Box {
  const step = 180 / 2 ** zoom
  const down = (x: number) => Math.floor(x / step) * step
  const up = (x: number) => Math.ceil(x / step) * step
  return {
    west: Math.max(-180, down(box.west)),
    south: Math.max(-90, down(box.south)),
    east: Math.min(180, up(box.east)),
    north: Math.min(90, up(box.north)),
  }
}

interface CellCounts {
  /** [H3 index, count], largest count first */
  cells: [string, number][]
  total: number
}

const hex = (int: string) => BigInt(int).toString(16)

/** The covers of the last boxes asked (widened to the grid, boxes repeat): a large box's takes milliseconds. */
const covers = new Map<string, string[] | null>()
function coverOf(box: Box): string[] | null {
  const key = `${box.west},${box.south},${box.east},${box.north}`
  let cover = covers.get(key)
  if (cover === undefined) {
    cover = h3Cover(box)?.map((cell) => BigInt(`0x${cell}`).toString()) ?? null
    if (covers.size >= 256) covers.delete(covers.keys().next().value!)
    covers.set(key, cover)
  }
  return cover
}

/**
 * One statement: the cells of the matches in the box, grouped by the stored column (an index-only
 * scan of companies_cells, narrowed by the resolution-3 cells covering the box), and the positions of
 * the few matches without stored cells (written by hand since the last start), placed here the way
 * the seed places them. `who.owner`: only what that account owns; `who.inLists`: only the companies
 * the search's lists matched (what they leave out), found from the lists' rows; `who.account`: whose lists.
 */
async function countByCell(
  db: Db,
  filters: Filters,
  res: CellResolution,
  box: Box,
  now: Date,
  who: { owner?: number; account?: number; inLists?: boolean } = {},
) {
  const p = new Params(who.account ?? null)
  const at = p.add(now.toISOString())
  const inBox = `c.latitude BETWEEN ${p.add(box.south)}::float8 AND ${p.add(box.north)}::float8
                 AND c.longitude BETWEEN ${p.add(box.west)}::float8 AND ${p.add(box.east)}::float8`
  const where = who.inLists ? `${p.inLists(filters)} AND ${p.where(withoutLists(filters))}` : p.where(filters)
  const owned = who.owner === undefined ? '' : ` AND c.id IN (${ownedIdsSql(p.add(who.owner))})`
  const cover = coverOf(box)
  const covered = cover ? `c.h3_r3 = ANY(${p.add(cover)}::bigint[]) AND ` : ''
  const matching = `${inBox} AND c.created_at <= ${at}::timestamptz AND ${where}${owned}`
  const { rows } = await db.query<{ cell: string | null; n: number; lat: number | null; lng: number | null }>(
    `SELECT c.h3_r${res}::text AS cell, count(*)::int AS n, NULL::float8 AS lat, NULL::float8 AS lng
       FROM companies c WHERE ${covered}c.h3_r9 IS NOT NULL AND ${matching} GROUP BY c.h3_r${res}
     UNION ALL
     SELECT NULL, 1, c.latitude, c.longitude FROM companies c WHERE c.h3_r9 IS NULL AND ${matching}`,
    p.values,
  )
  const counts = new Map<string, number>()
  const index = CELL_RESOLUTIONS.indexOf(res)
  for (const row of rows) {
    const cell = row.cell ?? cellsOf(row.lat!, row.lng!)[index]!
    counts.set(cell, (counts.get(cell) ?? 0) + row.n)
  }
  return counts
}

/** Cell counts by data version, filters (and lists' match versions), resolution and widened box: at most 500 answers or 32 MB. */
const cellCache = cachePerDb(() => new VersionedCache<CellCounts>(500, 32 * 1024 * 1024, (c) => 64 + c.cells.length * 64))

const byCount = (a: [string, number], b: [string, number]) => b[1] - a[1] || (a[0] < b[0] ? -1 : 1)

/**
 * The counts of the search in the box. A search leaving lists out (extension `lists`) takes those of
 * the search without them (one cache entry for every account) less the lists' matches in the box,
 * found from the lists' rows; `search.lists` (their match versions, ownLists) keys it.
 */
async function sharedCounts(
  db: Db,
  filters: Filters,
  res: CellResolution,
  box: Box,
  now: Date,
  search: { account: number; lists: string },
): Promise<CellCounts> {
  const compute = async (): Promise<CellCounts> => {
    if (!filters.exclude_lists) {
      const cells = [...(await countByCell(db, filters, res, box, now))].sort(byCount)
      return { cells, total: cells.reduce((sum, [, n]) => sum + n, 0) }
    }
    const [all, leftOut] = await Promise.all([
      sharedCounts(db, withoutLists(filters), res, box, now, { account: search.account, lists: '' }),
      countByCell(db, filters, res, box, now, { account: search.account, inLists: true }),
    ])
    const cells = all.cells
      .map(([cell, n]): [string, number] => [cell, n - (leftOut.get(cell) ?? 0)])
      .filter(([, n]) => n > 0)
      .sort(byCount)
    return { cells, total: cells.reduce((sum, [, n]) => sum + n, 0) }
  }
  const version = await readDataVersion(db)
  if (!settled(version, now)) return compute()
  const key = `${filtersHash(filters)}:${search.lists}:${res}:${box.west},${box.south},${box.east},${box.north}`
  return cellCache(db).get(version, key, compute)
}

export interface CellsAnswer {
  resolution: CellResolution
  cells: { h3: string; count: number; owned: number }[]
  total: number
  truncated: boolean
}

/**
 * The cells of a search in a box: the counts are the same for every account (cached by data
 * version); what the account owns (the companies its exports list, as GET /api/companies/owned/
 * counts them) is read live, and only when it has exported anything. A search leaving lists out
 * (extension `lists`) is the account's own: its lists are checked first (ownLists).
 */
export async function searchCells(
  db: Db,
  userId: number,
  filters: Filters,
  box: Box,
  zoom: number,
  now: Date,
  maxCells = MAX_CELLS,
): Promise<CellsAnswer> {
  const resolution = resolutionForZoom(zoom)
  const snapped = snapBox(box, zoom)
  const lists = await ownLists(db, userId, filters)
  const exported = db.query('SELECT 1 FROM export_leads WHERE user_id = $1 LIMIT 1', [userId])
  const [shared, owns] = await Promise.all([sharedCounts(db, filters, resolution, snapped, now, { account: userId, lists }), exported])
  const owned = owns.rows.length
    ? await countByCell(db, filters, resolution, snapped, now, { owner: userId, account: userId })
    : new Map<string, number>()
  const kept = shared.cells.slice(0, maxCells)
  return {
    resolution,
    cells: kept.map(([cell, count]) => ({ h3: hex(cell), count, owned: owned.get(cell) ?? 0 })),
    total: shared.total,
    truncated: shared.cells.length > kept.length,
  }
}
