import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openDb, type Db } from '../src/db/db.ts'

/**
 * Issue 24: the embedded database runs on a thread of its own (src/db/pglite-worker.ts). A query that
 * takes a while stops that thread only; the service's event loop (timers, sockets, requests that
 * need no database) goes on. Before, PGlite ran on the service's thread and a 1 s query was 1 s of
 * nothing else.
 */

let db: Db
let dir: string
beforeAll(async () => {
  dir = await mkdtemp(path.join(tmpdir(), 'leads-db-thread-'))
  db = await openDb({ dataDir: dir })
})
afterAll(async () => {
  await db?.close()
  await rm(dir, { recursive: true, force: true })
})

describe('the embedded database on its own thread', () => {
  it('a timer keeps firing while a long query runs', async () => {
    // a query of a few hundred milliseconds of the database's CPU
    const heavy = 'SELECT count(*)::int AS n FROM generate_series(1, 4000000) g WHERE g % 7 = 3'
    let ticks = 0
    let longestGap = 0
    let last = performance.now()
    const timer = setInterval(() => {
      const t = performance.now()
      longestGap = Math.max(longestGap, t - last)
      last = t
      ticks++
    }, 5)
    const started = performance.now()
    const { rows } = await db.query<{ n: number }>(heavy)
    const took = performance.now() - started
    clearInterval(timer)
    expect(rows[0]!.n).toBe(571429)
    expect(took, 'the query must run long enough to tell').toBeGreaterThan(100)
    // the event loop turned while it ran (on the service's thread it could not turn at all until the end)
    expect(ticks).toBeGreaterThanOrEqual(3)
    expect(longestGap).toBeLessThan(took / 2)
  })

  it('keeps PostgreSQL semantics across the thread: errors with their code, transactions that roll back, COPY', async () => {
    await expect(db.query('SELECT * FROM no_such_table')).rejects.toMatchObject({ code: '42P01' })
    await db.exec('CREATE TABLE thread_t (x int PRIMARY KEY)')
    await expect(
      db.tx(async (q) => {
        await q.query('INSERT INTO thread_t VALUES (1)')
        await q.copyFrom('COPY thread_t (x) FROM STDIN (FORMAT csv)', '2\n3\n')
        throw new Error('changed my mind')
      }),
    ).rejects.toThrow('changed my mind')
    expect((await db.query<{ n: number }>('SELECT count(*)::int AS n FROM thread_t')).rows[0]!.n).toBe(0)
    await db.tx(async (q) => {
      await q.copyFrom('COPY thread_t (x) FROM STDIN (FORMAT csv)', '2\n3\n')
    })
    await expect(db.query('INSERT INTO thread_t VALUES (2)')).rejects.toMatchObject({ code: '23505' })
    expect((await db.query<{ s: number }>('SELECT sum(x)::int AS s FROM thread_t')).rows[0]!.s).toBe(5)
  })
})
