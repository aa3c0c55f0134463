import { cp, mkdtemp, rm } from 'node:fs/promises'
import { randomBytes } from 'node:crypto'
import { tmpdir } from 'node:os'
import path from 'node:path'
import type { TestProject } from 'vitest/node'
import { loadConfig } from '../src/config.ts'
import { openDb } from '../src/db/db.ts'
import { Clock } from '../src/lib/clock.ts'
import { seedIfEmpty } from '../src/seed/index.ts'

declare module 'vitest' {
  export interface ProvidedContext {
    /** A PGlite cluster with the service's migrations applied and no data, which test services copy. */
    pgliteCluster: string | null
    /**
     * The data a test service with the default seed starts from: a data directory seeded with
     * TEST_SEED_COMPANIES (its PGlite cluster in `pg/`, or on PostgreSQL the `database` to use as a
     * template) and its export files, whose `file_path`s name this directory.
     */
    seededData: { dataDir: string; database: string | null }
  }
}

/** The seed size of a test service (helpers.ts): the one seeded here once for the run. */
export const TEST_SEED_COMPANIES = 3000

/** The environment of a test service: test clock on, small seed, auth budgets out of the way. */
export function testServiceEnv(dataDir: string): NodeJS.ProcessEnv {
  return {
    DATA_DIR: dataDir,
    PORT: '0',
    LEADS_TEST_CLOCK: '1',
    SEED_COMPANIES: String(TEST_SEED_COMPANIES),
    // The suites sign in and sign up far more often than a person: the per-address budgets of the
    // auth routes are tested on their own (security.test.ts) with the defaults or smaller ones.
    ...Object.fromEntries(
      ['LOGIN', 'REFRESH', 'SIGNUP', 'RESET', 'CONFIRM', 'FAILED_AUTH', 'PUBLIC'].map((k) => [`${k}_PER_MINUTE`, '100000']),
    ),
  }
}

/** `DATABASE_URL` with another database name. */
export function databaseUrlOf(name: string): string {
  const url = new URL(process.env.DATABASE_URL!)
  url.pathname = `/${name}`
  return url.toString()
}

/**
 * A test service's first start did the same work every time: PGlite's initdb (2.5–3 s), the
 * migrations (0.7–1 s) and the seed of 3,000 companies (2–3 s on PGlite, 1 s on PostgreSQL: most of
 * the server suite). All run once here. A test service (helpers.ts) with the default seed starts
 * from a copy of the seeded data; one with another seed size from a copy of the migrated, empty
 * cluster (on PostgreSQL a new database), which it seeds itself. The copy's dates are those of this
 * seed, minutes before the test, as a service restarted later sees its first start's seed. The
 * migrations and the seed themselves stay tested: on PostgreSQL each service's database of another
 * seed size migrates itself, and one child process of lifecycle.test.ts starts from nothing.
 *
 * On PostgreSQL the template's name is this run's own: runs side by side do not share it, and a
 * killed run's leftover is never used again.
 */
export default async function setup(project: TestProject) {
  const work = await mkdtemp(path.join(tmpdir(), 'leads-cluster-'))
  const seededDir = path.join(work, 'seeded')
  let template: string | null = null
  let admin: import('pg').Client | undefined
  if (process.env.DATABASE_URL) {
    const { default: pg } = await import('pg')
    template = `leads_seed_${randomBytes(6).toString('hex')}`
    admin = new pg.Client({ connectionString: process.env.DATABASE_URL })
    await admin.connect()
    await admin.query(`CREATE DATABASE ${template}`)
    project.provide('pgliteCluster', null)
  } else {
    const emptyDir = path.join(work, 'empty')
    const empty = await openDb({ dataDir: emptyDir })
    await empty.close()
    await cp(path.join(emptyDir, 'pg'), path.join(seededDir, 'pg'), { recursive: true })
    project.provide('pgliteCluster', path.join(emptyDir, 'pg'))
  }
  const config = { ...loadConfig(testServiceEnv(seededDir)), databaseUrl: template ? databaseUrlOf(template) : undefined }
  const db = await openDb({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, poolSize: 2 })
  await seedIfEmpty(db, config, new Clock())
  await db.close()
  // the seed signs nothing: each test service makes its own secret, as on a first start
  await rm(path.join(seededDir, 'secret-key'))
  project.provide('seededData', { dataDir: seededDir, database: template })
  return async () => {
    if (admin && template) {
      await admin.query(`DROP DATABASE IF EXISTS ${template} WITH (FORCE)`)
      await admin.end()
    }
    await rm(work, { recursive: true, force: true })
  }
}
