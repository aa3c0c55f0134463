import { openAsBlob } from 'node:fs'
import { cp, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { loadavg, tmpdir } from 'node:os'
import path from 'node:path'
import { loadConfig } from '../src/config.ts'
import { signAccessToken } from '../src/modules/auth/credentials.ts'
import { fillCompanyKeys } from '../src/modules/lists/keys.ts'
import { startService } from '../src/service.ts'

/**
 * List matching bench (issue 27): a list of 100,000 rows made from the companies of an existing
 * dataset (by default the 1M-company PostgreSQL database `leads_bench_1000000`), uploaded through
 * real HTTP and matched by the job, polled until done. Rows: websites, company e-mail addresses,
 * phones, misspelt names with their city, and one in ten a business that is not there; the
 * companies are ones a row can single out (the seed repeats names and domains), so precision and
 * recall mean something. Prints the time of each step, the peak RSS, the load average, and precision and recall
 * against the known answers. Target: the match under a minute on PostgreSQL, memory bounded.
 *
 *   node --import tsx server/bench/lists.ts   (BENCH_DATABASE_URL, BENCH_PGLITE_FROM, LIST_ROWS to change)
 */
const ROWS = Number(process.env.LIST_ROWS ?? 100_000)
// BENCH_PGLITE_FROM=.bench-data/preview: a copy of that embedded dataset instead (never the shared one itself)
const pgliteFrom = process.env.BENCH_PGLITE_FROM
const url = pgliteFrom ? '' : (process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:25600/leads_bench_1000000')
const mb = (bytes: number) => (bytes / (1024 * 1024)).toFixed(0)
const secs = (ms: number) => `${(ms / 1000).toFixed(1)} s`

const dataDir = await mkdtemp(path.join(tmpdir(), 'leads-bench-lists-'))
if (pgliteFrom) await cp(path.join(pgliteFrom, 'pg'), path.join(dataDir, 'pg'), { recursive: true })
let peak = process.memoryUsage().rss
const sampler = setInterval(() => {
  peak = Math.max(peak, process.memoryUsage().rss)
}, 50)
const config = { ...loadConfig({ ...process.env, DATA_DIR: dataDir, PORT: '0', DATABASE_URL: url }), rateLimitPerMinute: 1_000_000 }
const service = await startService(config)
const { db, clock } = service.deps
try {
  const companies = (await db.query<{ n: number }>('SELECT count(*)::int AS n FROM companies')).rows[0]!.n
  let t = performance.now()
  const filled = await fillCompanyKeys(db)
  console.log(
    `lists bench: ${companies.toLocaleString('en')} companies; match keys written for ${filled.toLocaleString('en')} in ${secs(performance.now() - t)} (once per dataset)`,
  )

  const user = await db.query<{ id: number }>(
    `INSERT INTO users (email, password_hash, created_at, email_confirmed_at) VALUES ($1, 'bench: no login', $2, $2)
     ON CONFLICT (lower(email)) DO UPDATE SET email = excluded.email RETURNING id`,
    ['bench-lists@example.com', clock.now()],
  )
  const userId = user.rows[0]!.id
  await db.query('DELETE FROM lists WHERE user_id = $1', [userId])
  const token = await signAccessToken(config.secret, userId, clock.nowSeconds())
  const call = async <T>(p: string, init: RequestInit = {}): Promise<T> => {
    const res = await fetch(service.url + p, { ...init, headers: { Authorization: `Bearer ${token}`, ...init.headers } })
    if (!res.ok) throw new Error(`${p} → ${res.status} ${await res.text()}`)
    return (await res.json()) as T
  }

  // the rows and their answers: companies spread over the whole table, one in ten rows a near-miss
  const { rows: sample } = await db.query<{
    id: number
    name: string
    website: string | null
    email: string | null
    phone: string | null
    city: string
  }>(
    `SELECT c.id, c.name, c.website, k.site_domain, c.phone, l.name AS city,
            (SELECT e FROM unnest(c.emails) e WHERE e LIKE '%@' || k.site_domain LIMIT 1) AS email
       FROM companies c JOIN company_match_keys k ON k.company_id = c.id JOIN level3_locations l ON l.id = c.level3_id
      WHERE c.id % $2 = 0
        -- known answers: no other company has the same name in the same city, or the same domain
        AND NOT EXISTS (SELECT 1 FROM company_match_keys o WHERE o.level3_id = k.level3_id AND o.name_key = k.name_key AND o.company_id <> k.company_id)
        AND NOT EXISTS (SELECT 1 FROM company_match_keys o WHERE o.site_domain = k.site_domain AND o.company_id <> k.company_id)
      ORDER BY c.id LIMIT $1`,
    [ROWS, Math.max(1, Math.floor(companies / ROWS / 4))],
  )
  const lines = ['Name,City,Phone,Website,Email']
  const answers: Array<number | null> = []
  const q = (s: string) => (/[",\r\n]/.test(s) ? `"${s.replaceAll('"', '""')}"` : s)
  for (let i = 0; answers.length < ROWS; i++) {
    const c = sample[i % sample.length]!
    if (i % 10 === 9) {
      lines.push([`Nowhere Trading ${i}`, c.city, '', `https://no-such-business-${i}.example`, ''].map(q).join(','))
      answers.push(null)
      continue
    }
    const at = Math.floor(c.name.length / 2)
    const typo = c.name.slice(0, at) + c.name.slice(at + 1)
    const v = i % 4
    if (v === 0 && c.website) lines.push([c.name, c.city, '', c.website, ''].map(q).join(','))
    else if (v === 1 && c.email) lines.push([c.name, '', '', '', c.email].map(q).join(','))
    else if (v === 2 && c.phone) lines.push([c.name, c.city, c.phone, '', ''].map(q).join(','))
    else lines.push([typo, c.city, '', '', ''].map(q).join(','))
    answers.push(c.id)
  }
  const file = path.join(dataDir, 'list.csv')
  await writeFile(file, `${lines.join('\r\n')}\r\n`)

  t = performance.now()
  const form = new FormData()
  form.set('file', await openAsBlob(file, { type: 'text/csv' }), 'list.csv')
  const list = await call<{ id: number; proposed_mapping: Record<string, number>; total_rows: number }>('/api/lists/', {
    method: 'POST',
    body: form,
  })
  const uploadMs = performance.now() - t

  t = performance.now()
  await call(`/api/lists/${list.id}/mapping/`, {
    method: 'PUT',
    headers: { 'Content-Type': 'application/json' },
    body: JSON.stringify({ mapping: list.proposed_mapping }),
  })
  let status: { status: string; matched_rows: number }
  do {
    await new Promise((r) => setTimeout(r, 200))
    status = await call(`/api/lists/${list.id}/`)
  } while (status.status === 'queued' || status.status === 'matching')
  const matchMs = performance.now() - t
  const load = loadavg()

  const { rows: results } = await db.query<{ row_no: number; status: string; company_id: number | null }>(
    'SELECT row_no, status, company_id FROM list_rows WHERE list_id = $1',
    [list.id],
  )
  let matched = 0
  let correct = 0
  for (const r of results) {
    if (r.status !== 'matched') continue
    matched++
    if (r.company_id === answers[r.row_no - 1]) correct++
  }
  const report = await call<{ matched: number; ambiguous: number; unmatched: number; by_rule: Record<string, number> }>(
    `/api/lists/${list.id}/report/`,
  )
  clearInterval(sampler)
  console.log(
    `lists bench: ${list.total_rows.toLocaleString('en')} rows against ${companies.toLocaleString('en')} companies (${db.kind}): ` +
      `upload ${secs(uploadMs)}, match ${secs(matchMs)} (${status.status}); peak RSS ${mb(peak)} MB; ` +
      `load average ${load.map((l) => l.toFixed(2)).join(' ')}`,
  )
  console.log(
    `lists bench: matched ${report.matched}, ambiguous ${report.ambiguous}, unmatched ${report.unmatched}, by rule ${JSON.stringify(report.by_rule)}; ` +
      `precision ${(correct / matched).toFixed(3)}, recall ${(correct / answers.filter((a) => a !== null).length).toFixed(3)}`,
  )
  await fetch(`${service.url}/api/lists/${list.id}/`, { method: 'DELETE', headers: { Authorization: `Bearer ${token}` } })
  if (matchMs > 60_000) process.exitCode = 1
} finally {
  clearInterval(sampler)
  await service.close()
  await rm(dataDir, { recursive: true, force: true })
}
