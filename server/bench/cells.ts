import { cp, stat } from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { loadConfig } from '../src/config.ts'
import { signAccessToken } from '../src/modules/auth/credentials.ts'
import { startService } from '../src/service.ts'
import { percentile } from './concurrency.ts'

/**
 * The map's cells for a whole country (issue 26): `BENCH_ONLY=cells npm run bench:server`, or
 * `node --import tsx server/bench/cells.ts`.
 *
 * - On PostgreSQL with BENCH_DATABASE_URL: the database `leads_bench_<BENCH_COMPANIES>` (default
 *   1,000,000) that the scale bench seeds and keeps; a dataset from before migration 030 gets its H3
 *   cells at this start (the start's time is printed, the backfill's own time by the service).
 * - On the embedded database: `.bench-data/cells-<BENCH_PGLITE_COMPANIES>` (default 100,000), copied
 *   from the scale bench's `scale-<n>` when that exists (seeded otherwise).
 *
 * Each request is a whole country's box at zoom 6 (H3 resolution 5) with one of several filter sets
 * (flags, a category), nothing cached: the data version is moved before each, as a write would. The
 * median and p95 of BENCH_CELLS_REQUESTS (default 40) requests are printed with the load average
 * (the machine is shared). Targets: p95 ≤ 150 ms at 1,000,000 companies on PostgreSQL, ≤ 100 ms at
 * 100,000 on the embedded database.
 */
const REQUESTS = Number(process.env.BENCH_CELLS_REQUESTS ?? 40)

async function exists(p: string) {
  return stat(p).then(
    () => true,
    () => false,
  )
}

async function configFor(database: 'pglite' | 'pg') {
  if (database === 'pg') {
    const size = Number(process.env.BENCH_COMPANIES ?? 1_000_000)
    const url = new URL(process.env.BENCH_DATABASE_URL!)
    url.pathname = `/${process.env.BENCH_DATABASE_NAME ?? `leads_bench_${size}`}`
    const dataDir = path.resolve(process.env.BENCH_DATA_DIR ?? '.bench-data', `scale-pg-${size}`)
    return loadConfig({ ...process.env, DATA_DIR: dataDir, PORT: '0', DATABASE_URL: url.toString(), SEED_COMPANIES: String(size) })
  }
  const size = Number(process.env.BENCH_PGLITE_COMPANIES ?? 100_000)
  const base = path.resolve(process.env.BENCH_DATA_DIR ?? '.bench-data')
  const dataDir = path.join(base, `cells-${size}`)
  // the scale bench's dataset, copied (a PGlite directory is never opened by two processes)
  if (!(await exists(dataDir)) && (await exists(path.join(base, `scale-${size}`))))
    await cp(path.join(base, `scale-${size}`), dataDir, { recursive: true })
  return loadConfig({ ...process.env, DATA_DIR: dataDir, PORT: '0', DATABASE_URL: '', SEED_COMPANIES: String(size) })
}

export async function benchCells(database: 'pglite' | 'pg'): Promise<{ ok: boolean; p95: number }> {
  const config = { ...(await configFor(database)), rateLimitPerMinute: 1_000_000_000 }
  const t0 = performance.now()
  const service = await startService(config)
  const startSeconds = (performance.now() - t0) / 1000
  const { db, clock } = service.deps
  const companies = (await db.query<{ n: number }>('SELECT count(*)::int AS n FROM companies')).rows[0]!.n
  console.log(
    `cells bench (${database}): ${companies.toLocaleString('en')} companies, service ready in ${startSeconds.toFixed(1)} s ` +
      `[load average ${os.loadavg()[0]!.toFixed(1)} on ${os.cpus().length} CPUs]`,
  )
  const { rows: users } = await db.query<{ id: number }>(
    `INSERT INTO users (email, password_hash, remaining_credits, created_at, email_confirmed_at)
     VALUES ($1, 'bench: no login', 0, $2, $2) RETURNING id`,
    [`bench-cells-${Date.now()}@example.com`, clock.now()],
  )
  const userId = users[0]!.id
  const token = await signAccessToken(config.secret, userId, clock.nowSeconds())
  try {
    // the four largest countries, each with the box of its companies
    const { rows: countries } = await db.query<{ code: string; west: number; south: number; east: number; north: number; n: number }>(
      `SELECT country_code::text AS code, min(longitude) AS west, min(latitude) AS south, max(longitude) AS east, max(latitude) AS north,
              count(*)::int AS n
         FROM companies GROUP BY 1 ORDER BY n DESC LIMIT 4`,
    )
    const variants = ['', '&email=true', '&phone_number=true&website=true', '&category=1', '&category=2,3', '&email=true&category=4']
    const get = async (query: string) => {
      const t = performance.now()
      const res = await fetch(`${service.url}/api/companies/cells/?${query}`, { headers: { Authorization: `Bearer ${token}` } })
      const answer = (await res.json()) as { cells?: unknown[] }
      if (res.status !== 200) throw new Error(`cells → ${res.status} ${JSON.stringify(answer)}`)
      return { ms: performance.now() - t, cells: answer.cells!.length }
    }
    const queryOf = (i: number) => {
      const c = countries[i % countries.length]!
      return `countries=${c.code.trim()}${variants[Math.floor(i / countries.length) % variants.length]}&bbox=${c.west},${c.south},${c.east},${c.north}&zoom=6`
    }
    await get(queryOf(0)) // the connection and the statement's first planning
    const loads: number[] = []
    const uncached: number[] = []
    const sizes: number[] = []
    for (let i = 0; i < REQUESTS; i++) {
      await db.query('UPDATE data_version SET version = version + 1')
      loads.push(os.loadavg()[0]!)
      const { ms, cells } = await get(queryOf(i))
      uncached.push(ms)
      sizes.push(cells)
    }
    const cached: number[] = []
    for (let i = 0; i < REQUESTS; i++) cached.push((await get(queryOf(i % countries.length))).ms)
    const sorted = (xs: number[]) => [...xs].sort((a, b) => a - b)
    const target = database === 'pg' ? 150 : 100
    const p95 = percentile(sorted(uncached), 95)
    console.log(
      `  whole country at zoom 6 (${countries.map((c) => `${c.code.trim()} ${c.n.toLocaleString('en')}`).join(', ')}; ` +
        `${Math.min(...sizes)}–${Math.max(...sizes)} cells), nothing cached: median ${percentile(sorted(uncached), 50).toFixed(1)} ms, ` +
        `p95 ${p95.toFixed(1)} ms (target ≤ ${target}) [load average ${Math.min(...loads).toFixed(1)}–${Math.max(...loads).toFixed(1)}]`,
    )
    console.log(
      `  the same, cached: median ${percentile(sorted(cached), 50).toFixed(1)} ms, p95 ${percentile(sorted(cached), 95).toFixed(1)} ms`,
    )
    return { ok: p95 <= target, p95 }
  } finally {
    await db.query('DELETE FROM users WHERE id = $1', [userId])
    await service.close()
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const pg = process.env.BENCH_DATABASE_URL ? [await benchCells('pg')] : []
  const only = process.env.BENCH_CELLS_DATABASES?.split(',')
  const lite = !only || only.includes('pglite') ? [await benchCells('pglite')] : []
  if (![...pg, ...lite].every((r) => r.ok)) process.exitCode = 1
}
