import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { processExport } from '../src/jobs/export-worker.ts'
import type { ExportRow } from '../src/modules/exports/service.ts'
import { startTestService, type TestService } from './helpers.ts'
import { body, grant, preview, signUp, startExport, waitForExport } from './account-helpers.ts'
import { sharedDatabase } from './instances.ts'

/**
 * Issue 8: export jobs are a queue in the database that every instance's workers share, claimed
 * with a lease. In-process on both databases; with DATABASE_URL, two real service processes on one
 * PostgreSQL, one killed with SIGKILL mid-export.
 */

describe('leases (one service)', () => {
  let svc: TestService
  beforeAll(async () => {
    svc = await startTestService({ exportLeaseMs: 1000, exportPollMs: 100 })
  })
  afterAll(async () => {
    await svc?.close()
  })

  async function queued(): Promise<{ id: number; token: string }> {
    const u = await signUp(svc)
    await grant(svc, u.access, { subscription: 1000 })
    const p = await preview(svc, u.access, 'countries=DE')
    // held by a live lease of another instance, so this service's workers leave it alone
    await svc.deps.db.query(
      "UPDATE searches SET lease_owner = 'other-instance/1', lease_until = clock_timestamp() + interval '1 hour' WHERE user_id = $1",
      [u.id],
    )
    const started = await body<{ search_id: number }>(
      await startExport(svc, u.access, { search_id: p.search_id, export_format: 'csv', max_leads: 3 }),
    )
    await svc.deps.db.query(
      "UPDATE searches SET status = 'PROCESSING', lease_owner = 'other-instance/1', lease_until = clock_timestamp() + interval '1 hour' WHERE id = $1",
      [started.search_id],
    )
    return { id: started.search_id, token: u.access }
  }

  it('a job under a live lease is left alone; once the lease lapses a worker takes it over and completes it once', async () => {
    const job = await queued()
    svc.deps.kickExports()
    await new Promise((r) => setTimeout(r, 500))
    const held = (
      await svc.deps.db.query<{ status: string; attempts: number }>('SELECT status, attempts FROM searches WHERE id = $1', [job.id])
    ).rows[0]!
    expect(held.status).toBe('PROCESSING')
    const attemptsBefore = held.attempts
    await svc.deps.db.query("UPDATE searches SET lease_until = clock_timestamp() - interval '1 second' WHERE id = $1", [job.id])
    // no kick: the idle workers' poll finds the lapsed lease
    expect(await waitForExport(svc, job.token, job.id)).toMatchObject({ status: 'COMPLETED', processed_count: 3 })
    const after = (
      await svc.deps.db.query<{ attempts: number; lease_owner: string | null }>(
        'SELECT attempts, lease_owner FROM searches WHERE id = $1',
        [job.id],
      )
    ).rows[0]!
    expect(after.attempts).toBe(attemptsBefore + 1)
    expect(after.lease_owner).toBeNull()
    const charges = await svc.deps.db.query('SELECT 1 FROM credit_charges WHERE search_id = $1', [job.id])
    expect(charges.rows).toHaveLength(1)
  })

  it('a worker whose lease was taken over writes nothing: neither progress nor completion', async () => {
    const job = await queued()
    const row = (await svc.deps.db.query<ExportRow>('SELECT * FROM searches WHERE id = $1', [job.id])).rows[0]!
    await processExport(svc.deps, row, () => false, { owner: 'stale-worker/1', lost: false })
    const after = (
      await svc.deps.db.query<{ status: string; progress: number; file_path: string | null }>(
        'SELECT status, progress, file_path FROM searches WHERE id = $1',
        [job.id],
      )
    ).rows[0]!
    expect(after).toEqual({ status: 'PROCESSING', progress: 0, file_path: null })
  })
})

// Several processes cannot share the embedded database, so this part exists only in the suite's
// PostgreSQL run (npm test runs the server suite a second time on the PostgreSQL that .ci/run starts).
const twoInstances = process.env.DATABASE_URL ? describe : () => undefined
twoInstances('two instances on one PostgreSQL', () => {
  let shared: Awaited<ReturnType<typeof sharedDatabase>> | undefined
  afterAll(async () => {
    await shared?.close()
  })

  const instance = () =>
    shared!.instance({ EXPORT_CONCURRENCY: '2', EXPORT_LEASE_MS: '1500', EXPORT_POLL_MS: '200', LEADS_TEST_EXPORT_ROW_DELAY_MS: '3' })

  it('exports started on both complete exactly once with the right rows after one instance is killed mid-export', async () => {
    const { default: pg } = await import('pg')
    shared = await sharedDatabase('leads_queue')

    const a = instance()
    const A = await a.ready // seeds first
    const b = instance()
    const B = await b.ready

    const login = async (base: string) => {
      const res = await fetch(`${base}/api/auth/login/`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: JSON.stringify({ username: 'demo@example.com', password: 'demo-password' }),
      })
      return ((await res.json()) as { access: string }).access
    }
    const tokenA = await login(A.url)
    const tokenB = await login(B.url)
    const call = async (base: string, token: string, p: string, init: RequestInit = {}) =>
      fetch(`${base}${p}`, { ...init, headers: { Authorization: `Bearer ${token}`, 'Content-Type': 'application/json', ...init.headers } })
    const searchId = (
      (await (await call(A.url, tokenA, '/api/companies/?countries=US&countries=DE&countries=FR&countries=GB')).json()) as {
        search_id: number
      }
    ).search_id
    const before = ((await (await call(B.url, tokenB, '/api/user/profile/')).json()) as { remaining_credits: number }).remaining_credits

    const caps = [400, 450, 500, 550, 600, 650]
    const ids: number[] = []
    for (const [i, cap] of caps.entries()) {
      const [base, token] = i % 2 ? [B.url, tokenB] : [A.url, tokenA]
      const res = await call(base, token, '/api/download-csv/', {
        method: 'POST',
        body: JSON.stringify({ search_id: searchId, export_format: 'csv', max_leads: cap }),
      })
      expect(res.status).toBe(202)
      ids.push(((await res.json()) as { search_id: number }).search_id)
    }

    // kill A while it holds a job with some progress
    const db = new pg.Client({ connectionString: shared.url })
    await db.connect()
    try {
      const deadline = Date.now() + 20_000
      let victim: number | undefined
      while (!victim && Date.now() < deadline) {
        const { rows } = await db.query<{ id: number }>(
          "SELECT id FROM searches WHERE status = 'PROCESSING' AND lease_owner LIKE $1 AND processed_count > 0 LIMIT 1",
          [`${A.id}/%`],
        )
        victim = rows[0]?.id
        if (!victim) await new Promise((r) => setTimeout(r, 50))
      }
      expect(victim, 'instance A was writing an export').toBeDefined()
      a.child.kill('SIGKILL')

      // every export completes, served by B, with exactly its rows
      for (const [i, id] of ids.entries()) {
        const until = Date.now() + 60_000
        let status = ''
        while (status !== 'COMPLETED' && Date.now() < until) {
          status = ((await (await call(B.url, tokenB, `/api/download-status/${id}/`)).json()) as { status: string }).status
          expect(status).not.toBe('FAILED')
          if (status !== 'COMPLETED') await new Promise((r) => setTimeout(r, 200))
        }
        expect(status).toBe('COMPLETED')
        const link = ((await (await call(B.url, tokenB, `/api/download-completed-csv/${id}/`)).json()) as { download_url: string })
          .download_url
        const text = await (await fetch(link)).text()
        expect(text.trimEnd().split(/\r\n/)).toHaveLength(1 + caps[i]!)
      }
      // charged once per export, never again by the takeover
      const charges = await db.query<{ search_id: number; n: number; amount: number }>(
        `SELECT search_id, count(*)::int AS n, sum(from_subscription + from_purchased)::int AS amount
           FROM credit_charges WHERE search_id = ANY($1) GROUP BY search_id ORDER BY search_id`,
        [ids],
      )
      expect(charges.rows.map((r) => [r.n, r.amount])).toEqual(caps.map((c) => [1, c]))
      const after = ((await (await call(B.url, tokenB, '/api/user/profile/')).json()) as { remaining_credits: number }).remaining_credits
      expect(after).toBeLessThanOrEqual(before)
      const { rows } = await db.query<{ id: number; attempts: number }>('SELECT id, attempts FROM searches WHERE id = $1', [victim])
      expect(rows[0]!.attempts).toBe(2) // claimed by A, taken over by B once
      expect(b.output()).toContain(`[export ${victim}] taken over by ${B.id}/`)
    } finally {
      await db.end()
    }
  }, 120_000)
})
