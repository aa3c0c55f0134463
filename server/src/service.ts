import { serve } from '@hono/node-server'
import type { Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { createApp } from './app.ts'
import type { Deps } from './app-env.ts'
import type { Config } from './config.ts'
import { openDb } from './db/db.ts'
import { startCleanup } from './jobs/cleanup.ts'
import { startExportWorker } from './jobs/export-worker.ts'
import { startListWorker } from './jobs/list-worker.ts'
import { startWebhookWorker } from './jobs/webhook-worker.ts'
import { AfterAnswer } from './lib/after-answer.ts'
import { guardRequestBodies } from './lib/body-deadline.ts'
import { Clock } from './lib/clock.ts'
import { recordLegacyExports } from './modules/exports/lead-sets.ts'
import { isListUpload } from './modules/lists/limits.ts'
import { seedIfEmpty } from './seed/index.ts'

export interface RunningService {
  url: string
  deps: Deps
  /** Resolves once the work requests left for after their answers is done (lib/after-answer.ts). */
  afterAnswerDone(): Promise<void>
  close(): Promise<void>
}

/** Opens (and on first start migrates and seeds) the database, starts the worker and the HTTP server. */
export async function startService(
  given: Config,
  options: { resolveHost?: (host: string, signal?: AbortSignal) => Promise<string[]> } = {},
): Promise<RunningService> {
  const config = { ...given }
  const db = await openDb({ databaseUrl: config.databaseUrl, dataDir: config.dataDir, poolSize: config.databasePoolSize })
  const clock = new Clock()
  await seedIfEmpty(db, config, clock)
  const recorded = await recordLegacyExports(db)
  if (recorded) console.log(`[exports] recorded the leads of ${recorded} earlier export(s)`)
  const worker = startExportWorker({ db, clock, config })
  const cleanup = startCleanup({ db, clock, config })
  const webhooks = startWebhookWorker({ db, clock, config, resolveHost: options.resolveHost })
  const lists = startListWorker({ db, config })
  const later = new AfterAnswer()
  const deps: Deps = {
    db,
    clock,
    config,
    kickExports: worker.kick,
    kickWebhooks: webhooks.kick,
    kickLists: lists.kick,
    resolveHost: options.resolveHost,
    afterAnswer: later.run,
  }
  const app = createApp(deps)
  // Slow and numerous clients (issue 22): a request's head must arrive within headersTimeoutMs and
  // the whole request within requestTimeoutMs (Node's defaults: 60 s and 300 s), checked every second
  // (Node's default check runs every 30 s); past maxConnections new connections are closed at once.
  // Node's own request limit is the longest upload's; each request's own is set by guardRequestBodies.
  const requestCeilingMs = Math.max(config.http.requestTimeoutMs, config.uploads.timeoutMs)
  const server = serve({
    fetch: app.fetch,
    port: config.port,
    hostname: config.host,
    serverOptions: {
      headersTimeout: Math.min(config.http.headersTimeoutMs, config.http.requestTimeoutMs),
      requestTimeout: requestCeilingMs,
      connectionsCheckingInterval: Math.min(1_000, config.http.headersTimeoutMs),
      // a search's territory travels in the address (`within`, extension `geo`): 1,000 vertices URL-encoded
      // are about 33 KB, past Node's 16 KB default for a request's head
      maxHeaderSize: 128 * 1024,
    },
  })
  server.maxConnections = config.http.maxConnections
  guardRequestBodies(
    server as Server,
    {
      requestTimeoutMs: config.http.requestTimeoutMs,
      minBytesPerSecond: config.uploads.minBytesPerSecond,
      windowMs: config.uploads.windowMs,
    },
    (req) => isListUpload(req.method ?? '', (req.url ?? '').replace(/\?.*/, '')),
  )
  await new Promise<void>((resolve) => server.once('listening', () => resolve()))
  const { port } = server.address() as AddressInfo
  const url = `http://${config.host}:${port}`
  // PORT=0 picks a free port: links use the one actually bound unless PUBLIC_URL says otherwise
  if (!config.publicUrlConfigured) config.publicUrl = url
  return {
    url,
    deps,
    afterAnswerDone: () => later.drain(),
    async close() {
      // the job runners are told at once, each handing its job back after the step in hand: waiting for the
      // server's last request first (an upload may take minutes) let a list's match run batch after batch
      const runners = Promise.all([worker.stop(), webhooks.stop(), lists.stop(), cleanup.stop()])
      runners.catch(() => {}) // awaited below, after the requests in flight
      await new Promise<void>((resolve) => server.close(() => resolve()))
      await later.drain()
      await runners
      await db.close()
    },
  }
}
