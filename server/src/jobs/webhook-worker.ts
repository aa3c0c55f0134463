import { randomBytes } from 'node:crypto'
import http from 'node:http'
import https from 'node:https'
import type { LookupFunction } from 'node:net'
import type { Deps } from '../app-env.ts'
import type { Queryable } from '../db/db.ts'
import { describeError } from '../lib/errors.ts'
import { open } from '../lib/secret-box.ts'
import { BlockedTarget, resolveTarget, systemResolver, type Resolver } from '../lib/webhook-target.ts'
import { signature, SIGNATURE_HEADER } from '../lib/webhooks.ts'

type WorkerDeps = Omit<Deps, 'kickExports' | 'kickWebhooks'> & { resolveHost?: Resolver }

/** Bytes of a receiver's answer read at most (then the connection is dropped): the body is not kept. */
export const MAX_RESPONSE_BYTES = 16 * 1024
/** Retry delays as multiples of WEBHOOK_RETRY_BASE_MS (10 s by default: 10 s, 50 s, 5 min, 20 min, 100 min). */
const BACKOFF = [1, 5, 30, 120, 600]
const LEASE_MS = 60_000

interface DeliveryRow {
  id: string
  endpoint_id: string
  event_id: string
  event_type: string
  payload: unknown
  attempts: number
  url: string
  secret_sealed: string
}

export interface AttemptResult {
  statusCode: number | null
  error: string | null
  durationMs: number
}

/** One POST to the checked address: no redirects, bounded in time and in bytes read. */
export async function deliverOnce(
  url: URL,
  body: string,
  headers: Record<string, string>,
  opts: { timeoutMs: number; allowLoopback: boolean; resolve: Resolver },
): Promise<AttemptResult> {
  const started = performance.now()
  const took = () => Math.round(performance.now() - started)
  let target: { address: string; family: 4 | 6 }
  try {
    target = await resolveTarget(url, opts.allowLoopback, opts.resolve)
  } catch (e) {
    return { statusCode: null, error: e instanceof BlockedTarget ? e.message : `could not resolve ${url.hostname}`, durationMs: took() }
  }
  // the connection goes to the address just checked, whatever the name resolves to a moment later
  const pinned: LookupFunction = (_host, options, cb) => {
    if (typeof options === 'object' && options?.all) (cb as unknown as (e: null, a: { address: string; family: number }[]) => void)(null, [target])
    else cb(null, target.address, target.family)
  }
  return new Promise<AttemptResult>((resolve) => {
    let settled = false
    const finish = (r: Omit<AttemptResult, 'durationMs'>) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
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
    const timer = setTimeout(() => finish({ statusCode: null, error: `no answer within ${opts.timeoutMs} ms` }), opts.timeoutMs)
    req.on('error', (e) => finish({ statusCode: null, error: `connection failed: ${e.message}` }))
    req.on('response', (res) => {
      const code = res.statusCode ?? 0
      const redirect = code >= 300 && code < 400 ? `redirect to ${String(res.headers.location ?? '?').slice(0, 200)} not followed` : null
      let read = 0
      res.on('data', (chunk: Buffer) => {
        read += chunk.length
        if (read > MAX_RESPONSE_BYTES) finish({ statusCode: code, error: redirect ?? (code >= 200 && code < 300 ? null : `HTTP ${code}`) })
      })
      res.on('end', () => finish({ statusCode: code, error: redirect ?? (code >= 200 && code < 300 ? null : `HTTP ${code}`) }))
      res.on('error', () => finish({ statusCode: code, error: redirect ?? `HTTP ${code}, answer cut off` }))
    })
    req.end(body)
  })
}

async function claimNext(q: Queryable, owner: string): Promise<DeliveryRow | undefined> {
  const { rows } = await q.query<DeliveryRow>(
    `WITH claimed AS (
       UPDATE webhook_deliveries SET status = 'delivering', lease_owner = $1, lease_until = clock_timestamp() + $2 * interval '1 millisecond',
              attempts = attempts + 1
        WHERE id = (SELECT id FROM webhook_deliveries
                     WHERE (status = 'pending' AND next_attempt_at <= clock_timestamp())
                        OR (status = 'delivering' AND lease_until < clock_timestamp())
                     ORDER BY next_attempt_at, id LIMIT 1 FOR UPDATE SKIP LOCKED)
        RETURNING *)
     SELECT c.id, c.endpoint_id, c.event_id, c.event_type, c.payload, c.attempts, e.url, e.secret_sealed
       FROM claimed c JOIN webhook_endpoints e ON e.id = c.endpoint_id`,
    [owner, LEASE_MS],
  )
  return rows[0]
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
    return recordAttempt(deps, d, owner, { statusCode: null, error: 'the signing secret cannot be read: rotate it', durationMs: 0 })
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
    { timeoutMs: config.webhooks.timeoutMs, allowLoopback: config.webhooks.allowHttpLoopback, resolve: deps.resolveHost ?? systemResolver },
  )
  await recordAttempt(deps, d, owner, result)
}

/** Writes one attempt into the delivery's log and decides what is next: done, a later retry, or given up. */
async function recordAttempt(deps: WorkerDeps, d: DeliveryRow, owner: string, result: AttemptResult) {
  const { config, db } = deps
  const ok = result.error === null && result.statusCode !== null && result.statusCode >= 200 && result.statusCode < 300
  const last = d.attempts >= config.webhooks.maxAttempts
  const status = ok ? 'succeeded' : last ? 'failed' : 'pending'
  const delayMs = config.webhooks.retryBaseMs * (BACKOFF[Math.min(d.attempts - 1, BACKOFF.length - 1)] ?? 1)
  const entry = { attempt: d.attempts, status_code: result.statusCode, error: result.error, duration_ms: result.durationMs }
  await db.query(
    `UPDATE webhook_deliveries SET status = $2, last_status_code = $3, last_error = $4, last_attempt_at = clock_timestamp(),
            next_attempt_at = CASE WHEN $2 = 'pending' THEN clock_timestamp() + $5 * interval '1 millisecond' ELSE next_attempt_at END,
            attempt_log = attempt_log || jsonb_build_array(jsonb_build_object('at', clock_timestamp()) || $6::jsonb),
            lease_owner = NULL, lease_until = NULL
      WHERE id = $1 AND lease_owner = $7`,
    [d.id, status, result.statusCode, result.error, delayMs, JSON.stringify(entry), owner],
  )
}

/**
 * WEBHOOK deliveries as jobs in the database, shared by every instance: a worker claims a due one
 * (FOR UPDATE SKIP LOCKED, with a lease so a killed instance's claim lapses), sends it and records the
 * attempt. `kick()` after queueing; an idle worker also looks every WEBHOOK_POLL_MS (retries come due,
 * exports of other instances complete).
 */
export function startWebhookWorker(deps: WorkerDeps, concurrency = 2): { kick: () => void; stop: () => Promise<void> } {
  const instance = randomBytes(6).toString('hex')
  let stopped = false
  let wanted = false
  let workers = 0
  const running = new Set<Promise<void>>()
  const work = async () => {
    const owner = `${instance}/${++workers}`
    while (!stopped) {
      wanted = false
      const job = await claimNext(deps.db, owner)
      if (!job) return
      await processDelivery(deps, job, owner).catch(async (e: unknown) => {
        console.error(`[webhook ${job.id}] ${describeError(e)}`)
        // recorded as a failed attempt, so a delivery that always throws ends after maxAttempts instead of every lease
        await recordAttempt(deps, job, owner, { statusCode: null, error: 'internal error', durationMs: 0 }).catch(() => undefined)
      })
    }
  }
  const kick = () => {
    if (stopped) return
    wanted = true
    for (let i = running.size; i < concurrency; i++) {
      const p: Promise<void> = work()
        .catch((e: unknown) => console.error(`[webhook worker] ${describeError(e)}`))
        .finally(() => {
          running.delete(p)
          if (wanted && !stopped) kick()
        })
      running.add(p)
    }
  }
  const poll = setInterval(kick, deps.config.webhooks.pollMs)
  poll.unref()
  kick()
  return {
    kick,
    async stop() {
      stopped = true
      clearInterval(poll)
      await Promise.all([...running])
    },
  }
}
