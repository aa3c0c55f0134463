import type { Config } from './config.ts'
import type { Db } from './db/db.ts'
import type { Clock } from './lib/clock.ts'

export interface Deps {
  db: Db
  clock: Clock
  config: Config
  /** Wakes the export worker (jobs/export-worker.ts) after an export is queued. */
  kickExports: () => void
  /** Wakes the webhook delivery worker (jobs/webhook-worker.ts) after a delivery is queued. */
  kickWebhooks: () => void
  /** Wakes the list matching worker (jobs/list-worker.ts) after a list is queued. */
  kickLists: () => void
  /** Host name → addresses for webhook deliveries (tests pass their own; the system resolver otherwise). */
  resolveHost?: (host: string, signal?: AbortSignal) => Promise<string[]>
  /** Runs work after the request's answer (lib/after-answer.ts); replaceable by tests to hold it. */
  afterAnswer?: (task: () => Promise<void>) => void
}

/** What an API key may do (issue 12, extension `scoped_api_keys`). */
export type KeyScope = 'read' | 'export'

export interface ApiKeyCredential {
  id: string
  scope: KeyScope
  /** Credits this key may spend per calendar month (UTC); null: only the balance limits it. */
  monthlyCap: number | null
}

export interface AppEnv {
  Variables: {
    deps: Deps
    /** Set by requireAuth. */
    user: { id: number }
    /** 'jwt:<user id>' or 'key:<key id>': what the rate limit counts by. */
    credential: string
    /** The API key of the request (scope, cap), or null for a password session. Set by requireAuth. */
    apiKey: ApiKeyCredential | null
    /** The session (refresh-token family) of a JWT, or null (an API key, an access token without one). Set by requireAuth. */
    session: string | null
  }
}
