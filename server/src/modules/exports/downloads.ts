import { createHmac, timingSafeEqual } from 'node:crypto'
import { stat } from 'node:fs/promises'
import type { Queryable } from '../../db/db.ts'
import type { Clock } from '../../lib/clock.ts'
import { gone, HttpError, notFound } from '../../lib/errors.ts'
import { ownExport, type ExportFormat, type ExportRow } from './service.ts'

/** HMAC of `user:id:expires` (config.secret): the download URL carries no auth token (decisions.md). */
export function signDownload(secret: string, userId: number, searchId: number, expires: number): string {
  return createHmac('sha256', secret).update(`${userId}:${searchId}:${expires}`).digest('hex')
}

export function verifyDownloadSignature(secret: string, userId: number, searchId: number, expires: number, sig: string): boolean {
  const expected = Buffer.from(signDownload(secret, userId, searchId, expires), 'hex')
  const given = /^[0-9a-f]{64}$/i.test(sig) ? Buffer.from(sig, 'hex') : Buffer.alloc(0)
  return given.length === expected.length && timingSafeEqual(given, expected)
}

/** The signed, time-limited link to a completed export of the caller (DownloadDescriptor in /api/schema/). */
export async function downloadLink(
  q: Queryable,
  config: { secret: string; publicUrl: string },
  userId: number,
  searchId: number,
  clock: Clock,
) {
  const row = await ownExport(q, userId, searchId)
  if (row.status !== 'COMPLETED' || !row.expires_at || !row.filename) {
    throw new HttpError(409, { detail: `The export is not completed (status ${row.status}).`, code: 'conflict', status: row.status })
  }
  const expiresAt = new Date(row.expires_at)
  if (expiresAt <= clock.now()) throw gone(`The download link expired at ${expiresAt.toISOString()}.`)
  const expires = Math.floor(expiresAt.getTime() / 1000)
  const sig = signDownload(config.secret, row.user_id, row.id, expires)
  const size = Number(row.file_size_bytes ?? 0)
  return {
    // from the configured public address, never from the request's Host header
    download_url: `${config.publicUrl}/api/files/${row.id}/?expires=${expires}&sig=${sig}`,
    filename: row.filename,
    file_size_bytes: size,
    file_size_mb: Math.round((size / (1024 * 1024)) * 100) / 100,
    expires_at: expiresAt.toISOString(),
  }
}

/**
 * The file a signed link names, checked: the signature (403, also for an unknown id: the link must
 * not reveal which exports exist), the link's and the export's expiry (410), the file on disk (404).
 */
export async function exportFile(
  q: Queryable,
  secret: string,
  searchId: number,
  link: { expires: string; sig: string },
  clock: Clock,
): Promise<{ path: string; size: number; format: ExportFormat; filename: string }> {
  const row = (await q.query<ExportRow>("SELECT * FROM searches WHERE id = $1 AND kind = 'export' AND status = 'COMPLETED'", [searchId]))
    .rows[0]
  if (!row || !row.file_path || !verifyDownloadSignature(secret, row.user_id, row.id, Number(link.expires), link.sig)) {
    throw new HttpError(403, { detail: 'Invalid download signature.', code: 'forbidden' })
  }
  if (Number(link.expires) * 1000 <= clock.now().getTime() || (row.expires_at && new Date(row.expires_at) <= clock.now())) {
    throw gone('This download link has expired.')
  }
  let size: number
  try {
    size = (await stat(row.file_path)).size
  } catch {
    throw notFound('File not found.')
  }
  const format = row.export_format === 'excel' ? 'excel' : 'csv'
  return { path: row.file_path, size, format, filename: row.filename ?? `export-${row.id}.${format === 'excel' ? 'xlsx' : 'csv'}` }
}
