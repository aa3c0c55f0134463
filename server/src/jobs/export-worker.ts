import { once } from 'node:events'
import { createWriteStream } from 'node:fs'
import { mkdir, rename, rm, stat } from 'node:fs/promises'
import path from 'node:path'
import { finished } from 'node:stream/promises'
import { randomBytes } from 'node:crypto'
import type { Deps } from '../app-env.ts'
import type { Queryable } from '../db/db.ts'
import { normaliseFilters } from '../lib/filters.ts'
import { asFiltersInput, type ExportRow } from '../lib/exports.ts'
import { describeError } from '../lib/errors.ts'
import { fileLayout, type ExportColumn, type FileLayout } from '../lib/file-locale.ts'
import { recordExportLeads } from '../lib/lead-sets.ts'
import { newEventId, queueExportEventSql } from '../lib/webhooks.ts'
import { createXlsxWriter } from '../lib/xlsx-writer.ts'
import { csvSafe } from '../lib/csv-cell.ts'

type WorkerDeps = Omit<Deps, 'kickExports' | 'kickWebhooks' | 'resolveHost'>

/**
 * Leads fetched per query: a batch of the export's list at a time keeps memory flat whatever its size.
 * Larger on a PostgreSQL server; on the embedded database one query holds up every other request
 * while it runs (PGlite has one connection), so there a batch stays short.
 */
export const EXPORT_BATCH = { pg: 10_000, pglite: 2_000 } as const
const exportBatch = (db: Queryable & { kind?: 'pg' | 'pglite' }) => EXPORT_BATCH[db.kind ?? 'pglite']

/** The export's list of company ids (export_leads, in ranges of 1,024 ids), in id order, `size` at a time. */
async function* leadIds(db: Queryable, exportId: number, size: number): AsyncGenerator<number[]> {
  let pending: number[] = []
  let lastChunk = -1
  for (;;) {
    const { rows } = await db.query<{ chunk: number; company_ids: number[] }>(
      'SELECT chunk, company_ids FROM export_leads WHERE export_id = $1 AND chunk > $2 ORDER BY chunk LIMIT 32',
      [exportId, lastChunk],
    )
    if (!rows.length) break
    for (const r of rows) {
      pending = pending.concat(r.company_ids)
      lastChunk = r.chunk
      while (pending.length >= size) {
        yield pending.slice(0, size)
        pending = pending.slice(size)
      }
    }
  }
  if (pending.length) yield pending
}
const DAY_MS = 86_400_000

type Cell = string | number | null

/** A lead as the batch query answers it, a row of columns (less to build and collect than an object). */
type LeadRow = [
  id: number,
  name: string,
  /** the addresses joined by `;` (by the database: no array to parse here) */
  email: string,
  phone: string | null,
  website: string | null,
  instagram: string | null,
  facebook: string | null,
  address: string | null,
  zipcode: string | null,
  level1_id: number,
  level2_id: number,
  level3_id: number,
  country_code: string,
  /** ids joined by `,` */
  category_list: string,
  main_category_id: number,
  rating: string | number | null,
  review_count: number,
  latitude: number,
  longitude: number,
  place_id: string,
  /** ISO 8601 in UTC, as Date.toISOString writes it */
  collected_at: string,
]

interface RowWriter {
  /** A promise only when the caller must wait (the file stream is full). */
  write(cells: Cell[]): Promise<void> | void
  finish(): Promise<void>
}

/**
 * One field as csv-stringify writes it with RFC 4180's rules and this file's options: quoted when it
 * holds a quote, a CR or LF (a lone one would split the row), the separator or a `;` (Excel in
 * `;`-separator locales splits on it even in a `,` file), quotes doubled; null as nothing. Written
 * here rather than through csv-stringify's stream (a stream step and an awaited write per row);
 * server/test/export-file.test.ts holds the two to the same bytes.
 */
export function csvField(value: string | null, delimiter: ',' | ';'): string {
  if (value === null || value === '') return ''
  return (delimiter === ',' ? /[",;\r\n]/ : /[";\r\n]/).test(value) ? `"${value.replaceAll('"', '""')}"` : value
}

function csvWriter(file: string, layout: FileLayout): RowWriter {
  // a large buffer: with the default (16 KB) every 64 KB of rows waited for the disk
  const out = createWriteStream(file, { highWaterMark: 4 << 20 })
  // comma-separated, CRLF line ends, UTF-8, one header row; a file for a comma-decimal language is
  // `;`-separated with comma decimals and starts with a byte order mark
  const { delimiter } = layout
  const failed = new Promise<never>((_, reject) => out.once('error', reject))
  failed.catch(() => undefined)
  // rows are joined into text of about 64 KB, then written (waiting when the file stream is full)
  let text = `${layout.bom ? '\uFEFF' : ''}${layout.headers.map((h) => csvField(h, delimiter)).join(delimiter)}\r\n`
  const flush = async () => {
    const full = !out.write(text)
    text = ''
    if (full) await Promise.race([once(out, 'drain'), failed])
  }
  return {
    write(cells) {
      let line = ''
      for (let i = 0; i < cells.length; i++) {
        const c = cells[i]!
        if (i > 0) line += delimiter
        // numbers are the service's own (rating, coordinates): written with the file's decimal mark, never escaped
        line += typeof c === 'number' ? layout.decimal(c) : csvField(csvSafe(c) as string | null, delimiter)
      }
      text += `${line}\r\n`
      return text.length >= 1 << 16 ? flush() : undefined
    },
    async finish() {
      await flush()
      out.end()
      await Promise.race([finished(out), failed])
    },
  }
}

function xlsxWriter(file: string, layout: FileLayout): RowWriter {
  // streamed into the archive as rows come: memory stays bounded (lib/xlsx-writer.ts)
  const sheet = createXlsxWriter(file, { sheetName: layout.sheetName, rightToLeft: layout.rtl })
  sheet.addRow(layout.headers)
  return {
    write: (cells) => sheet.addRow(cells),
    finish: () => sheet.finish(),
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
/**
 * The claim a worker holds on a job (the `lease_owner` it wrote). Every write of the job's state is
 * conditional on it, so a worker whose lease was taken over (it stalled past EXPORT_LEASE_MS) changes
 * nothing; `lost` turns true when a heartbeat finds the lease gone, and the worker stops writing.
 */
export interface Lease {
  owner: string | null
  lost: boolean
}
const NO_LEASE: Lease = { owner: null, lost: false }

export async function processExport(deps: WorkerDeps, row: ExportRow, shouldStop: () => boolean = () => false, lease: Lease = NO_LEASE) {
  const { db, clock, config } = deps
  const stopping = () => shouldStop() || lease.lost
  const dir = path.join(config.dataDir, 'exports', String(row.user_id))
  const ext = row.export_format === 'excel' ? 'xlsx' : 'csv'
  const finalPath = path.join(dir, `${row.id}.${ext}`)
  const tmpPath = `${finalPath}.${randomBytes(4).toString('hex')}.tmp`
  try {
    const fail = await db.query('UPDATE users SET fail_next_export = false WHERE id = $1 AND fail_next_export RETURNING id', [row.user_id])
    if (fail.rows.length) throw new SimulatedFailure('The export failed (simulated failure: fail-next-export).')

    await mkdir(dir, { recursive: true })
    // category names in the file's language when it has one (the interface's file: English)
    const categoryNames = new Map(
      (
        await db.query<{ id: number; name: string }>('SELECT id, coalesce(names ->> $1, name_en) AS name FROM categories', [
          row.file_locale ?? 'en',
        ])
      ).rows.map((c) => [c.id, c.name]),
    )
    const places = {
      level1: nameCache(db, 'level1_locations'),
      level2: nameCache(db, 'level2_locations'),
      level3: nameCache(db, 'level3_locations'),
    }
    if (!row.leads_recorded) {
      // an export queued before leads were recorded (a rolling upgrade): fix its set as its file defines it
      const filters = normaliseFilters(asFiltersInput(row.filters))
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
    // exactly the leads fixed when the export was charged, in id order; the addresses, category ids and
    // date as text made by the database (parsing arrays and dates here cost more than writing the file)
    const sql = `SELECT c.id, c.name, array_to_string(c.emails, ';') AS email, c.phone, c.website, c.instagram, c.facebook,
                        c.address, c.zipcode, c.level1_id, c.level2_id, c.level3_id, c.country_code,
                        array_to_string(c.category_ids, ',') AS category_list, c.main_category_id, c.rating, c.review_count,
                        c.latitude, c.longitude, c.place_id,
                        to_char(c.collected_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS collected_at
                   FROM companies c WHERE c.id = ANY($1::int[]) ORDER BY c.id`
    const layout = fileLayout(row.file_locale, row.columns as ExportColumn[] | null)
    const writer = ext === 'xlsx' ? xlsxWriter(tmpPath, layout) : csvWriter(tmpPath, layout)
    const categoriesOf = (list: string) =>
      list === ''
        ? ''
        : list
            .split(',')
            .map((id) => categoryNames.get(Number(id)) ?? id)
            .join(';')
    const value: Record<ExportColumn, (lead: LeadRow) => Cell> = {
      name: (l) => l[1],
      email: (l) => l[2],
      phone: (l) => l[3],
      website: (l) => l[4],
      instagram: (l) => l[5],
      facebook: (l) => l[6],
      address: (l) => l[7],
      zipcode: (l) => l[8],
      city: (l) => places.level3.get(l[11]),
      level2_location: (l) => places.level2.get(l[10]),
      level1_location: (l) => places.level1.get(l[9]),
      country: (l) => l[12],
      categories: (l) => categoriesOf(l[13]),
      main_category: (l) => categoryNames.get(l[14]) ?? String(l[14]),
      rating: (l) => (l[15] === null ? null : Number(l[15])),
      review_count: (l) => l[16],
      latitude: (l) => l[17],
      longitude: (l) => l[18],
      place_id: (l) => l[19],
      collected_at: (l) => l[20],
    }
    const cellsOf = layout.columns.map((c) => value[c])
    // the next batch is read while this one is written
    const ids = leadIds(db, row.id, exportBatch(db))
    const readBatch = async (): Promise<{ ids: number[]; leads: LeadRow[] } | null> => {
      const next = await ids.next()
      if (next.done) return null
      const leads = (await db.query<LeadRow>(sql, [next.value], { rowMode: 'array' })).rows
      await Promise.all([
        places.level1.load(leads.map((l) => l[9])),
        places.level2.load(leads.map((l) => l[10])),
        places.level3.load(leads.map((l) => l[11])),
      ])
      return { ids: next.value, leads }
    }
    let reading = readBatch()
    let done = 0
    let progressWritten = 0
    while (done < row.lead_count) {
      if (stopping()) throw new WorkerStopped()
      const read = await reading
      const batch = read?.leads ?? []
      if (!read || batch.length < read.ids.length) throw new Error(`Only ${done + batch.length} of ${row.lead_count} leads could be found.`)
      reading = done + batch.length < row.lead_count ? readBatch() : Promise.resolve(null)
      reading.catch(() => undefined) // awaited on the next turn
      for (let i = 0; i < batch.length; i++) {
        // the rows are formatted on the service's thread: a turn of its event loop every ~2,000
        if (i > 0 && i % 2000 === 0) await yieldToEventLoop()
        const lead = batch[i]!
        const wait = writer.write(cellsOf.map((cell) => cell(lead)))
        if (wait) await wait
      }
      done += batch.length
      await yieldToEventLoop()
      // the progress a client polls for: after the first batch, then at most once a second
      if (Date.now() - progressWritten >= 1000) {
        progressWritten = Date.now()
        await db.query('UPDATE searches SET progress = $2, processed_count = $3 WHERE id = $1 AND lease_owner IS NOT DISTINCT FROM $4', [
          row.id,
          Math.min(99, Math.floor((done * 100) / row.lead_count)),
          done,
          lease.owner,
        ])
      }
      if (testRowDelayMs) await new Promise((r) => setTimeout(r, testRowDelayMs * batch.length))
    }
    await writer.finish()
    if (stopping()) throw new WorkerStopped()
    await rename(tmpPath, finalPath)
    const { size } = await stat(finalPath)
    const completedAt = clock.now()
    const days = await linkDays(db, row.user_id)
    // Only the lease holder completes the job. (A worker that lost its lease between the check above and
    // here renamed a file identical to the new holder's: same snapshot, filters and count, same bytes.)
    // the export.completed webhook deliveries are queued by the same statement (extension webhooks)
    const completed = await db.query(
      `WITH done AS (
         UPDATE searches SET status = 'COMPLETED', progress = 100, processed_count = $2, file_path = $3, filename = $4,
                file_size_bytes = $5, completed_at = $6, expires_at = $7, error = NULL, lease_owner = NULL, lease_until = NULL
          WHERE id = $1 AND status = 'PROCESSING' AND lease_owner IS NOT DISTINCT FROM $8 RETURNING *),
       queued AS (${queueExportEventSql({ ev: '$9', type: '$10', at: '$11' })})
       SELECT id FROM done`,
      [
        row.id,
        done,
        finalPath,
        await exportFilename(db, row, completedAt),
        size,
        completedAt,
        new Date(completedAt.getTime() + days * DAY_MS),
        lease.owner,
        newEventId(),
        'export.completed',
        completedAt.toISOString(),
      ],
    )
    if (!completed.rows.length) console.log(`[export ${row.id}] finished after its lease was taken over: the new holder completes it`)
  } catch (err) {
    await rm(tmpPath, { force: true }).catch(() => undefined)
    if (err instanceof WorkerStopped) {
      // A graceful stop hands the job back at once; a lost lease leaves it to its new holder. (A killed
      // process does neither: its lease lapses and a worker of any instance takes the job over.)
      if (!lease.lost && lease.owner) {
        await db
          .query("UPDATE searches SET status = 'PENDING', lease_owner = NULL, lease_until = NULL WHERE id = $1 AND lease_owner = $2", [
            row.id,
            lease.owner,
          ])
          .catch((e: unknown) => console.error(`[export ${row.id}] could not hand the job back: ${describeError(e)}`))
      }
      return
    }
    const message = err instanceof Error ? err.message : String(err)
    if (!(err instanceof SimulatedFailure)) console.error(`[export ${row.id}] failed:`, message)
    await db
      .query(
        `WITH done AS (
           UPDATE searches SET status = 'FAILED', error = $2, lease_owner = NULL, lease_until = NULL
            WHERE id = $1 AND lease_owner IS NOT DISTINCT FROM $3 RETURNING *),
         queued AS (${queueExportEventSql({ ev: '$4', type: '$5', at: '$6' })})
         SELECT id FROM done`,
        [row.id, message.slice(0, 500), lease.owner, newEventId(), 'export.failed', clock.now().toISOString()],
      )
      .catch((e: unknown) => console.error(`[export ${row.id}] could not record the failure: ${describeError(e)}`))
  }
}

/**
 * Claims the oldest job that is queued, or whose lease lapsed (its instance died or stalled), and
 * leases it to `owner`. SKIP LOCKED: workers of every instance claim at once without waiting on
 * each other, and never the same job.
 */
async function claimNext(q: Queryable, owner: string, leaseMs: number): Promise<ExportRow | undefined> {
  const { rows } = await q.query<ExportRow>(
    `UPDATE searches SET status = 'PROCESSING', progress = 0, processed_count = 0, error = NULL,
            lease_owner = $1, lease_until = clock_timestamp() + $2 * interval '1 millisecond', attempts = attempts + 1
      WHERE id = (SELECT id FROM searches
                   WHERE kind = 'export'
                     AND (status = 'PENDING' OR (status = 'PROCESSING' AND (lease_until IS NULL OR lease_until < clock_timestamp())))
                   ORDER BY id LIMIT 1 FOR UPDATE SKIP LOCKED)
      RETURNING *`,
    [owner, leaseMs],
  )
  return rows[0]
}

/** Test hook (test clock only): milliseconds per lead, so a test can kill an instance mid-export. */
const testRowDelayMs = process.env.LEADS_TEST_CLOCK === '1' ? Number(process.env.LEADS_TEST_EXPORT_ROW_DELAY_MS ?? 0) : 0

/**
 * EXPORT_CONCURRENCY workers per process over the shared queue in the database. `kick()` after
 * queueing; an idle worker also looks every EXPORT_POLL_MS, which is how an instance takes over the
 * jobs of one that died (their leases lapse after EXPORT_LEASE_MS) and picks up exports queued by
 * another instance. A restart requeues nothing by itself: only lapsed leases are taken.
 */
export function startExportWorker(deps: WorkerDeps): { kick: () => void; stop: () => Promise<void>; instanceId: string } {
  const instanceId = randomBytes(6).toString('hex')
  const { exportConcurrency: concurrency, exportLeaseMs: leaseMs, exportPollMs: pollMs } = deps.config
  let stopped = false
  let wanted = false
  const running = new Set<Promise<void>>()
  console.log(`[export worker] instance ${instanceId}: ${concurrency} worker(s), lease ${leaseMs} ms`)

  let workers = 0
  const work = async () => {
    const owner = `${instanceId}/${++workers}`
    while (!stopped) {
      wanted = false
      const job = await claimNext(deps.db, owner, leaseMs)
      if (!job) return
      if (job.attempts > 1) console.log(`[export ${job.id}] taken over by ${owner} (attempt ${job.attempts})`)
      const lease: Lease = { owner, lost: false }
      const heartbeat = setInterval(
        () => {
          deps.db
            .query(
              `UPDATE searches SET lease_until = clock_timestamp() + $3 * interval '1 millisecond'
              WHERE id = $1 AND lease_owner = $2 AND status = 'PROCESSING' RETURNING id`,
              [job.id, owner, leaseMs],
            )
            .then(
              (res) => {
                if (!res.rows.length && !lease.lost) {
                  lease.lost = true
                  console.log(`[export ${job.id}] lease lost by ${owner}: stopping without writing`)
                }
              },
              (err: unknown) => console.error(`[export ${job.id}] heartbeat failed: ${describeError(err)}`),
            )
        },
        Math.max(50, Math.floor(leaseMs / 3)),
      )
      try {
        await processExport(deps, job, () => stopped, lease)
      } finally {
        clearInterval(heartbeat)
      }
    }
  }
  const kick = () => {
    if (stopped) return
    wanted = true
    // up to EXPORT_CONCURRENCY workers; each claims until the queue is empty, then ends
    for (let i = running.size; i < concurrency; i++) {
      const p: Promise<void> = work()
        .catch((err: unknown) => console.error(`[export worker] ${describeError(err)}`))
        .finally(() => {
          running.delete(p)
          // a kick that came after this worker found the queue empty must not be lost
          if (wanted && !stopped) kick()
        })
      running.add(p)
    }
  }
  const poll = setInterval(kick, pollMs)
  poll.unref()
  kick()

  return {
    kick,
    instanceId,
    async stop() {
      stopped = true
      clearInterval(poll)
      await Promise.all([...running])
    },
  }
}
