import { randomBytes } from 'node:crypto'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { openDb, type Db } from '../src/db/db.ts'
import {
  claimJob,
  settleSql,
  startRunner,
  type Claimed,
  type ClaimLease,
  type JobTable,
  type Lease,
  type Queue,
} from '../src/jobs/runner.ts'

/**
 * Issue 23: the one job runner that exports and webhook deliveries share (src/jobs/runner.ts), on a
 * table of its own, on the suite's database (PGlite, or in the PostgreSQL run a database of its own).
 */

const JOBS = {
  name: 'runner_jobs',
  status: { queued: 'queued', running: 'running', done: 'done', failed: 'failed' },
  dueAt: 'due_at',
} satisfies JobTable

interface Job extends Claimed {
  id: number
  status: string
  lease_owner: string | null
}

let db: Db
let drop = async () => undefined as void
beforeAll(async () => {
  if (process.env.DATABASE_URL) {
    const { default: pg } = await import('pg')
    const name = `leads_runner_${randomBytes(6).toString('hex')}`
    const admin = new pg.Client({ connectionString: process.env.DATABASE_URL })
    await admin.connect()
    await admin.query(`CREATE DATABASE ${name}`)
    const url = new URL(process.env.DATABASE_URL)
    url.pathname = `/${name}`
    db = await openDb({ databaseUrl: url.toString(), poolSize: 4 })
    drop = async () => {
      await admin.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
      await admin.end()
    }
  } else {
    db = await openDb({ dataDir: 'memory://' })
  }
  await db.exec(`CREATE TABLE runner_jobs (
    id serial PRIMARY KEY,
    status text NOT NULL DEFAULT 'queued',
    due_at timestamptz NOT NULL DEFAULT clock_timestamp(),
    lease_owner text,
    lease_until timestamptz,
    attempts integer NOT NULL DEFAULT 0)`)
})
afterAll(async () => {
  await db?.close()
  await drop()
})
beforeEach(async () => {
  await db.query('TRUNCATE runner_jobs')
})

const queueJobs = async (n: number) =>
  (
    await db.query<{ id: number }>('INSERT INTO runner_jobs (status) SELECT $1 FROM generate_series(1, $2) RETURNING id', ['queued', n])
  ).rows.map((r) => r.id)
const rows = async () =>
  (
    await db.query<{ id: number; status: string; lease_owner: string | null; attempts: number }>(
      'SELECT id, status, lease_owner, attempts FROM runner_jobs ORDER BY id',
    )
  ).rows
const claim = (_lane: string, lease: ClaimLease) => claimJob<Job>(db, JOBS, lease, { from: 'runner_jobs j', orderBy: 'j.id' })
const finish = async (job: Job, lease: Lease) => {
  await db.query("UPDATE runner_jobs SET status = 'done', lease_owner = NULL, lease_until = NULL WHERE id = $1 AND lease_owner = $2", [
    job.id,
    lease.owner,
  ])
}
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
async function until(what: string, check: () => Promise<boolean> | boolean, timeoutMs = 10_000) {
  const end = Date.now() + timeoutMs
  while (!(await check())) {
    if (Date.now() > end) throw new Error(`timed out waiting for ${what}`)
    await sleep(20)
  }
}
const runner = (overrides: Partial<Queue<Job, string>>) =>
  startRunner<Job, string>(db, {
    name: 'test',
    table: JOBS,
    lanes: ['only'],
    concurrency: 2,
    leaseMs: 5_000,
    pollMs: 50,
    claim,
    run: finish,
    ...overrides,
  })

describe('the job runner', () => {
  it('runs every job once, at most `concurrency` at a time, and loses no kick', async () => {
    const ran: number[] = []
    let inFlight = 0
    let most = 0
    const r = runner({
      concurrency: 3,
      pollMs: 60_000, // only kicks wake it
      run: async (job, lease) => {
        most = Math.max(most, ++inFlight)
        await sleep(150) // far longer than a claim, so that every worker is busy at once
        ran.push(job.id)
        inFlight--
        await finish(job, lease)
      },
    })
    try {
      const ids = await queueJobs(10)
      r.kick()
      await until('the first jobs', async () => (await rows()).every((j) => j.status === 'done'))
      const later = await queueJobs(2)
      r.kick()
      await until('the jobs queued later', async () => (await rows()).every((j) => j.status === 'done'))
      expect(ran.sort((a, b) => a - b)).toEqual([...ids, ...later])
      expect(most).toBe(3)
      expect((await rows()).map((j) => j.attempts)).toEqual(Array(12).fill(1))
    } finally {
      await r.stop()
    }
  })

  it('a graceful stop waits for the jobs in flight and hands back the unfinished ones at once', async () => {
    const [unfinished, finished] = await queueJobs(2)
    let started = 0
    const r = runner({
      run: async (job, lease, stopping) => {
        started++
        if (job.id === finished) return finish(job, lease)
        while (!stopping()) await sleep(10) // a long job that notices the stop and leaves its work
      },
    })
    await until('both jobs', () => started === 2)
    await r.stop()
    expect(await rows()).toEqual([
      { id: unfinished, status: 'queued', lease_owner: null, attempts: 1 },
      { id: finished, status: 'done', lease_owner: null, attempts: 1 },
    ])
    // the next runner takes it at once (no lease to wait for), and not as a takeover
    const taken: Job[] = []
    const next = runner({
      run: async (job, lease) => {
        taken.push(job)
        await finish(job, lease)
      },
    })
    try {
      await until('the handed-back job', async () => (await rows())[0]!.status === 'done')
      expect(taken.map((j) => [j.id, j.attempts, j.taken_over])).toEqual([[unfinished, 2, false]])
    } finally {
      await next.stop()
    }
  })

  it('takes over a job whose lease lapsed, leaves a live lease alone, and renews its own', async () => {
    const [lapsed, live] = await queueJobs(2)
    await db.query(
      `UPDATE runner_jobs SET status = 'running', attempts = 1, lease_owner = 'dead/1', lease_until = clock_timestamp() - interval '1 second' WHERE id = $1`,
      [lapsed],
    )
    await db.query(
      `UPDATE runner_jobs SET status = 'running', attempts = 1, lease_owner = 'alive/1', lease_until = clock_timestamp() + interval '1 hour' WHERE id = $1`,
      [live],
    )
    const taken: Job[] = []
    let release = () => undefined as void
    const held = new Promise<void>((resolve) => (release = resolve))
    const r = runner({
      leaseMs: 300, // renewed every 100 ms
      run: async (job, lease) => {
        taken.push(job)
        await held
        await finish(job, lease)
      },
    })
    try {
      await until('the takeover', () => taken.length === 1)
      await sleep(700) // over twice the lease: only renewals keep it
      const { rows: leases } = await db.query<{ holds: boolean }>(
        'SELECT lease_until > clock_timestamp() AS holds FROM runner_jobs WHERE id = $1',
        [lapsed],
      )
      expect(leases[0]!.holds).toBe(true)
      release()
      await until('the taken-over job', async () => (await rows())[0]!.status === 'done')
      expect(taken.map((j) => [j.id, j.attempts, j.taken_over])).toEqual([[lapsed, 2, true]])
      expect((await rows())[1]).toEqual({ id: live, status: 'running', lease_owner: 'alive/1', attempts: 1 })
    } finally {
      release()
      await r.stop()
    }
  })

  it('a worker whose lease was taken from it sees it lost and writes nothing more', async () => {
    const [id] = await queueJobs(1)
    let sawLost = false
    const r = runner({
      leaseMs: 300,
      run: async (job, lease, stopping) => {
        // another worker's takeover, with its own lease: left at this one's 300 ms, a busy machine let it
        // expire before the check below, and this runner claimed the job again
        await db.query(
          "UPDATE runner_jobs SET lease_owner = 'other/1', lease_until = clock_timestamp() + interval '1 hour' WHERE id = $1",
          [job.id],
        )
        await until('the renewal that finds the lease gone', () => lease.lost)
        sawLost = !stopping() && lease.lost // the lease, not a stop of the runner
        await finish(job, lease)
      },
    })
    try {
      await until('the lost lease', () => sawLost)
      await sleep(50)
      expect(await rows()).toEqual([{ id, status: 'running', lease_owner: 'other/1', attempts: 1 }])
    } finally {
      await r.stop()
    }
    // a lost lease is not handed back by the stop either: it is the new holder's
    expect((await rows())[0]).toMatchObject({ status: 'running', lease_owner: 'other/1' })
  })

  it('records a job whose run threw through the queue, and goes on with the next', async () => {
    const [bad, good] = await queueJobs(2)
    const failed: number[] = []
    const r = runner({
      concurrency: 1,
      run: async (job, lease) => {
        if (job.id === bad) throw new Error('boom')
        await finish(job, lease)
      },
      failed: async (job, lease) => {
        failed.push(job.id)
        await db.query("UPDATE runner_jobs SET status = 'failed', lease_owner = NULL WHERE id = $1 AND lease_owner = $2", [
          job.id,
          lease.owner,
        ])
      },
    })
    try {
      await until('both jobs', async () => (await rows()).every((j) => j.status !== 'queued' && j.status !== 'running'))
      expect(failed).toEqual([bad])
      expect((await rows()).map((j) => [j.id, j.status])).toEqual([
        [bad, 'failed'],
        [good, 'done'],
      ])
    } finally {
      await r.stop()
    }
  })

  it('decides retries in SQL: the back-off of the attempt (the last one past the schedule), failed after the last attempt', async () => {
    const settle = (id: number, ok: boolean) =>
      db.query<{ status: string; wait_ms: string; lease_owner: string | null }>(
        `UPDATE runner_jobs SET ${settleSql(JOBS, { ok: '$2::boolean', maxAttempts: '$3', retryBaseMs: '$4', backoff: [1, 5] })}
          WHERE id = $1
          RETURNING status, lease_owner, round(extract(epoch FROM due_at - clock_timestamp()) * 1000)::bigint AS wait_ms`,
        [id, ok, 4, 1_000],
      )
    const ids = await queueJobs(5)
    const attempts = [1, 2, 3, 4, 1]
    for (const [i, id] of ids.entries()) {
      await db.query(
        "UPDATE runner_jobs SET status = 'running', attempts = $2, lease_owner = 'w/1', lease_until = clock_timestamp(), due_at = '2000-01-01' WHERE id = $1",
        [id, attempts[i]],
      )
    }
    const results = []
    for (const [i, id] of ids.entries()) results.push((await settle(id, i === 4)).rows[0]!)
    expect(results.map((r) => [r.status, r.lease_owner])).toEqual([
      ['queued', null],
      ['queued', null],
      ['queued', null],
      ['failed', null],
      ['done', null],
    ])
    const waits = results.slice(0, 3).map((r) => Number(r.wait_ms))
    expect(waits[0]).toBeGreaterThan(900)
    expect(waits[0]).toBeLessThanOrEqual(1_000)
    expect(waits[1]).toBeGreaterThan(4_900)
    expect(waits[1]).toBeLessThanOrEqual(5_000)
    expect(waits[2]).toBeGreaterThan(4_900) // past the schedule: its last delay
    expect(waits[2]).toBeLessThanOrEqual(5_000)
    // given up or done: the due time stays as it was
    expect(results.slice(3).every((r) => Number(r.wait_ms) < -1e9)).toBe(true)
  })
})
