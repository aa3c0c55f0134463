import { randomBytes } from 'node:crypto'
import type { Queryable } from '../db/db.ts'
import { describeError } from '../lib/errors.ts'

/**
 * The one job runner of the service (exports, webhook deliveries), after graphile-worker's
 * `src/sql/*`: the jobs are rows of a table in the database that every instance shares, claimed with
 * FOR UPDATE SKIP LOCKED under a lease the worker renews while it works, so that any instance takes
 * over the jobs of one that died once their leases lapse. Lease times are the database's clock
 * (`clock_timestamp()`): they measure liveness, and every instance must agree on them. Retries and
 * their back-off are decided in SQL, from the row's own `attempts`. A queue supplies only what is its
 * own: which rows it claims in which order, how to run one job and how to record its result.
 */

/** A table whose rows are jobs: with `id`, `status`, `lease_owner`, `lease_until` and `attempts` columns. */
export interface JobTable {
  name: string
  status: { queued: string; running: string; done: string; failed: string }
  /** The column holding when a queued job is due (a retry waits in it); without one a queued job is due at once. */
  dueAt?: string
}

/**
 * The claim a worker holds on a job (the `lease_owner` it wrote; null for a run outside the runner).
 * Every write of the job's state is conditional on it, so a worker whose lease was taken over (it
 * stalled past the lease) changes nothing; `lost` turns true when a renewal finds the lease gone, and
 * the worker stops writing.
 */
export interface Lease {
  owner: string | null
  lost: boolean
}

/** The lease a worker asks for when it claims: its name and the lease's length. */
export interface ClaimLease {
  owner: string
  ms: number
}

const fromNow = (ms: string) => `clock_timestamp() + ${ms} * interval '1 millisecond'`

/** Rows `a` of the table that a worker may claim: queued and due, or running under a lease that lapsed (its worker died or stalled). */
export const claimable = (t: JobTable, a: string) =>
  `((${a}.status = '${t.status.queued}'${t.dueAt ? ` AND ${a}.${t.dueAt} <= clock_timestamp()` : ''})
    OR (${a}.status = '${t.status.running}' AND (${a}.lease_until IS NULL OR ${a}.lease_until < clock_timestamp())))`

/** Rows `a` being worked on right now (a lapsed lease does not count: its worker is gone). */
export const leased = (t: JobTable, a: string) => `(${a}.status = '${t.status.running}' AND ${a}.lease_until >= clock_timestamp())`

/** Which job a claim takes: the first claimable row (the table as `j`) of `from`, by `orderBy`. */
export interface Pick {
  from: string
  /** Conditions besides being claimable; their parameters are `params`, from $3 on. */
  where?: string
  params?: unknown[]
  orderBy: string
  /** Columns of the other tables in `from` that the claim returns with the job (`e.url` as `url`). */
  with?: string[]
  /** SET items of the claim besides the lease's (`progress = 0`). */
  reset?: string
}

/** What every claimed job carries: `taken_over` when its previous worker's lease had lapsed. */
export interface Claimed {
  id: number | string
  attempts: number
  taken_over: boolean
}

/**
 * Claims the first claimable job of `pick` and leases it to `lease.owner` for `lease.ms`. SKIP LOCKED:
 * workers of every instance claim at once without waiting on each other, and never the same job.
 */
export async function claimJob<Job>(q: Queryable, t: JobTable, lease: ClaimLease, pick: Pick): Promise<(Job & Claimed) | undefined> {
  const carried = pick.with ?? []
  const { rows } = await q.query<Job & Claimed>(
    `WITH picked AS (
       SELECT j.id, j.status AS claimed_from${carried.map((c) => `, ${c}`).join('')}
         FROM ${pick.from}
        WHERE ${claimable(t, 'j')}${pick.where ? ` AND ${pick.where}` : ''}
        ORDER BY ${pick.orderBy} LIMIT 1 FOR UPDATE OF j SKIP LOCKED)
     UPDATE ${t.name} AS j SET ${pick.reset ? `${pick.reset}, ` : ''}status = '${t.status.running}',
            lease_owner = $1, lease_until = ${fromNow('$2')}, attempts = j.attempts + 1
       FROM picked WHERE j.id = picked.id
     RETURNING j.*, picked.claimed_from = '${t.status.running}' AS taken_over${carried.map((c) => `, picked.${c.replace(/^\w+\./, '')}`).join('')}`,
    [lease.owner, lease.ms, ...(pick.params ?? [])],
  )
  return rows[0]
}

/**
 * SET items recording the end of a job's attempt: done when `ok`; otherwise due again after
 * `retryBaseMs` times the back-off's factor for its attempt (the last factor for any later one), or
 * failed once it made `maxAttempts`. Each argument is SQL (a parameter); the lease ends either way.
 */
export function settleSql(
  t: JobTable & { dueAt: string },
  p: { ok: string; maxAttempts: string; retryBaseMs: string; backoff: readonly number[] },
): string {
  const { queued, done, failed } = t.status
  return `status = CASE WHEN ${p.ok} THEN '${done}' WHEN attempts >= ${p.maxAttempts} THEN '${failed}' ELSE '${queued}' END,
          ${t.dueAt} = CASE WHEN ${p.ok} OR attempts >= ${p.maxAttempts} THEN ${t.dueAt}
                       ELSE ${fromNow(`${p.retryBaseMs} * (ARRAY[${p.backoff.join(', ')}])[least(attempts, ${p.backoff.length})]`)} END,
          lease_owner = NULL, lease_until = NULL`
}

export interface Queue<Job extends Claimed, Lane extends string> {
  /** Names the queue's lines in the log: `[<name> worker]`, `[<name> <job id>]`. */
  name: string
  table: JobTable
  /** Each lane has `concurrency` workers of its own, so that one lane's jobs never wait for another's. */
  lanes: readonly Lane[]
  concurrency: number
  leaseMs: number
  /** How often idle workers look for due jobs (retries, lapsed leases, jobs queued by other instances). */
  pollMs: number
  /** A job's end may make other jobs claimable (webhooks: the account's next delivery, in either lane). */
  kickAfterEach?: boolean
  claim(lane: Lane, lease: ClaimLease): Promise<Job | undefined>
  /** Runs one job and records its result; should see `stopping()` when it takes long (the runner hands it back). */
  run(job: Job, lease: Lease & { owner: string }, stopping: () => boolean): Promise<void>
  /** Records the attempt of a job whose `run` threw (the runner logs the error). */
  failed?(job: Job, lease: Lease & { owner: string }): Promise<void>
}

export interface Runner {
  /** Wakes the workers (after a job was queued). */
  kick(): void
  /** Stops claiming, waits for the jobs in flight, and hands back those left unfinished. */
  stop(): Promise<void>
  instanceId: string
}

/**
 * `concurrency` workers per lane, in this process, over the queue in the database. `kick()` after
 * queueing; an idle worker also looks every `pollMs`, which is how an instance takes over the jobs of
 * one that died and picks up jobs queued by another. A restart requeues nothing by itself: only
 * lapsed leases are taken.
 */
export function startRunner<Job extends Claimed, Lane extends string>(db: Queryable, queue: Queue<Job, Lane>): Runner {
  const instanceId = randomBytes(6).toString('hex')
  const { name, table, concurrency, leaseMs } = queue
  const lanes = queue.lanes.map((lane) => ({ lane, wanted: false, running: new Set<Promise<void>>() }))
  type Pool = (typeof lanes)[number]
  const running = new Set<Promise<void>>()
  let stopped = false
  let workers = 0
  console.log(`[${name} worker] instance ${instanceId}: ${concurrency} worker(s) per lane (${queue.lanes.join(', ')}), lease ${leaseMs} ms`)

  const renew = async (job: Job, lease: Lease) => {
    const { rows } = await db.query(
      `UPDATE ${table.name} SET lease_until = ${fromNow('$3')} WHERE id = $1 AND lease_owner = $2 AND status = '${table.status.running}' RETURNING id`,
      [job.id, lease.owner, leaseMs],
    )
    if (!rows.length && !lease.lost) {
      lease.lost = true
      console.log(`[${name} ${job.id}] lease lost by ${lease.owner}: stopping without writing`)
    }
  }

  const runOne = async (job: Job, owner: string) => {
    if (job.taken_over) console.log(`[${name} ${job.id}] taken over by ${owner} (attempt ${job.attempts})`)
    const lease = { owner, lost: false }
    const heartbeat = setInterval(
      () =>
        void renew(job, lease).catch((err: unknown) => console.error(`[${name} ${job.id}] lease renewal failed: ${describeError(err)}`)),
      Math.max(50, Math.floor(leaseMs / 3)),
    )
    try {
      await queue.run(job, lease, () => stopped)
    } catch (err) {
      console.error(`[${name} ${job.id}] ${describeError(err)}`)
      await queue
        .failed?.(job, lease)
        .catch((e: unknown) => console.error(`[${name} ${job.id}] could not record the failure: ${describeError(e)}`))
    } finally {
      clearInterval(heartbeat)
    }
    // A graceful stop hands an unfinished job back at once; a lost lease leaves it to its new holder.
    // (A killed process does neither: its lease lapses and a worker of any instance takes the job over.)
    if (stopped && !lease.lost) {
      await db
        .query(
          `UPDATE ${table.name} SET status = '${table.status.queued}', lease_owner = NULL, lease_until = NULL
            WHERE id = $1 AND lease_owner = $2 AND status = '${table.status.running}'`,
          [job.id, owner],
        )
        .catch((e: unknown) => console.error(`[${name} ${job.id}] could not hand the job back: ${describeError(e)}`))
    }
    if (queue.kickAfterEach) kick()
  }

  const work = async (pool: Pool) => {
    const owner = `${instanceId}/${pool.lane}/${++workers}`
    while (!stopped) {
      pool.wanted = false
      const job = await queue.claim(pool.lane, { owner, ms: leaseMs })
      if (!job) return
      await runOne(job, owner)
    }
  }
  const start = (pool: Pool) => {
    if (stopped) return
    pool.wanted = true
    // up to `concurrency` workers a lane; each claims until its lane is empty, then ends
    for (let i = pool.running.size; i < concurrency; i++) {
      const p: Promise<void> = work(pool)
        .catch((err: unknown) => console.error(`[${name} worker] ${describeError(err)}`))
        .finally(() => {
          pool.running.delete(p)
          running.delete(p)
          // a kick that came after this worker found its lane empty must not be lost
          if (pool.wanted && !stopped) start(pool)
        })
      pool.running.add(p)
      running.add(p)
    }
  }
  const kick = () => {
    for (const pool of lanes) start(pool)
  }
  const poll = setInterval(kick, queue.pollMs)
  poll.unref()
  kick()

  return {
    kick,
    instanceId,
    async stop() {
      stopped = true
      clearInterval(poll)
      while (running.size) await Promise.all([...running])
    },
  }
}
