import { mkdir, readdir, utimes, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { removeAbandonedUploads } from '../src/jobs/cleanup.ts'
import { body, signUp, type TestUser } from './account-helpers.ts'
import { startTestService, type TestService } from './helpers.ts'
import { answerOf, openSocket } from './raw-sockets.ts'

/**
 * Uploads have their own time limits (lib/body-deadline.ts): a list may take minutes to arrive on a
 * slow uplink as long as it keeps moving, while every other request must still arrive whole within
 * the request limit, and a stalled upload is cut off and leaves nothing behind.
 */

let svc: TestService
let u: TestUser
const REQUEST_LIMIT_MS = 1000

beforeAll(async () => {
  svc = await startTestService({
    seedCompanies: 0,
    http: { headersTimeoutMs: 1000, requestTimeoutMs: REQUEST_LIMIT_MS, maxConnections: 100 },
    uploads: { timeoutMs: 20_000, minBytesPerSecond: 1000, windowMs: 500 },
  })
  u = await signUp(svc)
})
afterAll(() => svc.close())

const open = () => openSocket(svc.url)
const answer = answerOf

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

/** A multipart upload of a CSV, as the bytes of its head and body. */
function uploadRequest(csv: string): { head: string; body: Buffer } {
  const boundary = 'slow-upload-boundary'
  const body = Buffer.from(
    `--${boundary}\r\nContent-Disposition: form-data; name="file"; filename="customers.csv"\r\nContent-Type: text/csv\r\n\r\n` +
      `${csv}\r\n--${boundary}--\r\n`,
  )
  const head =
    `POST /api/lists/ HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${u.access}\r\n` +
    `Content-Type: multipart/form-data; boundary=${boundary}\r\nContent-Length: ${body.length}\r\nConnection: close\r\n\r\n`
  return { head, body }
}

const csv = ['name,city,website', ...Array.from({ length: 400 }, (_, i) => `Bakery ${i},Berlin,bakery-${i}.example.de`)].join('\n')

describe('uploads on a slow line', () => {
  it('an upload that keeps moving may take longer than any other request may', async () => {
    const { head, body: bytes } = uploadRequest(csv)
    const s = await open()
    const got = answer(s, 30_000)
    s.write(head)
    // ≈ 2 KB/s, twice the least an upload must move, for about three times the request limit
    const chunk = Math.ceil(bytes.length / 30)
    for (let at = 0; at < bytes.length; at += chunk) {
      s.write(bytes.subarray(at, at + chunk))
      await sleep(100)
    }
    const { data } = await got
    expect(data).toMatch(/^HTTP\/1\.1 201/)
    const list = JSON.parse(data.slice(data.indexOf('\r\n\r\n') + 4)) as { total_rows: number }
    expect(list.total_rows).toBe(400)
  })

  it('a stalled upload is cut off with a 408 and leaves no file and no list behind', async () => {
    const before = await body<unknown[]>(await svc.request('/api/lists/', { token: u.access }))
    const { head, body: bytes } = uploadRequest(csv)
    const s = await open()
    const got = answer(s, 15_000)
    s.write(head)
    s.write(bytes.subarray(0, 2000))
    // then nothing: the client has gone quiet
    const { closed, data } = await got
    expect(closed).toBe(true)
    expect(data).toMatch(/^HTTP\/1\.1 408/)
    expect(data).toContain('request_timeout')
    await sleep(200)
    const uploads = await readdir(path.join(svc.deps.config.dataDir, 'uploads')).catch(() => [])
    expect(uploads.filter((f) => f.endsWith('.upload'))).toEqual([])
    expect(await body<unknown[]>(await svc.request('/api/lists/', { token: u.access }))).toEqual(before)
  })

  it('any other request whose body trickles in is cut off at the request limit, however it moves', async () => {
    const payload = JSON.stringify({ username: 'someone@example.com', password: 'x'.repeat(1000) })
    const s = await open()
    const got = answer(s, 15_000)
    s.write(
      `POST /api/auth/login/ HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${payload.length}\r\n\r\n`,
    )
    // 50 bytes every 100 ms: fast enough for an upload, but the whole body would take twice as long as allowed
    for (let at = 0; at < payload.length && !s.destroyed; at += 50) {
      s.write(payload.slice(at, at + 50))
      await sleep(100)
    }
    const { closed, data } = await got
    expect(closed).toBe(true)
    expect(data).toMatch(/^HTTP\/1\.1 408/)
  })
})

describe('clean-up of uploads whose process died', () => {
  it('removes old received files and hidden half-written lists, and keeps fresh ones', async () => {
    const dir = path.join(svc.deps.config.dataDir, 'uploads')
    await mkdir(dir, { recursive: true })
    const old = path.join(dir, 'old.upload')
    const fresh = path.join(dir, 'fresh.upload')
    await writeFile(old, 'name\nA\n')
    await writeFile(fresh, 'name\nB\n')
    const longAgo = new Date(Date.now() - 2 * 3_600_000)
    await utimes(old, longAgo, longAgo)
    const now = svc.deps.clock.now()
    const hidden = async (createdAt: Date) =>
      (
        await svc.deps.db.query<{ id: number }>(
          `INSERT INTO lists (user_id, name, status, file_type, headers, proposed_mapping, created_at)
           VALUES ($1, 'half', 'uploading', 'csv', '{}', '{}', $2) RETURNING id`,
          [u.id, createdAt],
        )
      ).rows[0]!.id
    const stale = await hidden(new Date(now.getTime() - 2 * 3_600_000))
    const live = await hidden(now)

    expect(await removeAbandonedUploads(svc.deps)).toBe(2)
    expect((await readdir(dir)).sort()).toEqual(['fresh.upload'])
    const left = await svc.deps.db.query<{ id: number }>('SELECT id FROM lists WHERE id = ANY($1)', [[stale, live]])
    expect(left.rows.map((r) => r.id)).toEqual([live])
  })
})
