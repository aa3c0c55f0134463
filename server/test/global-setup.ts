import { execFile } from 'node:child_process'
import { mkdir, mkdtemp, rm } from 'node:fs/promises'
import { randomBytes } from 'node:crypto'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import type { TestProject } from 'vitest/node'
import { loadConfig } from '../src/config.ts'
import { openDb } from '../src/db/db.ts'
import { runCleanup } from '../src/jobs/cleanup.ts'
import { Clock } from '../src/lib/clock.ts'
import { seedIfEmpty } from '../src/seed/index.ts'

declare module 'vitest' {
  export interface ProvidedContext {
    /** A PGlite cluster with the service's migrations applied and no data, which test services copy. */
    pgliteCluster: string | null
    /**
     * The data a test service of a seed size in SEEDED_SIZES starts from, by size: a seeded data
     * directory (its PGlite cluster in `pg/`, or on PostgreSQL the `database` to use as a template)
     * and its export files, whose `file_path`s name this directory.
     */
    seededData: Record<number, SeededData>
  }
}

export interface SeededData {
  dataDir: string
  database: string | null
}

/** The seed size of a test service (helpers.ts). */
export const TEST_SEED_COMPANIES = 3000

/**
 * The seed sizes seeded here once for the run: the default, and none, which the suites that need no
 * search ask for (accounts, webhooks, static files; a seed without companies still took 3 s of CPU).
 */
export const SEEDED_SIZES = [TEST_SEED_COMPANIES, 0]

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

/**
 * Copies the directory `from` into `to` (made if missing; an existing one keeps its other files).
 * The system's cp: a PGlite cluster is some 1,200 files, which Node's fs.cp copied with 0.6–1 s of
 * CPU, cp with 0.15–0.35 s.
 */
export async function copyDir(from: string, to: string): Promise<void> {
  await mkdir(to, { recursive: true })
  await promisify(execFile)('cp', ['-R', `${from}/.`, to])
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
 * the server suite). All run once here, for each of SEEDED_SIZES at once. A test service (helpers.ts)
 * of one of these sizes starts from a copy of its seeded data; one of another size from a copy of the
 * migrated, empty cluster (on PostgreSQL a new database), which it seeds itself. The copy's dates are
 * those of this seed, minutes before the test, as a service restarted later sees its first start's
 * seed. The migrations and the seed themselves stay tested: they run here, on PGlite or PostgreSQL,
 * and the first child process of lifecycle.test.ts starts from nothing.
 *
 * On PostgreSQL the templates' names are this run's own: runs side by side do not share them, and a
 * killed run's leftover is never used again.
 */
export default async function setup(project: TestProject) {
  const work = await mkdtemp(path.join(tmpdir(), 'leads-cluster-'))
  const templates: string[] = []
  let admin: import('pg').Client | undefined
  let emptyCluster: string | null = null
  if (process.env.DATABASE_URL) {
    const { default: pg } = await import('pg')
    admin = new pg.Client({ connectionString: process.env.DATABASE_URL })
    await admin.connect()
    project.provide('pgliteCluster', null)
  } else {
    const emptyDir = path.join(work, 'empty')
    const empty = await openDb({ dataDir: emptyDir })
    await empty.close()
    emptyCluster = path.join(emptyDir, 'pg')
    project.provide('pgliteCluster', emptyCluster)
  }
  const seed = async (companies: number): Promise<SeededData> => {
    const dataDir = path.join(work, `seeded-${companies}`)
    let database: string | null = null
    if (admin) {
      database = `leads_seed_${randomBytes(6).toString('hex')}`
      templates.push(database)
      await admin.query(`CREATE DATABASE ${database}`)
    } else {
      await copyDir(emptyCluster!, path.join(dataDir, 'pg'))
    }
    const config = {
      ...loadConfig(testServiceEnv(dataDir)),
      seedCompanies: companies,
      databaseUrl: database ? databaseUrlOf(database) : undefined,
    }
    const db = await openDb({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, poolSize: 2 })
    const clock = new Clock()
    await seedIfEmpty(db, config, clock)
    // The pass every start runs first, run here once: it removes the export file whose link the seed
    // made expired, so that no copy's first pass removes a file of this directory (helpers.ts points
    // the copy's rows at its own files only once it has started).
    await runCleanup({ db, clock, config })
    await db.close()
    // the seed signs nothing: each test service makes its own secret, as on a first start
    await rm(path.join(dataDir, 'secret-key'))
    return { dataDir, database }
  }
  const seeded = await Promise.all(SEEDED_SIZES.map(seed))
  project.provide('seededData', Object.fromEntries(SEEDED_SIZES.map((size, i) => [size, seeded[i]!])))
  return async () => {
    if (admin) {
      for (const template of templates) await admin.query(`DROP DATABASE IF EXISTS ${template} WITH (FORCE)`)
      await admin.end()
    }
    await rm(work, { recursive: true, force: true })
  }
}
