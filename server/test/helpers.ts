import { cp, mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { randomBytes } from 'node:crypto'
import { inject } from 'vitest'
import { loadConfig, type Config } from '../src/config.ts'
import { openDb } from '../src/db/db.ts'
import { startService, type RunningService } from '../src/service.ts'
import { databaseUrlOf, TEST_SEED_COMPANIES, testServiceEnv } from './global-setup.ts'

export interface TestService extends RunningService {
  /** fetch against the service: path like '/api/plans/'. */
  request(p: string, init?: RequestInit & { json?: unknown; token?: string }): Promise<Response>
}

/**
 * A real service on a random port with its own data directory, test clock on, small seed.
 * With DATABASE_URL set (CI's second run), each call gets its own PostgreSQL database.
 * With the default seed it starts from a copy of the data seeded once for the run (global-setup.ts);
 * with another seed size it seeds its own.
 */
export async function startTestService(
  overrides: Partial<Config> = {},
  options: Parameters<typeof startService>[1] = {},
): Promise<TestService> {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'leads-test-'))
  const seeded = (overrides.seedCompanies ?? TEST_SEED_COMPANIES) === TEST_SEED_COMPANIES ? inject('seededData') : null
  let databaseUrl: string | undefined
  let dropDb: (() => Promise<void>) | undefined
  if (process.env.DATABASE_URL) {
    const { default: pg } = await import('pg')
    const name = `leads_test_${randomBytes(6).toString('hex')}`
    const admin = new pg.Client({ connectionString: process.env.DATABASE_URL })
    await admin.connect()
    await admin.query(seeded?.database ? `CREATE DATABASE ${name} TEMPLATE ${seeded.database}` : `CREATE DATABASE ${name}`)
    await admin.end()
    databaseUrl = databaseUrlOf(name)
    dropDb = async () => {
      const c = new pg.Client({ connectionString: process.env.DATABASE_URL })
      await c.connect()
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
      await c.end()
    }
  } else if (!seeded) {
    // a copy of the migrated, empty cluster made once for the run (global-setup.ts): the service seeds it
    const cluster = inject('pgliteCluster')
    if (cluster) await cp(cluster, path.join(dataDir, 'pg'), { recursive: true })
  }
  if (seeded) {
    // the seeded cluster (PGlite) and the seed's export files, whose paths the rows name: they must
    // name this service's copies, as cleanup removes an expired export's file
    await cp(seeded.dataDir, dataDir, { recursive: true })
    const db = await openDb({ databaseUrl, dataDir, poolSize: 1 })
    await db.query(`UPDATE searches SET file_path = $2 || substr(file_path, length($1) + 1) WHERE starts_with(file_path, $1)`, [
      seeded.dataDir,
      dataDir,
    ])
    await db.close()
  }
  const config: Config = {
    ...loadConfig(testServiceEnv(dataDir)),
    databaseUrl,
    ...overrides,
  }
  const service = await startService(config, options)
  return {
    ...service,
    async request(p, init = {}) {
      const { json, token, headers, ...rest } = init
      const h = new Headers(headers)
      if (json !== undefined) h.set('Content-Type', 'application/json')
      if (token) h.set('Authorization', token.includes(' ') ? token : `Bearer ${token}`)
      const res = await fetch(service.url + p, { ...rest, headers: h, body: json !== undefined ? JSON.stringify(json) : rest.body })
      // what the request left for after its answer (a reset mail) is done before the test goes on,
      // as a person reads the mail after the page answered
      await service.afterAnswerDone()
      return res
    },
    async close() {
      await service.close()
      await dropDb?.()
      await rm(dataDir, { recursive: true, force: true })
    },
  }
}
