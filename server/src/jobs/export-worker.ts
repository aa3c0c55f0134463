import { mkdir, rename, rm, stat } from 'node:fs/promises'
import path from 'node:path'
import { randomBytes } from 'node:crypto'
import type { Deps } from '../app-env.ts'
import type { Queryable } from '../db/db.ts'
import { normaliseFilters } from '../modules/search/filters.ts'
import { asFiltersInput, type ExportRow } from '../modules/exports/service.ts'
import { describeError } from '../lib/errors.ts'
import { recordExportLeads } from '../modules/exports/lead-sets.ts'
import { claimJob, startRunner, type JobTable, type Lease, type Runner } from './runner.ts'
import { writeExportFile } from './export-file.ts'
import { writeEnrichmentFile } from '../modules/lists/enrichment-file.ts'

type WorkerDeps = Omit<Deps, 'kickExports' | 'kickWebhooks' | 'kickLists' | 'resolveHost'>

const DAY_MS = 86_400_000

const slug = (s: string) =>
  s
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-|-$/g, '')
    .slice(0, 40)

async function exportFilename(q: Queryable, row: ExportRow, completedAt: Date): Promise<string> {
  const ext = row.export_format === 'excel' ? 'xlsx' : 'csv'
  if (row.list_name !== null)
    return `${[slug(row.list_name) || 'list', 'filled', completedAt.toISOString().slice(0, 10), row.id].join('-')}.${ext}`
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
  return `${parts.join('-')}.${ext}`
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

class WorkerStopped extends Error {}
/** The failure asked for by the test hook (and the demo seed's failed export): not worth an error log. */
class SimulatedFailure extends Error {}

/** A run outside the runner (the seed's): no lease to hold, its writes are unconditional. */
const NO_LEASE: Lease = { owner: null, lost: false }

/**
 * Writes one export's file: exactly `lead_count` companies matching its filters that existed at its
 * snapshot (and, for a fresh-data export, were created after `created_after`), in id order, to a temp
 * file renamed into place at the end (nothing half-written is ever visible).
 */
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
    if (stopping()) throw new WorkerStopped()
    let progressWritten = 0
    let delayed = 0
    // `written` of `total`: leads of a search's export, rows of an enrichment's list
    const afterBatch = async (written: number, total: number) => {
      if (stopping()) throw new WorkerStopped()
      // the progress a client polls for: after the first batch, then at most once a second
      if (Date.now() - progressWritten >= 1000) {
        progressWritten = Date.now()
        const part = total === 0 ? 1 : written / total
        await db.query('UPDATE searches SET progress = $2, processed_count = $3 WHERE id = $1 AND lease_owner IS NOT DISTINCT FROM $4', [
          row.id,
          Math.min(99, Math.floor(part * 100)),
          // in leads, as the status answers lead_count: an enrichment's share of its leads, by its rows written
          Math.floor(part * row.lead_count),
          lease.owner,
        ])
      }
      if (testRowDelayMs) await new Promise((r) => setTimeout(r, testRowDelayMs * (written - delayed)))
      delayed = written
    }
    let done: number
    if (row.list_id !== null) {
      await writeEnrichmentFile(db, row, tmpPath, afterBatch)
      // processed as every export counts it, in leads: the file's rows are the list's
      done = row.lead_count
    } else {
      done = await writeExportFile(db, row, tmpPath, (written) => afterBatch(written, row.lead_count))
    }
    if (stopping()) throw new WorkerStopped()
    await rename(tmpPath, finalPath)
    const { size } = await stat(finalPath)
    const completedAt = clock.now()
    const days = await linkDays(db, row.user_id)
    // Only the lease holder completes the job. (A worker that lost its lease between the check above and
    // here renamed a file identical to the new holder's: same snapshot, filters and count, same bytes.)
    // The export.completed webhook deliveries are queued by the status change (migration 027).
    const completed = await db.query(
      `UPDATE searches SET status = 'COMPLETED', progress = 100, processed_count = $2, file_path = $3, filename = $4,
              file_size_bytes = $5, completed_at = $6, expires_at = $7, error = NULL, lease_owner = NULL, lease_until = NULL
        WHERE id = $1 AND status = 'PROCESSING' AND lease_owner IS NOT DISTINCT FROM $8 RETURNING id`,
      [
        row.id,
        done,
        finalPath,
        await exportFilename(db, row, completedAt),
        size,
        completedAt,
        new Date(completedAt.getTime() + days * DAY_MS),
        lease.owner,
      ],
    )
    if (!completed.rows.length) console.log(`[export ${row.id}] finished after its lease was taken over: the new holder completes it`)
  } catch (err) {
    await rm(tmpPath, { force: true }).catch(() => undefined)
    // stopped: the runner hands the job back (a graceful stop), or its new holder has it (a lost lease)
    if (err instanceof WorkerStopped) return
    const message = err instanceof Error ? err.message : String(err)
    if (!(err instanceof SimulatedFailure)) console.error(`[export ${row.id}] failed:`, message)
    // the export.failed webhook deliveries are queued by the status change (migration 027), as of failed_at
    await db
      .query(
        `UPDATE searches SET status = 'FAILED', error = $2, failed_at = $4, lease_owner = NULL, lease_until = NULL
          WHERE id = $1 AND lease_owner IS NOT DISTINCT FROM $3`,
        [row.id, message.slice(0, 500), lease.owner, clock.now()],
      )
      .catch((e: unknown) => console.error(`[export ${row.id}] could not record the failure: ${describeError(e)}`))
  }
}

/** Test hook (test clock only): milliseconds per lead, so a test can kill an instance mid-export. */
const testRowDelayMs = process.env.LEADS_TEST_CLOCK === '1' ? Number(process.env.LEADS_TEST_EXPORT_ROW_DELAY_MS ?? 0) : 0

/** Exports are the `searches` rows of kind `export` themselves: the row is the job's state the API reads. */
const EXPORTS: JobTable = { name: 'searches', status: { queued: 'PENDING', running: 'PROCESSING', done: 'COMPLETED', failed: 'FAILED' } }

/** EXPORT_CONCURRENCY workers per process (jobs/runner.ts), each claiming the oldest export queued or whose lease lapsed. */
export function startExportWorker(deps: WorkerDeps): Runner {
  const { db, config } = deps
  return startRunner(db, {
    name: 'export',
    table: EXPORTS,
    lanes: ['exports'],
    concurrency: config.exportConcurrency,
    leaseMs: config.exportLeaseMs,
    pollMs: config.exportPollMs,
    claim: (_lane, lease) =>
      claimJob<ExportRow>(db, EXPORTS, lease, {
        from: 'searches j',
        where: "j.kind = 'export'",
        orderBy: 'j.id',
        reset: 'progress = 0, processed_count = 0, error = NULL',
      }),
    run: (job, lease, stopping) => processExport(deps, job, stopping, lease),
  })
}
