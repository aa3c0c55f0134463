import { randomBytes } from 'node:crypto'
import { mkdirSync, readFileSync, writeFileSync, existsSync } from 'node:fs'
import path from 'node:path'

export interface Config {
  port: number
  host: string
  dataDir: string
  databaseUrl: string | undefined
  /** Connections to PostgreSQL per process (each instance holds its own pool). */
  databasePoolSize: number
  /** HMAC secret for JWTs and signed download URLs; kept in DATA_DIR so tokens survive restarts. */
  secret: string
  testClock: boolean
  rateLimitPerMinute: number
  /**
   * Per-address budgets a minute for the unauthenticated routes, each its own so that flooding one
   * (reset) cannot starve another (sign-in); `failedAuth` counts wrong keys and tokens on the API.
   */
  limits: { login: number; refresh: number; signup: number; reset: number; confirm: number; failedAuth: number; public: number }
  /** Active API keys one account may hold. */
  maxApiKeys: number
  /** Export workers per process (EXPORT_CONCURRENCY). */
  exportConcurrency: number
  /** How long a claimed export stays an instance's without a heartbeat (EXPORT_LEASE_MS). */
  exportLeaseMs: number
  /** How often an idle worker looks for queued exports and lapsed leases (EXPORT_POLL_MS). */
  exportPollMs: number
  /** Between clean-up passes: expired files, tokens and links (CLEANUP_INTERVAL_MS). */
  cleanupIntervalMs: number
  /** PAGE_SNAPSHOT_TOKEN: at least PAGE_SNAPSHOT_TOKEN_MIN characters (a short one is refused at start). */
  pageSnapshotToken: string | undefined
  /** Companies created by the seed on first start (default 100,000). */
  seedCompanies: number
  /**
   * Public origin of every link the service builds (mails, download URLs, history pages), never taken
   * from a request's Host header. PUBLIC_URL, else the address the service listens on (set at start).
   */
  publicUrl: string
  publicUrlConfigured: boolean
  /** Directory of the built dashboard served at /, when it exists. */
  distDir: string
  /**
   * SERVICE_PROFILE: `reference` (default) answers with this project's shapes and extensions;
   * `interface` answers exactly what the interface promises and nothing more (interface-profile.ts).
   */
  serviceProfile: ServiceProfile
  /** Webhooks (extension `webhooks`): see server/src/jobs/webhook-worker.ts. */
  webhooks: {
    /** Development only (WEBHOOK_ALLOW_HTTP_LOOPBACK=1): endpoints may be plain http on a loopback address. */
    allowHttpLoopback: boolean
    /** Whole delivery, connect to last byte read (WEBHOOK_TIMEOUT_MS). */
    timeoutMs: number
    /** First retry after this; later ones ×5, ×30, ×120, ×600 (WEBHOOK_RETRY_BASE_MS). */
    retryBaseMs: number
    /** Attempts per delivery before it is marked failed (WEBHOOK_MAX_ATTEMPTS). */
    maxAttempts: number
    /** How often an idle delivery worker looks for due deliveries (WEBHOOK_POLL_MS). */
    pollMs: number
    /** Endpoints one account may hold. */
    maxEndpoints: number
    /** Endpoints one account may add per hour (deleting one does not give the addition back). */
    creationsPerHour: number
    /** Test events one account may send per minute, whatever endpoint they go to (WEBHOOK_TESTS_PER_MINUTE). */
    testsPerMinute: number
    /** A test event's whole delivery, in its own lane (WEBHOOK_TEST_TIMEOUT_MS, at most timeoutMs). */
    testTimeoutMs: number
    /** Timeouts in a row after which an endpoint is unhealthy and tried only every unhealthyRetryMs. */
    unhealthyAfter: number
    /** How often an unhealthy endpoint is tried again (WEBHOOK_UNHEALTHY_RETRY_MS). */
    unhealthyRetryMs: number
  }
  /** The HTTP server's limits against slow or numerous clients (server/src/service.ts). */
  http: {
    /** Whole request head within this (HTTP_HEADERS_TIMEOUT_MS). */
    headersTimeoutMs: number
    /** Whole request, body included, within this (HTTP_REQUEST_TIMEOUT_MS). */
    requestTimeoutMs: number
    /** Open connections at most; past it new ones are closed at once (MAX_CONNECTIONS). */
    maxConnections: number
  }
  /** Uploads (a list, issue 27): their own time limits, past the others' (lib/body-deadline.ts). */
  uploads: {
    /** An upload may take this long in all (HTTP_UPLOAD_TIMEOUT_MS): Node's own limit for any request. */
    timeoutMs: number
    /** An upload that moves fewer bytes than this a second over windowMs is cut off (HTTP_UPLOAD_MIN_BYTES_PER_SECOND). */
    minBytesPerSecond: number
    windowMs: number
  }
}

/** A page-snapshot token shorter than this could be guessed: the service refuses to start with one. */
export const PAGE_SNAPSHOT_TOKEN_MIN = 16

function pageSnapshotTokenOf(value: string | undefined): string | undefined {
  if (!value) return undefined
  if (value.length < PAGE_SNAPSHOT_TOKEN_MIN) {
    throw new Error(`PAGE_SNAPSHOT_TOKEN must be at least ${PAGE_SNAPSHOT_TOKEN_MIN} characters long (got ${value.length}).`)
  }
  return value
}

export const SERVICE_PROFILES = ['reference', 'interface'] as const
export type ServiceProfile = (typeof SERVICE_PROFILES)[number]

function serviceProfileOf(value: string | undefined): ServiceProfile {
  if (value === undefined || value === '') return 'reference'
  // a misspelt profile must not quietly serve the other one
  if (!(SERVICE_PROFILES as readonly string[]).includes(value)) {
    throw new Error(`SERVICE_PROFILE must be one of ${SERVICE_PROFILES.join(', ')} (got "${value}").`)
  }
  return value as ServiceProfile
}

export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const port = Number(env.PORT ?? 8000)
  const host = env.HOST ?? '127.0.0.1'
  const dataDir = path.resolve(env.DATA_DIR ?? '.data')
  return {
    port,
    host,
    dataDir,
    databaseUrl: env.DATABASE_URL || undefined,
    databasePoolSize: Math.max(1, Math.min(200, Number(env.DATABASE_POOL_SIZE ?? 20) || 20)),
    secret: env.SECRET_KEY ?? loadOrCreateSecret(dataDir),
    testClock: env.LEADS_TEST_CLOCK === '1',
    rateLimitPerMinute: Number(env.RATE_LIMIT_PER_MINUTE ?? 600),
    limits: {
      login: Number(env.LOGIN_PER_MINUTE ?? 30),
      refresh: Number(env.REFRESH_PER_MINUTE ?? 120),
      signup: Number(env.SIGNUP_PER_MINUTE ?? 10),
      reset: Number(env.RESET_PER_MINUTE ?? 10),
      confirm: Number(env.CONFIRM_PER_MINUTE ?? 30),
      failedAuth: Number(env.FAILED_AUTH_PER_MINUTE ?? 60),
      public: Number(env.PUBLIC_PER_MINUTE ?? 120),
    },
    maxApiKeys: Number(env.MAX_API_KEYS ?? 25),
    exportConcurrency: Math.max(1, Number(env.EXPORT_CONCURRENCY ?? 2)),
    exportLeaseMs: Math.max(1000, Number(env.EXPORT_LEASE_MS ?? 30_000)),
    exportPollMs: Math.max(100, Number(env.EXPORT_POLL_MS ?? 2_000)),
    cleanupIntervalMs: Math.max(1000, Number(env.CLEANUP_INTERVAL_MS ?? 3_600_000)),
    pageSnapshotToken: pageSnapshotTokenOf(env.PAGE_SNAPSHOT_TOKEN),
    seedCompanies: Number(env.SEED_COMPANIES ?? 100_000),
    publicUrl: (env.PUBLIC_URL || `http://${host}:${port}`).replace(/\/+$/, ''),
    publicUrlConfigured: Boolean(env.PUBLIC_URL),
    distDir: path.resolve(env.DIST_DIR ?? 'dist'),
    serviceProfile: serviceProfileOf(env.SERVICE_PROFILE),
    webhooks: webhooksConfig(env),
    http: {
      headersTimeoutMs: Math.max(100, Number(env.HTTP_HEADERS_TIMEOUT_MS) || 10_000),
      requestTimeoutMs: Math.max(100, Number(env.HTTP_REQUEST_TIMEOUT_MS) || 30_000),
      maxConnections: Math.max(1, Number(env.MAX_CONNECTIONS) || 1_000),
    },
    // 50 MB at 1 Mbit/s is 7 minutes; under 1 KB/s over 20 s is a stalled or hostile client
    uploads: {
      timeoutMs: Math.max(1000, Number(env.HTTP_UPLOAD_TIMEOUT_MS) || 15 * 60_000),
      minBytesPerSecond: Math.max(0, Number(env.HTTP_UPLOAD_MIN_BYTES_PER_SECOND) || 1024),
      windowMs: Math.max(100, Number(env.HTTP_UPLOAD_WINDOW_MS) || 20_000),
    },
  }
}

function webhooksConfig(env: NodeJS.ProcessEnv): Config['webhooks'] {
  const timeoutMs = Math.min(30_000, Math.max(100, Number(env.WEBHOOK_TIMEOUT_MS) || 5_000)) // well inside the delivery lease (60 s)
  return {
    allowHttpLoopback: env.WEBHOOK_ALLOW_HTTP_LOOPBACK === '1',
    timeoutMs,
    retryBaseMs: Math.max(10, Number(env.WEBHOOK_RETRY_BASE_MS) || 10_000),
    maxAttempts: Math.max(1, Math.min(10, Number(env.WEBHOOK_MAX_ATTEMPTS) || 6)),
    pollMs: Math.max(50, Number(env.WEBHOOK_POLL_MS) || 1_000),
    maxEndpoints: Math.max(1, Number(env.MAX_WEBHOOKS) || 10),
    creationsPerHour: Math.max(1, Number(env.WEBHOOK_CREATIONS_PER_HOUR) || 20),
    testsPerMinute: Math.max(1, Number(env.WEBHOOK_TESTS_PER_MINUTE) || 5),
    testTimeoutMs: Math.min(timeoutMs, Math.max(100, Number(env.WEBHOOK_TEST_TIMEOUT_MS) || 2_000)),
    unhealthyAfter: Math.max(1, Number(env.WEBHOOK_UNHEALTHY_AFTER) || 3),
    unhealthyRetryMs: Math.max(1_000, Number(env.WEBHOOK_UNHEALTHY_RETRY_MS) || 10 * 60_000),
  }
}

function loadOrCreateSecret(dataDir: string): string {
  const file = path.join(dataDir, 'secret-key')
  if (existsSync(file)) return readFileSync(file, 'utf8').trim()
  mkdirSync(dataDir, { recursive: true })
  const secret = randomBytes(32).toString('hex')
  writeFileSync(file, secret, { mode: 0o600 })
  return secret
}
