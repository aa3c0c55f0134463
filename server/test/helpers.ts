import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { randomBytes } from 'node:crypto'
import { inject } from 'vitest'
import { loadConfig, type Config } from '../src/config.ts'
import { startService, type RunningService } from '../src/service.ts'
import { copyDir, databaseUrlOf, TEST_SEED_COMPANIES, testServiceEnv } from './global-setup.ts'

export interface TestService extends RunningService {
  /** fetch against the service: path like '/api/plans/'. */
  request(p: string, init?: RequestInit & { json?: unknown; token?: string }): Promise<Response>
}

/**
 * A test service's own data: a data directory and, with DATABASE_URL set (CI's second run), a
 * PostgreSQL database of its own. With a seed size seeded once for the run (the default, or none:
 * global-setup.ts) it holds a copy of that data; with another, the migrated, empty cluster (on
 * PostgreSQL an empty database), which the service's first start seeds.
 */
export interface TestStore {
  dataDir: string
  databaseUrl: string | undefined
  /** Starts a service on this store (again, after a close: its next start). */
  start(overrides?: Partial<Config>, options?: Parameters<typeof startService>[1]): Promise<RunningService>
  drop(): Promise<void>
}

export async function testStore(seedCompanies = TEST_SEED_COMPANIES): Promise<TestStore> {
  const dataDir = await mkdtemp(path.join(tmpdir(), 'leads-test-'))
  const seeded = inject('seededData')[seedCompanies]
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
    if (cluster) await copyDir(cluster, path.join(dataDir, 'pg'))
  }
  // the seeded cluster (PGlite) and the seed's export files
  if (seeded) await copyDir(seeded.dataDir, dataDir)
  let moved = !seeded
  return {
    dataDir,
    databaseUrl,
    async start(overrides = {}, options = {}) {
      const config: Config = { ...loadConfig(testServiceEnv(dataDir)), seedCompanies, databaseUrl, ...overrides }
      const service = await startService(config, options)
      // The rows of the seed's exports name the seeded directory's files: they must name this store's
      // copies, as cleanup removes an expired export's file. Done on the started service's connection
      // (opening the database for it beforehand cost a second PGlite start); until then only the
      // start's clean-up pass ran, and the seeded data holds no file it would remove (global-setup.ts).
      if (!moved) {
        await service.deps.db.query(
          `UPDATE searches SET file_path = $2 || substr(file_path, length($1) + 1) WHERE starts_with(file_path, $1)`,
          [seeded!.dataDir, dataDir],
        )
        moved = true
      }
      return service
    },
    async drop() {
      await dropDb?.()
      await rm(dataDir, { recursive: true, force: true })
    },
  }
}

/** A real service on a random port with a store of its own (testStore), test clock on, small seed. */
export async function startTestService(
  overrides: Partial<Config> = {},
  options: Parameters<typeof startService>[1] = {},
): Promise<TestService> {
  const store = await testStore(overrides.seedCompanies)
  const service = await store.start(overrides, options)
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
      await store.drop()
    },
  }
}
