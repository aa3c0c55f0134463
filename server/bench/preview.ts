import os from 'node:os'
import path from 'node:path'
import { loadConfig } from '../src/config.ts'
import { startService } from '../src/service.ts'
import { signAccessToken } from '../src/modules/auth/credentials.ts'
import { mulberry32 } from '../src/seed/companies.ts'

/**
 * Preview-count latency over 200 varied filter combinations on the default dataset (100,000
 * companies, embedded PGlite), through real HTTP. The dataset is seeded once into
 * .bench-data/preview and reused by later runs. Target (issue 2): p95 ≤ 50 ms.
 */
export interface PreviewBenchResult {
  companies: number
  requests: number
  p50: number
  p95: number
  max: number
}

const percentile = (sorted: number[], p: number) => sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!

export async function benchPreview(opts: { combinations?: number } = {}): Promise<PreviewBenchResult> {
  const combinations = opts.combinations ?? 200
  const dataDir = path.resolve(process.env.BENCH_DATA_DIR ?? '.bench-data', 'preview')
  const config = {
    ...loadConfig({ ...process.env, DATA_DIR: dataDir, PORT: process.env.BENCH_PORT ?? '0', DATABASE_URL: '' }),
    rateLimitPerMinute: 1_000_000,
  }
  const started = Date.now()
  const service = await startService(config)
  console.log(`preview bench: service ready in ${((Date.now() - started) / 1000).toFixed(1)} s (${dataDir})`)
  try {
    const { db, clock } = service.deps
    const user = await db.query<{ id: number }>(
      `INSERT INTO users (email, password_hash, created_at) VALUES ($1, 'bench: no login', $2)
       ON CONFLICT (lower(email)) DO UPDATE SET email = EXCLUDED.email RETURNING id`,
      ['bench-preview@example.com', clock.now().toISOString()],
    )
    const token = await signAccessToken(config.secret, user.rows[0]!.id, clock.nowSeconds())
    const get = async (p: string) => {
      const res = await fetch(service.url + p, { headers: { Authorization: `Bearer ${token}` } })
      if (!res.ok) throw new Error(`${p} → ${res.status} ${await res.text()}`)
      return res.json() as Promise<unknown>
    }

    const companies = (await db.query<{ n: number }>('SELECT count(*)::int AS n FROM companies')).rows[0]!.n
    const countries = (await get('/api/locations/countries/')) as { code: string }[]
    const level1 = (await get('/api/locations/level1/')) as { id: number; country: string }[]
    const level2 = (await get('/api/locations/level2/')) as { id: number; level1_id: number }[]
    const level3 = (await get('/api/locations/level3/')) as { id: string; level1_id: number; level2_id: number }[]
    const categories = (await get('/api/categories/?limit=100')) as { id: number }[]

    const rand = mulberry32(4242)
    const some = <T>(items: T[], max: number): T[] => {
      const n = Math.floor(rand() * (max + 1))
      const out = new Set<T>()
      while (out.size < Math.min(n, items.length)) out.add(items[Math.floor(rand() * items.length)]!)
      return [...out]
    }
    const queries: string[] = []
    for (let i = 0; i < combinations; i++) {
      const q = new URLSearchParams()
      const chosen = some(countries, 3).map((c) => c.code)
      if (chosen.length) q.set('countries', chosen.join(','))
      const inCountries = <T extends { country?: string; level1_id?: number }>(items: T[], states: Set<number> | null) =>
        items.filter((x) => (x.country ? !chosen.length || chosen.includes(x.country) : !states || states.has(x.level1_id!)))
      const kind = rand()
      if (kind < 0.3) {
        const states = some(inCountries(level1, null), 3)
        states.forEach((s) => q.append('level1_location', String(s.id)))
        if (rand() < 0.5) {
          const set = new Set(states.map((s) => s.id))
          some(
            level3.filter((c) => set.has(c.level1_id)),
            3,
          ).forEach((c) => q.append('level3_location', c.id))
        }
      } else if (kind < 0.45) {
        some(level2, 3).forEach((c) => q.append('level2_location', String(c.id)))
      } else if (kind < 0.6) {
        some(level3, 4).forEach((c) => q.append('level3_location', c.id))
      }
      some(categories, 3).forEach((c) => q.append('category', String(c.id)))
      if (rand() < 0.3) q.set('main_activity_only', 'true')
      if (rand() < 0.5) q.set('email', 'true')
      if (rand() < 0.3) q.set('phone_number', 'true')
      if (rand() < 0.3) q.set('website', 'true')
      queries.push(q.toString())
    }

    for (const q of queries.slice(0, 10)) await get(`/api/companies/?${q}`) // warm-up
    // Previews are cached by data version (lib/data-version.ts): this bench is about computing
    // them, so each pass starts on a new version and every combination is counted again.
    const newVersion = () => db.query('UPDATE data_version SET version = version + 1')
    await newVersion()
    const timeOnce = async (q: string) => {
      const t0 = performance.now()
      await get(`/api/companies/?${q}`)
      return performance.now() - t0
    }
    const timed: { q: string; ms: number }[] = []
    for (const q of queries) timed.push({ q, ms: await timeOnce(q) })
    const times = timed.map((t) => t.ms).sort((a, b) => a - b)
    if (process.env.BENCH_VERBOSE) {
      for (const t of [...timed].sort((a, b) => b.ms - a.ms).slice(0, 12)) console.log(`${t.ms.toFixed(1)} ms  ${decodeURIComponent(t.q)}`)
    }
    const result = { companies, requests: times.length, p50: percentile(times, 50), p95: percentile(times, 95), max: times.at(-1)! }
    console.log(
      `preview count: ${result.requests} filter combinations on ${companies.toLocaleString('en')} companies: ` +
        `p50 ${result.p50.toFixed(1)} ms, p95 ${result.p95.toFixed(1)} ms, max ${result.max.toFixed(1)} ms (target p95 ≤ 50 ms)` +
        ` [load average ${os.loadavg()[0]!.toFixed(1)} on ${os.cpus().length} CPUs]`,
    )
    // On a busy shared machine single timings swing with the scheduler; the fastest of three
    // passes per combination shows what the service itself costs. Reported beside, never instead.
    const best = [...timed]
    for (let pass = 0; pass < 2; pass++) {
      await newVersion()
      for (const [i, t] of best.entries()) best[i] = { q: t.q, ms: Math.min(t.ms, await timeOnce(t.q)) }
    }
    const bestTimes = best.map((t) => t.ms).sort((a, b) => a - b)
    console.log(
      `preview count, fastest of 3 passes per combination: p50 ${percentile(bestTimes, 50).toFixed(1)} ms, ` +
        `p95 ${percentile(bestTimes, 95).toFixed(1)} ms [load average ${os.loadavg()[0]!.toFixed(1)}]`,
    )
    return result
  } finally {
    await service.close()
  }
}
