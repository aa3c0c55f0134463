import { readdir, rm, stat } from 'node:fs/promises'
import path from 'node:path'
import type { Deps } from '../app-env.ts'
import { describeError } from '../lib/errors.ts'

type CleanupDeps = Pick<Deps, 'db' | 'clock' | 'config'>

/** A temp file untouched this long belongs to no running export (a writing worker touches it constantly). */
export const ORPHAN_TMP_AGE_MS = 15 * 60_000
const DAY_MS = 86_400_000
/** Days a settled webhook delivery stays in the endpoint's log. */
export const WEBHOOK_LOG_DAYS = 30
/** Days a preview search (a search_id of GET /api/companies/) lives unasked for, unless an export was started from it. */
export const PREVIEW_SEARCH_DAYS = 30

/**
 * Preview searches not asked for in PREVIEW_SEARCH_DAYS and never exported (issue 24: every filter set
 * ever previewed was a row for good). The same filters asked again later get a new search_id. At most
 * 10,000 a pass, so that one pass stays short.
 */
export async function removeUnusedPreviewSearches(db: CleanupDeps['db'], now: Date): Promise<number> {
  const { rows } = await db.query(
    `DELETE FROM searches WHERE id IN (
       SELECT s.id FROM searches s
        WHERE s.kind = 'preview' AND coalesce(s.used_at, s.created_at) < $1
          AND NOT EXISTS (SELECT 1 FROM searches e WHERE e.source_search_id = s.id)
        LIMIT 10000)
     RETURNING 1`,
    [new Date(now.getTime() - PREVIEW_SEARCH_DAYS * DAY_MS)],
  )
  return rows.length
}

/**
 * Temp files of exports whose process was killed mid-write (`<id>.<ext>.<random>.tmp`). Only old ones:
 * with a shared DATA_DIR another instance may be writing a fresh one right now.
 */
export async function removeOrphanTempFiles(dataDir: string, nowMs = Date.now()): Promise<number> {
  const root = path.join(dataDir, 'exports')
  let removed = 0
  const users = await readdir(root).catch(() => [] as string[])
  for (const user of users) {
    const dir = path.join(root, user)
    const files = await readdir(dir).catch(() => [] as string[])
    for (const f of files) {
      if (!f.endsWith('.tmp')) continue
      const file = path.join(dir, f)
      const info = await stat(file).catch(() => null)
      if (!info || nowMs - info.mtimeMs < ORPHAN_TMP_AGE_MS) continue
      await rm(file, { force: true })
      removed += 1
    }
  }
  return removed
}

/**
 * What an upload of a list (issue 27) leaves when its process dies: the received file under
 * `uploads/` (an upload in progress writes it all the time; past the longest an upload may take
 * plus a margin, nobody will) and the hidden `uploading` list its rows were going into (an upload
 * reads its file into rows in well under this).
 */
export async function removeAbandonedUploads(deps: CleanupDeps, nowMs = Date.now()): Promise<number> {
  const dir = path.join(deps.config.dataDir, 'uploads')
  const maxAgeMs = deps.config.uploads.timeoutMs + ORPHAN_TMP_AGE_MS
  let removed = 0
  for (const f of await readdir(dir).catch(() => [] as string[])) {
    if (!f.endsWith('.upload')) continue
    const info = await stat(path.join(dir, f)).catch(() => null)
    if (!info || nowMs - info.mtimeMs < maxAgeMs) continue
    await rm(path.join(dir, f), { force: true })
    removed += 1
  }
  const lists = await deps.db.query(`DELETE FROM lists WHERE status = 'uploading' AND created_at < $1 RETURNING 1`, [
    new Date(deps.clock.now().getTime() - maxAgeMs),
  ])
  return removed + lists.rows.length
}

export interface CleanupCounts {
  tempFiles: number
  /** Files and hidden lists of uploads whose process died (removeAbandonedUploads). */
  abandonedUploads: number
  exportFiles: number
  refreshTokens: number
  passwordResets: number
  confirmations: number
  loginFailures: number
  webhookDeliveries: number
  /** Test events and endpoint additions counted for the per-account limits (kept a day). */
  webhookAccountEvents: number
  /** Preview searches unused for PREVIEW_SEARCH_DAYS and never exported. */
  previewSearches: number
}

/**
 * One clean-up pass: orphan temp files; export files whose link expired (the history row stays, with
 * `file_removed_at`); refresh tokens, reset and confirmation links a day past their expiry; sign-in
 * failure counts an hour quiet; webhook deliveries settled more than WEBHOOK_LOG_DAYS ago (their log is what
 * the dashboard shows; the database's clock, which scheduled them). Expiry is measured on the service clock, like the links themselves.
 */
export async function runCleanup(deps: CleanupDeps): Promise<CleanupCounts> {
  const { db, clock, config } = deps
  const now = clock.now()
  const dayAgo = new Date(now.getTime() - DAY_MS)
  const tempFiles = await removeOrphanTempFiles(config.dataDir)
  const abandonedUploads = await removeAbandonedUploads(deps)
  const expired = await db.query<{ id: number; file_path: string }>(
    `SELECT id, file_path FROM searches WHERE kind = 'export' AND file_path IS NOT NULL AND expires_at <= $1 ORDER BY id LIMIT 1000`,
    [now],
  )
  let exportFiles = 0
  for (const row of expired.rows) {
    await rm(row.file_path, { force: true })
    const res = await db.query(
      'UPDATE searches SET file_path = NULL, file_removed_at = $2 WHERE id = $1 AND file_path IS NOT NULL RETURNING id',
      [row.id, now],
    )
    exportFiles += res.rows.length
  }
  const count = async (sql: string, params: unknown[]) => (await db.query(`${sql} RETURNING 1`, params)).rows.length
  const refreshTokens = await count('DELETE FROM refresh_tokens WHERE expires_at < $1', [dayAgo])
  const passwordResets = await count('DELETE FROM password_resets WHERE expires_at < $1', [dayAgo])
  const confirmations =
    (await count('DELETE FROM email_confirmations WHERE expires_at < $1', [dayAgo])) +
    (await count('DELETE FROM email_change_cancellations WHERE expires_at < $1', [dayAgo]))
  const loginFailures = await count(
    'DELETE FROM login_failures WHERE last_failure_at < $1 AND (blocked_until IS NULL OR blocked_until < $2)',
    [new Date(now.getTime() - 3_600_000), now],
  )
  const webhookDeliveries = await count(
    `DELETE FROM webhook_deliveries WHERE status IN ('succeeded', 'failed') AND created_at < clock_timestamp() - $1 * interval '1 day'`,
    [WEBHOOK_LOG_DAYS],
  )
  const webhookAccountEvents = await count(`DELETE FROM webhook_account_events WHERE at < clock_timestamp() - interval '1 day'`, [])
  const previewSearches = await removeUnusedPreviewSearches(db, now)
  const counts = {
    tempFiles,
    abandonedUploads,
    exportFiles,
    refreshTokens,
    passwordResets,
    confirmations,
    loginFailures,
    webhookDeliveries,
    webhookAccountEvents,
    previewSearches,
  }
  console.log(
    `[cleanup] removed ${tempFiles} orphan temp file(s), ${abandonedUploads} abandoned upload(s), ${exportFiles} expired export file(s), ${refreshTokens} refresh token(s), ` +
      `${passwordResets} reset link(s), ${confirmations} confirmation link(s), ${loginFailures} sign-in failure record(s), ${webhookDeliveries} webhook deliveries, ` +
      `${webhookAccountEvents} webhook limit record(s), ${previewSearches} unused preview search(es)`,
  )
  return counts
}

/** Runs at start, then every CLEANUP_INTERVAL_MS; the timer does not keep the process alive. */
export function startCleanup(deps: CleanupDeps): { stop: () => Promise<void> } {
  let running: Promise<unknown> = Promise.resolve()
  const pass = () => {
    running = running.then(() => runCleanup(deps)).catch((err: unknown) => console.error(`[cleanup] ${describeError(err)}`))
  }
  pass()
  const timer = setInterval(pass, deps.config.cleanupIntervalMs)
  timer.unref()
  return {
    async stop() {
      clearInterval(timer)
      await running
    },
  }
}
