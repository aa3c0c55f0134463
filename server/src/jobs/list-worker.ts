import type { Deps } from '../app-env.ts'
import { matchList } from '../modules/lists/job.ts'
import type { ListRow } from '../modules/lists/service.ts'
import { claimJob, settleSql, startRunner, type JobTable, type Runner } from './runner.ts'

type WorkerDeps = Pick<Deps, 'db' | 'config'>

/** A list is its own job (issue 27): the row the API reads, its status the job's. */
const LISTS = {
  name: 'lists',
  status: { queued: 'queued', running: 'matching', done: 'matched', failed: 'failed' },
  dueAt: 'due_at',
} satisfies JobTable

/** A failed match is tried again after 10 s, then 1 min, then given up on (status failed, with its error). */
const MAX_ATTEMPTS = 3
const RETRY_BASE_MS = 10_000
const BACKOFF = [1, 6]
/** Renewed every third of it while the list is matched. */
const LEASE_MS = 30_000
const POLL_MS = 2_000

/** One worker per process: matching is free, and one list at a time keeps it from crowding out the exports. */
export function startListWorker(deps: WorkerDeps): Runner {
  const { db } = deps
  const settle = (ok: boolean) =>
    settleSql(LISTS, { ok: ok ? 'true' : 'false', maxAttempts: String(MAX_ATTEMPTS), retryBaseMs: String(RETRY_BASE_MS), backoff: BACKOFF })
  return startRunner(db, {
    name: 'list',
    table: LISTS,
    lanes: ['lists'],
    concurrency: 1,
    leaseMs: LEASE_MS,
    pollMs: POLL_MS,
    claim: (_lane, lease) => claimJob<ListRow>(db, LISTS, lease, { from: 'lists j', orderBy: 'j.id' }),
    async run(job, lease, stopping) {
      await matchList(db, job, lease, stopping)
      if (stopping() || lease.lost) return
      await db.query(
        `UPDATE lists SET ${settle(true)}, completed_at = now(), error = NULL WHERE id = $1 AND lease_owner = $2 AND status = 'matching'`,
        [job.id, lease.owner],
      )
    },
    async failed(job, lease) {
      await db.query(
        `UPDATE lists SET ${settle(false)}, error = 'Matching failed.' WHERE id = $1 AND lease_owner = $2 AND status = 'matching'`,
        [job.id, lease.owner],
      )
      console.error(`[list ${job.id}] attempt ${job.attempts} failed${job.attempts >= MAX_ATTEMPTS ? ': giving up' : ''}`)
    },
  })
}
