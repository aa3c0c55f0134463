import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { PREVIEW_SEARCH_DAYS, runCleanup } from '../src/jobs/cleanup.ts'
import { advanceClock, body, login, paidUser, preview, startExport } from './account-helpers.ts'
import { startTestService, type TestService } from './helpers.ts'

/**
 * Issue 24: every distinct filter set an account previewed stayed a `searches` row for good. A preview
 * search now expires when it was not asked for in PREVIEW_SEARCH_DAYS and no export was started from
 * it; asking for it again keeps it, and the same filters asked after it expired get a new search_id.
 */

let svc: TestService
beforeAll(async () => {
  svc = await startTestService()
})
afterAll(() => svc?.close())

const DAY = 86_400

describe('preview searches', () => {
  it('expire unless asked for again or exported from', async () => {
    const u = await paidUser(svc, 10_000)
    const unused = await preview(svc, u.access, 'countries=DE&email=true')
    const askedAgain = await preview(svc, u.access, 'countries=FR')
    const exported = await preview(svc, u.access, 'countries=NL')
    expect((await startExport(svc, u.access, { search_id: exported.search_id, export_format: 'csv', max_leads: 2 })).status).toBe(202)

    await advanceClock(svc, (PREVIEW_SEARCH_DAYS - 2) * DAY)
    let { access } = await login(svc, u.email, u.password)
    // asked for again two days before it would expire: its use is written (it was written more than a day ago)
    expect((await preview(svc, access, 'countries=FR')).search_id).toBe(askedAgain.search_id)
    await advanceClock(svc, 3 * DAY)
    ;({ access } = await login(svc, u.email, u.password))

    const removed = (await runCleanup(svc.deps)).previewSearches
    expect(removed).toBeGreaterThanOrEqual(1)
    const { rows } = await svc.deps.db.query<{ id: number }>('SELECT id FROM searches WHERE id = ANY($1) ORDER BY id', [
      [unused.search_id, askedAgain.search_id, exported.search_id],
    ])
    expect(rows.map((r) => r.id)).toEqual([askedAgain.search_id, exported.search_id].sort((a, b) => a - b))

    // the expired one is gone for the export too; the same filters get a new search_id
    const gone = await startExport(svc, access, { search_id: unused.search_id, export_format: 'csv', max_leads: 1 })
    expect(gone.status).toBe(404)
    const again = await preview(svc, access, 'countries=DE&email=true')
    expect(again.search_id).not.toBe(unused.search_id)
    expect(again.totalCount).toBe(unused.totalCount)
    const history = await body<{ count: number }>(await svc.request('/api/user/search-history/', { token: access }))
    expect(history.count).toBe(1) // the export, whose preview is kept
  })
})
