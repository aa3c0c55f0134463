import { cp, mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { randomBytes } from 'node:crypto'
import { inject } from 'vitest'
import { loadConfig, type Config } from '../src/config.ts'
import { startService, type RunningService } from '../src/service.ts'

export interface TestService extends RunningService {
  /** fetch against the service: path like '/api/plans/'. */
  request(p: string, init?: RequestInit & { json?: unknown; token?: string }): Promise<Response>
}

/**
 * A real service on a random port with its own data directory, test clock on, small seed.
 * With DATABASE_URL set (CI's second run), each call gets its own fresh PostgreSQL database.
 */
export async function startTestService(
  overrides: Partial<Config> = {},
  options: Parameters<typeof startService>[1] = {},
): Promise<TestService> {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'leads-test-'))
  let databaseUrl: string | undefined
  let dropDb: (() => Promise<void>) | undefined
  if (process.env.DATABASE_URL) {
    const { default: pg } = await import('pg')
    const name = `leads_test_${randomBytes(6).toString('hex')}`
    const admin = new pg.Client({ connectionString: process.env.DATABASE_URL })
    await admin.connect()
    await admin.query(`CREATE DATABASE ${name}`)
    await admin.end()
    const url = new URL(process.env.DATABASE_URL)
    url.pathname = `/${name}`
    databaseUrl = url.toString()
    dropDb = async () => {
      const c = new pg.Client({ connectionString: process.env.DATABASE_URL })
      await c.connect()
      await c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)
      await c.end()
    }
  } else {
    // a copy of the migrated, empty cluster made once for the run (global-setup.ts): the service seeds it
    const cluster = inject('pgliteCluster')
    if (cluster) await cp(cluster, path.join(dataDir, 'pg'), { recursive: true })
  }
  const config: Config = {
    ...loadConfig({
      DATA_DIR: dataDir,
      PORT: '0',
      LEADS_TEST_CLOCK: '1',
      SEED_COMPANIES: '3000',
      // The suites sign in and sign up far more often than a person: the per-address budgets of the
      // auth routes are tested on their own (security.test.ts) with the defaults or smaller ones.
      ...Object.fromEntries(
        ['LOGIN', 'REFRESH', 'SIGNUP', 'RESET', 'CONFIRM', 'FAILED_AUTH', 'PUBLIC'].map((k) => [`${k}_PER_MINUTE`, '100000']),
      ),
    }),
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
