import { existsSync } from 'node:fs'
import { mkdir, utimes, writeFile } from 'node:fs/promises'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ORPHAN_TMP_AGE_MS, runCleanup } from '../src/jobs/cleanup.ts'
import { startTestService, type TestService } from './helpers.ts'
import { advanceClock, body, grant, login, preview, signUp, startExport, waitForExport } from './account-helpers.ts'

/** Issue 8: disk and tables no longer only grow. The service's own clean-up pass, on the test clock. */

let svc: TestService
beforeAll(async () => {
  svc = await startTestService()
})
afterAll(async () => {
  await svc?.close()
})

describe('clean-up', () => {
  it('removes old orphan temp files (a killed export) but not one being written now', async () => {
    const dir = path.join(svc.deps.config.dataDir, 'exports', '999')
    await mkdir(dir, { recursive: true })
    const old = path.join(dir, '1.csv.dead.tmp')
    const fresh = path.join(dir, '2.csv.live.tmp')
    const kept = path.join(dir, '3.csv')
    for (const f of [old, fresh, kept]) await writeFile(f, 'x')
    const past = (Date.now() - ORPHAN_TMP_AGE_MS - 60_000) / 1000
    await utimes(old, past, past)
    await utimes(kept, past, past)
    const counts = await runCleanup(svc.deps)
    expect(counts.tempFiles).toBe(1)
    expect([existsSync(old), existsSync(fresh), existsSync(kept)]).toEqual([false, true, true])
  })

  it('deletes an export file after its link expired; the history keeps the entry and says so; links answer 410', async () => {
    const u = await signUp(svc) // free plan: links live 3 days
    await grant(svc, u.access, { subscription: 100 })
    const p = await preview(svc, u.access, 'countries=DE')
    const started = await body<{ search_id: number }>(
      await startExport(svc, u.access, { search_id: p.search_id, export_format: 'csv', max_leads: 3 }),
    )
    await waitForExport(svc, u.access, started.search_id)
    const file = (await svc.deps.db.query<{ file_path: string }>('SELECT file_path FROM searches WHERE id = $1', [started.search_id]))
      .rows[0]!.file_path
    expect(existsSync(file)).toBe(true)

    expect((await runCleanup(svc.deps)).exportFiles).toBe(0) // still valid: kept
    expect(existsSync(file)).toBe(true)
    await advanceClock(svc, 3 * 86_400 + 60)
    const { access } = await login(svc, u.email, u.password) // the old access token expired with the clock
    expect((await runCleanup(svc.deps)).exportFiles).toBeGreaterThanOrEqual(1)
    expect(existsSync(file)).toBe(false)
    const history = await body<{ results: Array<{ search_id: number; status: string; file_removed: boolean }> }>(
      await svc.request('/api/user/search-history/', { token: access }),
    )
    expect(history.results.find((e) => e.search_id === started.search_id)).toMatchObject({ status: 'COMPLETED', file_removed: true })
    expect((await svc.request(`/api/download-completed-csv/${started.search_id}/`, { token: access })).status).toBe(410)
  })

  it('purges refresh tokens, reset and confirmation links a day past their expiry, and quiet sign-in failure counts', async () => {
    const u = await signUp(svc)
    await svc.request('/api/auth/password-reset/', { method: 'POST', json: { email: u.email } })
    await svc.request('/api/auth/login/', { method: 'POST', json: { username: u.email, password: 'wrong one' } })
    const rows = async () =>
      (
        await svc.deps.db.query<{ tokens: number; resets: number; confirmations: number; failures: number }>(
          `SELECT (SELECT count(*)::int FROM refresh_tokens WHERE user_id = $1) AS tokens,
                  (SELECT count(*)::int FROM password_resets WHERE user_id = $1) AS resets,
                  (SELECT count(*)::int FROM email_confirmations WHERE user_id = $1) AS confirmations,
                  (SELECT count(*)::int FROM login_failures WHERE email_lower = lower($2)) AS failures`,
          [u.id, u.email],
        )
      ).rows[0]!
    expect(await rows()).toEqual({ tokens: 1, resets: 1, confirmations: 1, failures: 1 })
    await runCleanup(svc.deps)
    expect(await rows()).toEqual({ tokens: 1, resets: 1, confirmations: 1, failures: 1 }) // nothing is due yet
    await advanceClock(svc, 15 * 86_400 + 60) // past the refresh token's 14 days + 1
    const counts = await runCleanup(svc.deps)
    expect(counts.refreshTokens).toBeGreaterThanOrEqual(1)
    expect(await rows()).toEqual({ tokens: 0, resets: 0, confirmations: 0, failures: 0 })
  })
})
