import http from 'node:http'
import https from 'node:https'
import type { LookupFunction } from 'node:net'
import type { Deps } from '../app-env.ts'
import type { Db } from '../db/db.ts'
import { open } from '../lib/secret-box.ts'
import { BlockedTarget, resolveTarget, systemResolver, type Resolver } from '../modules/webhooks/target.ts'
import { signature, SIGNATURE_HEADER, TEST_EVENT, type DeliveryError } from '../lib/webhooks.ts'
import { claimable, claimJob, leased, settleSql, startRunner, type Claimed, type ClaimLease, type JobTable, type Runner } from './runner.ts'

type WorkerDeps = Omit<Deps, 'kickExports' | 'kickWebhooks' | 'kickLists'> & { resolveHost?: Resolver }

/** Bytes of a receiver's answer read at most (then the connection is dropped): the body is not kept. */
export const MAX_RESPONSE_BYTES = 16 * 1024
/** Retry delays as multiples of WEBHOOK_RETRY_BASE_MS (10 s by default: 10 s, 50 s, 5 min, 20 min, 100 min). */
const BACKOFF = [1, 5, 30, 120, 600]
/** Well over a delivery's whole time (WEBHOOK_TIMEOUT_MS, at most 30 s), and renewed meanwhile. */
const LEASE_MS = 60_000
/** The outbox: one row per event and endpoint, due at `next_attempt_at` (a retry waits there). */
const DELIVERIES = {
  name: 'webhook_deliveries',
  status: { queued: 'pending', running: 'delivering', done: 'succeeded', failed: 'failed' },
  dueAt: 'next_attempt_at',
} satisfies JobTable
/** Namespace of the advisory locks that let one claim at a time look at an account's deliveries. */
const ACCOUNT_LOCK = 22_001

/**
 * Two lanes, each with its own workers: export events, and test events (sent on request, with the
 * shorter WEBHOOK_TEST_TIMEOUT_MS), so that test events sent in bulk never hold up an export's event.
 */
export type Lane = 'events' | 'tests'
export const LANES: readonly Lane[] = ['events', 'tests']

/** A claimed delivery, with its endpoint's account, address and sealed secret. */
interface DeliveryRow {
  id: string
  endpoint_id: string
  user_id: number
  event_id: string
  event_type: string
  payload: unknown
  attempts: number
  url: string
  secret_sealed: string
}

export interface AttemptResult {
  statusCode: number | null
  /** A category, never the other side's words (lib/webhooks.ts DELIVERY_ERRORS). */
  error: DeliveryError | null
  durationMs: number
}

/** Errors of a TLS handshake or certificate check (Node's and OpenSSL's codes). */
const TLS_ERROR = /^(ERR_TLS_|ERR_SSL_|CERT_|UNABLE_TO_|DEPTH_ZERO_|SELF_SIGNED_|HOSTNAME_MISMATCH|EPROTO$)/

function connectionError(e: unknown): DeliveryError {
  const code = typeof e === 'object' && e !== null ? String((e as { code?: unknown }).code ?? '') : ''
  return TLS_ERROR.test(code) ? 'tls_failed' : 'connection_failed'
}

/** A promise that rejects when the signal aborts (and never otherwise). */
const abortion = (signal: AbortSignal) =>
  new Promise<never>((_resolve, reject) => {
    if (signal.aborted) reject(signal.reason)
    else signal.addEventListener('abort', () => reject(signal.reason), { once: true })
  })

/**
 * One POST to the checked address: no redirects, bounded in bytes read and in time — the whole of it,
 * the name lookup included (a resolver that never answers cannot stretch a delivery past its deadline).
 */
export async function deliverOnce(
  url: URL,
  body: string,
  headers: Record<string, string>,
  opts: { timeoutMs: number; allowLoopback: boolean; resolve: Resolver },
): Promise<AttemptResult> {
  const started = performance.now()
  const took = () => Math.round(performance.now() - started)
  const deadline = new AbortController()
  const timer = setTimeout(() => deadline.abort(new Error('deadline')), opts.timeoutMs)
  try {
    let target: { address: string; family: 4 | 6 }
    try {
      target = await Promise.race([resolveTarget(url, opts.allowLoopback, opts.resolve, deadline.signal), abortion(deadline.signal)])
    } catch (e) {
      if (deadline.signal.aborted) return { statusCode: null, error: 'timeout', durationMs: took() }
      return { statusCode: null, error: e instanceof BlockedTarget ? 'address_blocked' : 'dns_failed', durationMs: took() }
    }
    // the connection goes to the address just checked, whatever the name resolves to a moment later
    const pinned: LookupFunction = (_host, options, cb) => {
      if (typeof options === 'object' && options?.all)
        (cb as unknown as (e: null, a: { address: string; family: number }[]) => void)(null, [target])
      else cb(null, target.address, target.family)
    }
    return await new Promise<AttemptResult>((resolve) => {
      let settled = false
      const finish = (r: Omit<AttemptResult, 'durationMs'>) => {
        if (settled) return
        settled = true
        req.destroy()
        resolve({ ...r, durationMs: took() })
      }
      const lib = url.protocol === 'https:' ? https : http
      const req = lib.request(url, {
        method: 'POST',
        headers: { ...headers, 'Content-Length': String(Buffer.byteLength(body)) },
        lookup: pinned,
        agent: false,
      })
      const timedOut = () => finish({ statusCode: null, error: 'timeout' })
      if (deadline.signal.aborted) timedOut()
      deadline.signal.addEventListener('abort', timedOut, { once: true })
      req.on('error', (e) => finish({ statusCode: null, error: connectionError(e) }))
      req.on('response', (res) => {
        const code = res.statusCode ?? 0
        const verdict: DeliveryError | null = code >= 300 && code < 400 ? 'redirect' : code >= 200 && code < 300 ? null : 'http_error'
        let read = 0
        res.on('data', (chunk: Buffer) => {
          read += chunk.length
          if (read > MAX_RESPONSE_BYTES) finish({ statusCode: code, error: verdict })
        })
        res.on('end', () => finish({ statusCode: code, error: verdict }))
        res.on('error', () => finish({ statusCode: code, error: verdict ?? 'connection_failed' }))
      })
      req.end(body)
    })
  } finally {
    clearTimeout(timer)
  }
}

/** Deliveries `a` of a lane whose endpoint `e` takes deliveries now (not paused as unhealthy). */
const inLane = (a: string, lane: Lane) =>
  `(${a}.event_type = '${TEST_EVENT}') = ${lane === 'tests'} AND (e.paused_until IS NULL OR e.paused_until <= clock_timestamp())`
/** A delivery of the same account being sent right now. */
const IN_FLIGHT = `SELECT 1 FROM webhook_deliveries f JOIN webhook_endpoints fe ON fe.id = f.endpoint_id
   WHERE fe.user_id = e.user_id AND ${leased(DELIVERIES, 'f')}`

/**
 * The next delivery of a lane, fairly: at most ONE delivery per account is in flight (across lanes and
 * instances), and among the accounts with something due, the one that has waited longest goes first —
 * waiting since its last claim or since its oldest due delivery, whichever is later. So an endpoint
 * that never answers holds at most one worker, and every other account's events keep flowing.
 * The account's advisory lock makes two claims of one account (two workers, two instances) take turns.
 */
async function claimNext(db: Db, lane: Lane, lease: ClaimLease): Promise<(DeliveryRow & Claimed) | undefined> {
  return db.tx(async (q) => {
    const { rows: accounts } = await q.query<{ user_id: number }>(
      `SELECT user_id FROM (
         SELECT DISTINCT ON (e.user_id) e.user_id, d.id, d.next_attempt_at,
                GREATEST(coalesce(t.last_claimed_at, '-infinity'::timestamptz), d.next_attempt_at) AS waiting_since
           FROM webhook_deliveries d
           JOIN webhook_endpoints e ON e.id = d.endpoint_id
           LEFT JOIN webhook_turns t ON t.user_id = e.user_id
          WHERE ${claimable(DELIVERIES, 'd')} AND ${inLane('d', lane)} AND NOT EXISTS (${IN_FLIGHT})
          ORDER BY e.user_id, d.next_attempt_at, d.id) due
        ORDER BY waiting_since, next_attempt_at, id
        LIMIT 8`,
    )
    for (const { user_id } of accounts) {
      const locked = (await q.query<{ ok: boolean }>('SELECT pg_try_advisory_xact_lock($1, $2) AS ok', [ACCOUNT_LOCK, user_id])).rows[0]
      if (!locked?.ok) continue // another claim is looking at this account right now
      const claimed = await claimJob<DeliveryRow>(q, DELIVERIES, lease, {
        from: 'webhook_deliveries j JOIN webhook_endpoints e ON e.id = j.endpoint_id',
        where: `e.user_id = $3 AND ${inLane('j', lane)} AND NOT EXISTS (${IN_FLIGHT})`,
        params: [user_id],
        orderBy: 'j.next_attempt_at, j.id',
        with: ['e.user_id', 'e.url', 'e.secret_sealed'],
      })
      if (!claimed) continue
      await q.query(
        `INSERT INTO webhook_turns (user_id, last_claimed_at) VALUES ($1, clock_timestamp())
         ON CONFLICT (user_id) DO UPDATE SET last_claimed_at = excluded.last_claimed_at`,
        [user_id],
      )
      return claimed
    }
    return undefined
  })
}

/** Signs and sends one delivery, then records the attempt: succeeded, retried later with back-off, or failed. */
async function processDelivery(deps: WorkerDeps, d: DeliveryRow, owner: string) {
  const { config } = deps
  const body = JSON.stringify(d.payload)
  // wall-clock time, not the service's (movable) test clock: receivers refuse a signature whose time is
  // far from their own, and a delivery is sent now, whatever time the service's data says it is
  const timestamp = Math.floor(Date.now() / 1000)
  let secret: string
  try {
    secret = open(config.secret, d.secret_sealed)
  } catch {
    // a SECRET_KEY that changed since the endpoint was added: nothing can be signed until its secret is rotated
    return recordAttempt(deps, d, owner, { statusCode: null, error: 'secret_unreadable', durationMs: 0 })
  }
  const result = await deliverOnce(
    new URL(d.url),
    body,
    {
      'Content-Type': 'application/json',
      'User-Agent': 'Leads-Webhooks/1',
      [SIGNATURE_HEADER]: signature(secret, timestamp, body),
      'Leads-Event-Id': d.event_id,
      'Leads-Event-Type': d.event_type,
      'Leads-Delivery-Attempt': String(d.attempts),
    },
    {
      timeoutMs: d.event_type === TEST_EVENT ? config.webhooks.testTimeoutMs : config.webhooks.timeoutMs,
      allowLoopback: config.webhooks.allowHttpLoopback,
      resolve: deps.resolveHost ?? systemResolver,
    },
  )
  await recordAttempt(deps, d, owner, result)
}

/**
 * Writes one attempt into the delivery's log and what is next, decided in SQL: done, a retry after the
 * back-off, or given up after WEBHOOK_MAX_ATTEMPTS; and the endpoint's health: a timeout counts towards
 * "unhealthy" (after WEBHOOK_UNHEALTHY_AFTER in a row its deliveries wait, and one is tried every
 * WEBHOOK_UNHEALTHY_RETRY_MS), any HTTP answer makes it healthy again, and any other failure of an
 * unhealthy endpoint keeps it waiting.
 */
async function recordAttempt(deps: WorkerDeps, d: DeliveryRow, owner: string, result: AttemptResult) {
  const { config, db } = deps
  const ok = result.error === null && result.statusCode !== null && result.statusCode >= 200 && result.statusCode < 300
  const entry = { attempt: d.attempts, status_code: result.statusCode, error_code: result.error, duration_ms: result.durationMs }
  await db.tx(async (q) => {
    // the endpoint's row first, as removing an endpoint locks it before the deliveries it cascades to:
    // the same order in both, or the two deadlock (seen on PostgreSQL as a DELETE failing mid-delivery)
    await q.query('SELECT 1 FROM webhook_endpoints WHERE id = $1 FOR UPDATE', [d.endpoint_id])
    const { rows } = await q.query(
      `UPDATE webhook_deliveries
          SET ${settleSql(DELIVERIES, { ok: '$2::boolean', maxAttempts: '$5', retryBaseMs: '$6', backoff: BACKOFF })},
              last_status_code = $3, last_error = $4, last_attempt_at = clock_timestamp(),
              attempt_log = attempt_log || jsonb_build_array(jsonb_build_object('at', clock_timestamp()) || $7::jsonb)
        WHERE id = $1 AND lease_owner = $8 RETURNING id`,
      [d.id, ok, result.statusCode, result.error, config.webhooks.maxAttempts, config.webhooks.retryBaseMs, JSON.stringify(entry), owner],
    )
    if (!rows.length) return // the lease lapsed and another worker took the delivery over
    const { unhealthyAfter, unhealthyRetryMs } = config.webhooks
    if (result.statusCode !== null) {
      await q.query('UPDATE webhook_endpoints SET consecutive_timeouts = 0, unhealthy_since = NULL, paused_until = NULL WHERE id = $1', [
        d.endpoint_id,
      ])
    } else if (result.error === 'timeout') {
      await q.query(
        `UPDATE webhook_endpoints SET consecutive_timeouts = consecutive_timeouts + 1,
                unhealthy_since = CASE WHEN consecutive_timeouts + 1 >= $2 THEN coalesce(unhealthy_since, clock_timestamp()) ELSE unhealthy_since END,
                paused_until = CASE WHEN consecutive_timeouts + 1 >= $2 THEN clock_timestamp() + $3 * interval '1 millisecond' ELSE paused_until END
          WHERE id = $1`,
        [d.endpoint_id, unhealthyAfter, unhealthyRetryMs],
      )
    } else {
      await q.query(
        `UPDATE webhook_endpoints SET paused_until = clock_timestamp() + $2 * interval '1 millisecond' WHERE id = $1 AND unhealthy_since IS NOT NULL`,
        [d.endpoint_id, unhealthyRetryMs],
      )
    }
  })
}

/**
 * Webhook deliveries as jobs of the runner (jobs/runner.ts), shared by every instance: a worker claims a
 * due one (fairly, see claimNext), sends it and records the attempt. `concurrency` workers per lane
 * (export events, test events); idle ones look every WEBHOOK_POLL_MS (retries come due, exports of
 * other instances complete, another account's delivery ends).
 */
export function startWebhookWorker(deps: WorkerDeps, concurrency = 2): Runner {
  return startRunner(deps.db, {
    name: 'webhook',
    table: DELIVERIES,
    lanes: LANES,
    concurrency,
    leaseMs: LEASE_MS,
    pollMs: deps.config.webhooks.pollMs,
    // this account may now send its next delivery, in either lane
    kickAfterEach: true,
    claim: (lane, lease) => claimNext(deps.db, lane, lease),
    run: (job, lease) => processDelivery(deps, job, lease.owner),
    // recorded as a failed attempt, so a delivery that always throws ends after maxAttempts instead of every lease
    failed: (job, lease) => recordAttempt(deps, job, lease.owner, { statusCode: null, error: 'internal', durationMs: 0 }),
  })
}
