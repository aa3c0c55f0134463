import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import type { TestProject } from 'vitest/node'

declare module 'vitest' {
  export interface ProvidedContext {
    /** An empty PGlite cluster (initdb done, nothing of the service's) that test services copy. */
    pgliteCluster: string | null
  }
}

/**
 * PGlite's initdb costs 2.5–3 s of the 4–6 s a test service takes to start, the same work every
 * time: it runs once here, and each test service (helpers.ts) starts from a copy of the empty
 * cluster, then migrates and seeds it as any first start does. On PostgreSQL there is nothing to save.
 */
export default async function setup(project: TestProject) {
  if (process.env.DATABASE_URL) {
    project.provide('pgliteCluster', null)
    return
  }
  const { PGlite } = await import('@electric-sql/pglite')
  const dir = await mkdtemp(path.join(tmpdir(), 'leads-cluster-'))
  const pg = await PGlite.create(dir)
  await pg.close()
  project.provide('pgliteCluster', dir)
  return () => rm(dir, { recursive: true, force: true })
}
