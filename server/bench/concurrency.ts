import os from 'node:os'
import path from 'node:path'
import { loadConfig } from '../src/config.ts'
import { startService } from '../src/service.ts'
import { signAccessToken } from '../src/lib/auth.ts'

/**
 * 50 concurrent clients through real HTTP (keep-alive), bounded in count and time: the preview of
 * `countries=US&email=true` (the issue's measure), a cheap endpoint alone (the profile: a token check
 * and one row), and the cheap endpoint while the previews run beside it (does it queue behind them?).
 * On the embedded database (the preview bench's data) and, with BENCH_DATABASE_URL, on PostgreSQL
 * (seeded on first use). Targets (issue 13): PostgreSQL preview p95 ≤ 100 ms and cheap p95 ≤ 30 ms;
 * PGlite cheap p95 ≤ 60 ms.
 */
const CLIENTS = Number(process.env.BENCH_CLIENTS ?? 50)
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 2000)
const MAX_SECONDS = Number(process.env.BENCH_MAX_SECONDS ?? 60)

interface Stats {
  requests: number
  errors: number
  seconds: number
  rps: number
  p50: number
  p95: number
  p99: number
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? NaN

/** `clients` loops sharing one request budget and one deadline. */
async function load(url: (i: number) => string, headers: Record<string, string>, clients: number, requests: number): Promise<Stats> {
  const times: number[] = []
  let issued = 0
  let errors = 0
  const deadline = Date.now() + MAX_SECONDS * 1000
  const started = performance.now()
  await Promise.all(
    Array.from({ length: clients }, async () => {
      while (issued < requests && Date.now() < deadline) {
        const i = issued++
        const t0 = performance.now()
        const res = await fetch(url(i), { headers })
        await res.arrayBuffer()
        times.push(performance.now() - t0)
        if (!res.ok) errors++
      }
    }),
  )
  const seconds = (performance.now() - started) / 1000
  times.sort((a, b) => a - b)
  return { requests: times.length, errors, seconds, rps: times.length / seconds, p50: percentile(times, 50), p95: percentile(times, 95), p99: percentile(times, 99) }
}

const line = (label: string, s: Stats) =>
  `  ${label.padEnd(34)} ${String(s.requests).padStart(5)} req in ${s.seconds.toFixed(1).padStart(5)} s  ${s.rps.toFixed(0).padStart(5)} req/s  ` +
  `p50 ${s.p50.toFixed(1).padStart(6)} ms  p95 ${s.p95.toFixed(1).padStart(6)} ms  p99 ${s.p99.toFixed(1).padStart(6)} ms${s.errors ? `  ${s.errors} errors` : ''}`

export interface ConcurrencyResult {
  database: 'pglite' | 'pg'
  preview: Stats
  cheap: Stats
  cheapBesidePreviews: Stats
  ok: boolean
}

export async function benchConcurrency(database: 'pglite' | 'pg'): Promise<ConcurrencyResult> {
  const dataDir = path.resolve(process.env.BENCH_DATA_DIR ?? '.bench-data', database === 'pg' ? 'concurrency-pg' : 'preview')
  const config = {
    ...loadConfig({ ...process.env, DATA_DIR: dataDir, PORT: '0', DATABASE_URL: database === 'pg' ? process.env.BENCH_DATABASE_URL : '' }),
    rateLimitPerMinute: 100_000_000,
  }
  const t0 = Date.now()
  const service = await startService(config)
  console.log(`concurrency bench (${database}): service ready in ${((Date.now() - t0) / 1000).toFixed(1)} s`)
  try {
    const { db, clock } = service.deps
    const user = await db.query<{ id: number }>(
      `INSERT INTO users (email, password_hash, created_at, email_confirmed_at) VALUES ($1, 'bench: no login', $2, $2)
       ON CONFLICT (lower(email)) DO UPDATE SET email = EXCLUDED.email RETURNING id`,
      ['bench-concurrency@example.com', clock.now().toISOString()],
    )
    const token = await signAccessToken(config.secret, user.rows[0]!.id, clock.nowSeconds())
    const headers = { Authorization: `Bearer ${token}`, 'Accept-Encoding': 'gzip' }
    const companies = (await db.query<{ n: number }>('SELECT count(*)::int AS n FROM companies')).rows[0]!.n
    const preview = () => `${service.url}/api/companies/?countries=US&email=true`
    const cheap = () => `${service.url}/api/user/profile/`
    await load(preview, headers, 5, 50) // warm-up
    await load(cheap, headers, 5, 50)

    const previewStats = await load(preview, headers, CLIENTS, REQUESTS)
    const cheapStats = await load(cheap, headers, CLIENTS, REQUESTS)
    const [, beside] = await Promise.all([load(preview, headers, CLIENTS / 2, REQUESTS / 2), load(cheap, headers, CLIENTS / 2, REQUESTS / 2)])
    const target = database === 'pg' ? { preview: 100, cheap: 30 } : { preview: Infinity, cheap: 60 }
    console.log(
      `concurrency (${database}, ${companies.toLocaleString('en')} companies, ${CLIENTS} clients, ≤ ${REQUESTS} requests or ${MAX_SECONDS} s each) ` +
        `[load average ${os.loadavg()[0]!.toFixed(1)} on ${os.cpus().length} CPUs]`,
    )
    console.log(line('preview countries=US&email=true', previewStats))
    console.log(line('profile (cheap)', cheapStats))
    console.log(line(`profile beside ${CLIENTS / 2} preview clients`, beside))
    const ok = previewStats.p95 <= target.preview && cheapStats.p95 <= target.cheap && !previewStats.errors && !cheapStats.errors
    console.log(
      `  targets: ${Number.isFinite(target.preview) ? `preview p95 ≤ ${target.preview} ms, ` : ''}cheap p95 ≤ ${target.cheap} ms: ${ok ? 'met' : 'NOT met'}`,
    )
    return { database, preview: previewStats, cheap: cheapStats, cheapBesidePreviews: beside, ok }
  } finally {
    await service.close()
  }
}
