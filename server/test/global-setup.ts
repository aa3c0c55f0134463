import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import type { TestProject } from 'vitest/node'
import { openDb } from '../src/db/db.ts'

declare module 'vitest' {
  export interface ProvidedContext {
    /** A PGlite cluster with the service's migrations applied and no data, which test services copy. */
    pgliteCluster: string | null
  }
}

/**
 * A test service's first start did the same work every time before its seed: PGlite's initdb (2.5–3 s)
 * and the migrations (0.7–1 s with opening the database, at load 10). Both run once here; each test service (helpers.ts) starts
 * from a copy of the migrated, empty cluster and seeds it as any first start does (the seed's dates
 * and files belong to its own start). The migrations themselves stay tested: here, on PostgreSQL
 * (each database migrates itself) and by lifecycle.test.ts's child processes.
 */
export default async function setup(project: TestProject) {
  if (process.env.DATABASE_URL) {
    project.provide('pgliteCluster', null)
    return
  }
  const dataDir = await mkdtemp(path.join(tmpdir(), 'leads-cluster-'))
  const db = await openDb({ dataDir })
  await db.close()
  project.provide('pgliteCluster', path.join(dataDir, 'pg'))
  return () => rm(dataDir, { recursive: true, force: true })
}
