import { once } from 'node:events'
import { createWriteStream } from 'node:fs'
import { mkdir, rename, rm, stat } from 'node:fs/promises'
import path from 'node:path'
import { finished } from 'node:stream/promises'
import { randomBytes } from 'node:crypto'
import { stringify } from 'csv-stringify'
import ExcelJS from 'exceljs'
import type { Deps } from '../app-env.ts'
import type { Queryable } from '../db/db.ts'
import { filtersWhere, normaliseFilters } from '../lib/filters.ts'
import { asFiltersInput, type ExportRow } from '../lib/exports.ts'
import { describeError } from '../lib/errors.ts'

type WorkerDeps = Omit<Deps, 'kickExports'>

/** Rows fetched per query: keyset pagination by id keeps memory flat whatever the export's size. */
export const EXPORT_BATCH = 2000
const DAY_MS = 86_400_000

export const EXPORT_COLUMNS = [
  'name',
  'email',
  'phone',
  'website',
  'instagram',
  'facebook',
  'address',
  'zipcode',
  'city',
  'level2_location',
  'level1_location',
  'country',
  'categories',
  'main_category',
  'rating',
  'review_count',
  'latitude',
  'longitude',
  'place_id',
  'collected_at',
] as const

type Cell = string | number | null

interface LeadRow {
  id: number
  name: string
  emails: string[]
  phone: string | null
  website: string | null
  instagram: string | null
  facebook: string | null
  address: string | null
  zipcode: string | null
  level1_id: number
  level2_id: number
  level3_id: number
  country_code: string
  category_ids: number[]
  main_category_id: number
  rating: string | number | null
  review_count: number
  latitude: number
  longitude: number
  place_id: string
  collected_at: Date
}

interface RowWriter {
  write(cells: Cell[]): Promise<void>
  finish(): Promise<void>
}

/**
 * CSV formula injection (docs/security.md): a spreadsheet opening the CSV runs a cell that starts
 * with `=`, `+`, `-` or `@` (tab and CR too) as a formula, and listing data (names, addresses,
 * websites, social links…) comes from third parties. Such a text cell gets a leading `'`, which
 * spreadsheets show as text. Exception: `+`/`-` followed only by digits, spaces and `( ) . / -` — a
 * phone number like `+49 30 1234-56` or a negative number — is left alone: it holds no function or
 * reference, so it cannot call anything. XLSX needs none of this: exceljs writes strings as text
 * cells, never as formulas.
 *
 * Every `;`- or `,`-separated SEGMENT of a cell is checked the same way (after leading spaces and
 * quotes): Excel in `;`-separator locales (DE, FR, …) splits `Shop;=1+1` into two cells when it
 * ignores the quoting, so a risky segment gets its `'` too (`Shop;'=1+1`), and a cell holding `;` is
 * quoted as well as one holding `,`.
 */
const FORMULA_START = /^[=@\t\r]/
const SIGN_START = /^[+-]/
const PLAIN_NUMBER = /^[+-][\d ()./-]*$/
const risky = (segment: string) => FORMULA_START.test(segment) || (SIGN_START.test(segment) && !PLAIN_NUMBER.test(segment))
export function csvSafe(cell: Cell): Cell {
  if (typeof cell !== 'string') return cell
  if (risky(cell)) cell = `'${cell}`
  // segments after a separator: the separator, then spaces/quotes, then the segment itself
  return cell.replace(/([;,][\s"']*)([^;,]*)/g, (all, lead: string, segment: string) => (risky(segment) ? `${lead}'${segment}` : all))
}

function csvWriter(file: string): RowWriter {
  const out = createWriteStream(file)
  // RFC 4180: comma-separated, CRLF line ends, fields quoted when needed; UTF-8, one header row.
  // csv-stringify quotes a field holding the whole CRLF delimiter but not a lone CR or LF, which
  // would split the row (and start a new line with whatever follows): quote those too.
  const csv = stringify({ header: true, columns: [...EXPORT_COLUMNS], record_delimiter: 'windows', quoted_match: /[\r\n;]/ })
  csv.pipe(out)
  const failed = new Promise<never>((_, reject) => {
    out.once('error', reject)
    csv.once('error', reject)
  })
  failed.catch(() => undefined)
  return {
    async write(cells) {
      if (!csv.write(cells.map(csvSafe))) await Promise.race([once(csv, 'drain'), failed])
    },
    async finish() {
      csv.end()
      await Promise.race([finished(out), failed])
    },
  }
}

function xlsxWriter(file: string): RowWriter {
  // The streaming writer flushes each committed row to the zip: memory stays bounded.
  const wb = new ExcelJS.stream.xlsx.WorkbookWriter({ filename: file, useStyles: false, useSharedStrings: false })
  const ws = wb.addWorksheet('Leads')
  ws.addRow([...EXPORT_COLUMNS]).commit()
  return {
    async write(cells) {
      ws.addRow(cells).commit()
    },
    async finish() {
      ws.commit()
      await wb.commit()
    },
  }
}

const slug = (s: string) =>
  s
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '')
    .slice(0, 40)

async function exportFilename(q: Queryable, row: ExportRow, completedAt: Date): Promise<string> {
  const f = normaliseFilters(asFiltersInput(row.filters))
  const parts = ['leads']
  parts.push(f.countries.length ? f.countries.slice(0, 3).join('-').toLowerCase() : 'all')
  if (f.countries.length > 3) parts.push('more')
  if (f.category.length) {
    const cat = (await q.query<{ slug: string }>('SELECT slug FROM categories WHERE id = $1', [f.category[0]])).rows[0]
    if (cat) parts.push(slug(cat.slug))
  }
  if (row.delta_of) parts.push('fresh')
  parts.push(completedAt.toISOString().slice(0, 10), String(row.id))
  return `${parts.join('-')}.${row.export_format === 'excel' ? 'xlsx' : 'csv'}`
}

async function linkDays(q: Queryable, userId: number): Promise<number> {
  const { rows } = await q.query<{ days: number }>(
    `SELECT coalesce(
       (SELECT p.link_expiration_days FROM users u JOIN plans p ON p.id = u.plan_id WHERE u.id = $1),
       (SELECT link_expiration_days FROM plans WHERE plan_type = 'Free'),
       3) AS days`,
    [userId],
  )
  return rows[0]?.days ?? 3
}

const yieldToEventLoop = () => new Promise<void>((resolve) => setImmediate(resolve))

class WorkerStopped extends Error {}
/** The failure asked for by the test hook (and the demo seed's failed export): not worth an error log. */
class SimulatedFailure extends Error {}

/**
 * Place names by id, fetched per batch for the ids not seen yet: on PGlite, joining the three
 * location tables into every batch query doubled the export time (4.8 s vs 2.3 s for 50,000 rows).
 */
function nameCache(db: Queryable, table: 'level1_locations' | 'level2_locations' | 'level3_locations') {
  const names = new Map<number, string>()
  return {
    async load(ids: number[]) {
      const missing = [...new Set(ids)].filter((id) => !names.has(id))
      if (!missing.length) return
      const { rows } = await db.query<{ id: number; name: string }>(`SELECT id, name FROM ${table} WHERE id = ANY($1::int[])`, [missing])
      for (const r of rows) names.set(r.id, r.name)
    },
    get: (id: number): string | null => names.get(id) ?? null,
  }
}

/**
 * Writes one export's file: exactly `lead_count` companies matching its filters that existed at its
 * snapshot (and, for a fresh-data export, were created after `created_after`), in id order, to a temp
 * file renamed into place at the end (nothing half-written is ever visible).
 */
export async function processExport(deps: WorkerDeps, row: ExportRow, shouldStop: () => boolean = () => false) {
  const { db, clock, config } = deps
  const dir = path.join(config.dataDir, 'exports', String(row.user_id))
  const ext = row.export_format === 'excel' ? 'xlsx' : 'csv'
  const finalPath = path.join(dir, `${row.id}.${ext}`)
  const tmpPath = `${finalPath}.${randomBytes(4).toString('hex')}.tmp`
  try {
    const fail = await db.query('UPDATE users SET fail_next_export = false WHERE id = $1 AND fail_next_export RETURNING id', [
      row.user_id,
    ])
    if (fail.rows.length) throw new SimulatedFailure('The export failed (simulated failure: fail-next-export).')

    await mkdir(dir, { recursive: true })
    const categoryNames = new Map(
      (await db.query<{ id: number; name_en: string }>('SELECT id, name_en FROM categories')).rows.map((c) => [c.id, c.name_en]),
    )
    const places = {
      level1: nameCache(db, 'level1_locations'),
      level2: nameCache(db, 'level2_locations'),
      level3: nameCache(db, 'level3_locations'),
    }
    const filters = normaliseFilters(asFiltersInput(row.filters))
    const where = filtersWhere(filters, 1)
    const base = where.params.length
    const snapshot = row.snapshot_at ?? row.created_at
    const conditions = [where.sql, `c.created_at <= $${base + 1}`, `c.id > $${base + 2}`]
    if (row.created_after) conditions.push(`c.created_at > $${base + 4}`)
    const sql = `SELECT c.id, c.name, c.emails, c.phone, c.website, c.instagram, c.facebook, c.address, c.zipcode,
                        c.level1_id, c.level2_id, c.level3_id, c.country_code,
                        c.category_ids, c.main_category_id, c.rating, c.review_count, c.latitude, c.longitude,
                        c.place_id, c.collected_at
                   FROM companies c
                  WHERE ${conditions.join(' AND ')}
                  ORDER BY c.id
                  LIMIT $${base + 3}`

    const writer = ext === 'xlsx' ? xlsxWriter(tmpPath) : csvWriter(tmpPath)
    let done = 0
    let lastId = 0
    while (done < row.lead_count) {
      if (shouldStop()) throw new WorkerStopped()
      const limit = Math.min(EXPORT_BATCH, row.lead_count - done)
      const params = [...where.params, snapshot, lastId, limit]
      if (row.created_after) params.push(row.created_after)
      const batch = (await db.query<LeadRow>(sql, params)).rows
      if (batch.length === 0) throw new Error(`Only ${done} of ${row.lead_count} leads could be found.`)
      await Promise.all([
        places.level1.load(batch.map((l) => l.level1_id)),
        places.level2.load(batch.map((l) => l.level2_id)),
        places.level3.load(batch.map((l) => l.level3_id)),
      ])
      for (const [i, lead] of batch.entries()) {
        if (i > 0 && i % 250 === 0) await yieldToEventLoop()
        await writer.write([
          lead.name,
          lead.emails.join(';'),
          lead.phone,
          lead.website,
          lead.instagram,
          lead.facebook,
          lead.address,
          lead.zipcode,
          places.level3.get(lead.level3_id),
          places.level2.get(lead.level2_id),
          places.level1.get(lead.level1_id),
          lead.country_code,
          lead.category_ids.map((id) => categoryNames.get(id) ?? String(id)).join(';'),
          categoryNames.get(lead.main_category_id) ?? String(lead.main_category_id),
          lead.rating === null ? null : Number(lead.rating),
          lead.review_count,
          lead.latitude,
          lead.longitude,
          lead.place_id,
          new Date(lead.collected_at).toISOString(),
        ])
      }
      done += batch.length
      lastId = batch[batch.length - 1]!.id
      // PGlite answers through promises alone, so without this the whole export could run in microtasks
      // and starve the event loop: no HTTP request served, no file stream drained, until it ends.
      await yieldToEventLoop()
      await db.query('UPDATE searches SET progress = $2, processed_count = $3 WHERE id = $1', [
        row.id,
        Math.min(99, Math.floor((done * 100) / row.lead_count)),
        done,
      ])
    }
    await writer.finish()
    await rename(tmpPath, finalPath)
    const { size } = await stat(finalPath)
    const completedAt = clock.now()
    const days = await linkDays(db, row.user_id)
    await db.query(
      `UPDATE searches SET status = 'COMPLETED', progress = 100, processed_count = $2, file_path = $3, filename = $4,
              file_size_bytes = $5, completed_at = $6, expires_at = $7, error = NULL
        WHERE id = $1`,
      [row.id, done, finalPath, await exportFilename(db, row, completedAt), size, completedAt, new Date(completedAt.getTime() + days * DAY_MS)],
    )
  } catch (err) {
    await rm(tmpPath, { force: true }).catch(() => undefined)
    if (err instanceof WorkerStopped) return // left PROCESSING: the next start requeues it
    const message = err instanceof Error ? err.message : String(err)
    if (!(err instanceof SimulatedFailure)) console.error(`[export ${row.id}] failed:`, message)
    await db
      .query("UPDATE searches SET status = 'FAILED', error = $2 WHERE id = $1", [row.id, message.slice(0, 500)])
      .catch((e: unknown) => console.error(`[export ${row.id}] could not record the failure: ${describeError(e)}`))
  }
}

async function claimNext(q: Queryable): Promise<ExportRow | undefined> {
  const { rows } = await q.query<ExportRow>(
    `UPDATE searches SET status = 'PROCESSING', progress = 0, processed_count = 0, error = NULL
      WHERE id = (SELECT id FROM searches WHERE kind = 'export' AND status = 'PENDING'
                   ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED)
      RETURNING *`,
  )
  return rows[0]
}

/**
 * In-process worker, one export at a time. `kick()` after queueing; at start it requeues exports a
 * previous run left PENDING or PROCESSING (e.g. the process was stopped mid-file).
 */
export function startExportWorker(deps: WorkerDeps): { kick: () => void; stop: () => Promise<void> } {
  let running: Promise<void> | null = null
  let wanted = false
  let stopped = false

  const loop = async () => {
    while (!stopped) {
      wanted = false
      const job = await claimNext(deps.db)
      if (!job) {
        if (wanted) continue
        break
      }
      await processExport(deps, job, () => stopped)
    }
  }
  const kick = () => {
    wanted = true
    if (running || stopped) return
    running = loop()
      .catch((err: unknown) => console.error(`[export worker] ${describeError(err)}`))
      .finally(() => {
        running = null
        if (wanted && !stopped) kick()
      })
  }
  const ready = deps.db
    .query("UPDATE searches SET status = 'PENDING' WHERE kind = 'export' AND status = 'PROCESSING'")
    .then(kick, (err: unknown) => console.error(`[export worker] could not requeue exports: ${describeError(err)}`))

  return {
    kick,
    async stop() {
      stopped = true
      await ready
      await running
    },
  }
}
