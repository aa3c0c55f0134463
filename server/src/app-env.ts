import type { Config } from './config.ts'
import type { Db } from './db/db.ts'
import type { Clock } from './lib/clock.ts'

export interface Deps {
  db: Db
  clock: Clock
  config: Config
  /** Wakes the export worker (jobs/export-worker.ts) after an export is queued. */
  kickExports: () => void
}

export interface AppEnv {
  Variables: {
    deps: Deps
    /** Set by requireAuth. */
    user: { id: number }
    /** 'jwt:<user id>' or 'key:<key id>': what the rate limit counts by. */
    credential: string
  }
}
