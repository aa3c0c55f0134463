import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestService, type TestService } from './helpers.ts'
import {
  advanceClock,
  body,
  grant,
  login,
  parseCsv,
  preview,
  profile,
  signUp,
  startExport,
  waitForExport,
  type TestUser,
} from './account-helpers.ts'

let svc: TestService
beforeAll(async () => {
  svc = await startTestService()
})
afterAll(async () => {
  await svc?.close()
})

interface Entry {
  search_id: number
  filters: Record<string, unknown>
  created_at: string
  status: string
  lead_count: number
  credits_charged: number
  export_format: string
  capped: boolean
  expires_at: string | null
  max_leads: number | null
  delta_of: number | null
  filename: string | null
  file_size_bytes: number | null
}
interface Page {
  count: number
  next: string | null
  previous: string | null
  results: Entry[]
}
interface Delta {
  status: string
  validation_code: string
  search_id: number
  lead_count: number
  required_credits: number
  available_credits: number
  freshness: {
    original_exported_at: string
    original_lead_count: number
    current_total: number
    new_since_export: number
    capped: boolean
  }
  freshness_checked_at: string
}

async function paidUser(subscription = 5000): Promise<TestUser> {
  const u = await signUp(svc)
  await grant(svc, u.access, { subscription, plan_type: 'Pro' })
  return u
}

async function exportDone(u: TestUser, query: string, extra: Record<string, unknown> = {}) {
  const p = await preview(svc, u.access, query)
  const res = await startExport(svc, u.access, { search_id: p.search_id, export_format: 'csv', ...extra })
  expect(res.status).toBe(202)
  const started = await body<{ search_id: number; lead_count: number; credits_charged: number }>(res)
  await waitForExport(svc, u.access, started.search_id)
  return { ...started, total: p.totalCount }
}

const delta = (u: TestUser, id: number, json?: unknown) =>
  svc.request(`/api/user/search-history/${id}/download-delta/`, { method: 'POST', token: u.access, json })

async function fileRows(u: TestUser, id: number): Promise<string[][]> {
  const d = await body<{ download_url: string }>(await svc.request(`/api/download-completed-csv/${id}/`, { token: u.access }))
  return parseCsv(await (await fetch(d.download_url)).text())
}

describe('GET /api/user/search-history/', () => {
  it('lists only exports, newest first, with every field, paged with next/previous', async () => {
    const u = await paidUser()
    const a = await exportDone(u, 'countries=DE', { max_leads: 3 })
    const b = await exportDone(u, 'countries=FR', { max_leads: 4 })
    const c = await exportDone(u, 'countries=GB&email=true', { max_leads: 5 })
    await preview(svc, u.access, 'countries=ES') // previews are not history

    const first = await body<Page>(await svc.request('/api/user/search-history/?page_size=2', { token: u.access }))
    expect(first.count).toBe(3)
    expect(first.results.map((e) => e.search_id)).toEqual([c.search_id, b.search_id])
    expect(first.previous).toBeNull()
    expect(first.next).toMatch(/^http:\/\/127\.0\.0\.1:\d+\/api\/user\/search-history\/?\?.*page=2/)
    expect(new URL(first.next!).searchParams.get('page_size')).toBe('2')

    const second = await body<Page>(await svc.request(new URL(first.next!).pathname + new URL(first.next!).search, { token: u.access }))
    expect(second.results.map((e) => e.search_id)).toEqual([a.search_id])
    expect(second.next).toBeNull()
    expect(second.previous).toMatch(/page=1/)

    const entry = first.results[0]!
    expect(Object.keys(entry)).toEqual(
      expect.arrayContaining([
        'search_id', 'filters', 'created_at', 'status', 'lead_count', 'credits_charged', 'export_format',
        'capped', 'expires_at', 'max_leads', 'delta_of', 'filename', 'file_size_bytes',
      ]),
    )
    expect(entry).toMatchObject({
      search_id: c.search_id,
      status: 'COMPLETED',
      lead_count: 5,
      credits_charged: 5,
      export_format: 'csv',
      max_leads: 5,
      delta_of: null,
      filters: expect.objectContaining({ countries: ['GB'], email: true }),
    })
    expect(entry.filename).toMatch(/\.csv$/)
    expect(entry.file_size_bytes).toBeGreaterThan(0)
    expect(new Date(entry.expires_at!).getTime()).toBeGreaterThan(new Date(entry.created_at).getTime())

    const one = await svc.request(`/api/user/search-history/${b.search_id}/`, { token: u.access })
    expect(one.status).toBe(200)
    expect(await body(one)).toEqual(first.results[1])
  })

  it('defaults to 20 per page and answers 404 past the last page, 400 for bad page values', async () => {
    const u = await paidUser()
    const empty = await body<Page>(await svc.request('/api/user/search-history/', { token: u.access }))
    expect(empty).toEqual({ count: 0, next: null, previous: null, results: [] })
    const p = await preview(svc, u.access, 'countries=DE')
    for (let i = 0; i < 21; i++) {
      expect((await startExport(svc, u.access, { search_id: p.search_id, export_format: 'csv', max_leads: 1 })).status).toBe(202)
    }
    const page1 = await body<Page>(await svc.request('/api/user/search-history/', { token: u.access }))
    expect(page1.count).toBe(21)
    expect(page1.results).toHaveLength(20)
    const page2 = await body<Page>(await svc.request('/api/user/search-history/?page=2', { token: u.access }))
    expect(page2.results).toHaveLength(1)
    expect((await svc.request('/api/user/search-history/?page=3', { token: u.access })).status).toBe(404)
    expect((await svc.request('/api/user/search-history/?page_size=100', { token: u.access })).status).toBe(200)
    for (const q of ['page=0', 'page=-1', 'page=abc', 'page_size=101', 'page_size=0', 'page=99999999999']) {
      const res = await svc.request(`/api/user/search-history/?${q}`, { token: u.access })
      expect(res.status).toBe(400)
      expect(await body(res)).toHaveProperty('errors')
    }
  })

  it('shows the demo account’s seeded history: completed files, one expired link, one failed export', async () => {
    const demo = await login(svc, 'demo@example.com', 'demo-password')
    const u = { access: demo.access } as TestUser
    const page = await body<Page>(await svc.request('/api/user/search-history/', { token: demo.access }))
    expect(page.count).toBeGreaterThanOrEqual(3)
    const completed = page.results.filter((e) => e.status === 'COMPLETED')
    const now = svc.deps.clock.now().getTime()
    const live = completed.filter((e) => new Date(e.expires_at!).getTime() > now)
    const expired = completed.filter((e) => new Date(e.expires_at!).getTime() <= now)
    expect(live.length).toBeGreaterThan(0)
    expect(expired.length).toBeGreaterThan(0)
    expect(page.results.some((e) => e.status === 'FAILED')).toBe(true)
    for (const e of live.filter((x) => x.export_format === 'csv')) {
      expect(await fileRows(u, e.search_id)).toHaveLength(1 + e.lead_count)
    }
    expect((await svc.request(`/api/download-completed-csv/${expired[0]!.search_id}/`, { token: demo.access })).status).toBe(410)
  })
})

describe('download-delta', () => {
  it('uncapped original: only companies created after the export; dry_run charges nothing; start charges that count', async () => {
    const u = await paidUser(1000)
    const original = await exportDone(u, 'countries=DE')
    const none = await delta(u, original.search_id, { dry_run: true })
    expect(none.status).toBe(200)
    expect(await body(none)).toMatchObject({ status: 'rejected', validation_code: 'no_new_leads', required_credits: 0 })

    await advanceClock(svc, 60)
    const added = await svc.request('/api/_test/new-companies/', { method: 'POST', token: u.access, json: { count: 12, countries: ['DE'] } })
    expect(added.status).toBe(201)
    expect(await body(added)).toMatchObject({ created: 12 })
    await svc.request('/api/_test/new-companies/', { method: 'POST', token: u.access, json: { count: 5, countries: ['FR'] } })
    // the free preview sees the new companies too
    expect((await preview(svc, u.access, 'countries=DE')).totalCount).toBe(original.lead_count + 12)
    const balance = (await profile(svc, u.access)).remaining_credits

    const dry = await delta(u, original.search_id, { dry_run: true })
    expect(dry.status).toBe(200)
    const verdict = await body<Delta>(dry)
    expect(verdict).toEqual({
      status: 'validated',
      validation_code: 'ok',
      search_id: original.search_id,
      lead_count: 12,
      required_credits: 12,
      available_credits: balance,
      freshness: {
        original_exported_at: expect.any(String),
        original_lead_count: original.lead_count,
        current_total: original.lead_count + 12,
        new_since_export: 12,
        capped: false,
      },
      freshness_checked_at: expect.any(String),
    })
    expect(Math.abs(new Date(verdict.freshness_checked_at).getTime() - svc.deps.clock.now().getTime())).toBeLessThan(5000)
    expect(new Date(verdict.freshness.original_exported_at).getTime()).toBeLessThan(new Date(verdict.freshness_checked_at).getTime())
    expect((await profile(svc, u.access)).remaining_credits).toBe(balance)

    const go = await delta(u, original.search_id, {})
    expect(go.status).toBe(202)
    const started = await body<Delta>(go)
    expect(started).toMatchObject({ status: 'started', validation_code: 'ok', lead_count: 12, required_credits: 12 })
    expect(started.search_id).not.toBe(original.search_id)
    expect((await profile(svc, u.access)).remaining_credits).toBe(balance - 12)
    await waitForExport(svc, u.access, started.search_id)
    const entry = await body<Entry>(await svc.request(`/api/user/search-history/${started.search_id}/`, { token: u.access }))
    expect(entry).toMatchObject({ delta_of: original.search_id, lead_count: 12, credits_charged: 12, status: 'COMPLETED' })

    const oldIds = new Set((await fileRows(u, original.search_id)).slice(1).map((r) => r.join('|')))
    const fresh = (await fileRows(u, started.search_id)).slice(1)
    expect(fresh).toHaveLength(12)
    expect(fresh.some((r) => oldIds.has(r.join('|')))).toBe(false)
  })

  it('capped original: a full-expansion export charged current total minus the credits first charged', async () => {
    const u = await paidUser(2000)
    const original = await exportDone(u, 'countries=FR', { max_leads: 5 })
    expect(original.total).toBeGreaterThan(5)
    const balance = (await profile(svc, u.access)).remaining_credits
    const verdict = await body<Delta>(await delta(u, original.search_id, { dry_run: true }))
    expect(verdict).toMatchObject({
      status: 'validated',
      validation_code: 'ok',
      lead_count: original.total,
      required_credits: original.total - 5,
      freshness: { original_lead_count: 5, current_total: original.total, new_since_export: 0, capped: true },
    })
    const go = await delta(u, original.search_id) // no body at all = the samples' {}
    expect(go.status).toBe(202)
    const started = await body<Delta>(go)
    expect((await profile(svc, u.access)).remaining_credits).toBe(balance - (original.total - 5))
    await waitForExport(svc, u.access, started.search_id)
    expect(await fileRows(u, started.search_id)).toHaveLength(1 + original.total)
    const entry = await body<Entry>(await svc.request(`/api/user/search-history/${started.search_id}/`, { token: u.access }))
    expect(entry).toMatchObject({ delta_of: original.search_id, capped: false, credits_charged: original.total - 5 })
  })

  it('rejects on a plan without fresh exports (403), an export not completed (409), and a short balance (403)', async () => {
    const free = await signUp(svc)
    const freeExport = await exportDone(free, 'countries=ES', { max_leads: 3 })
    const notAllowed = await delta(free, freeExport.search_id, { dry_run: true })
    expect(notAllowed.status).toBe(403)
    expect(await body(notAllowed)).toMatchObject({ status: 'rejected', validation_code: 'fresh_exports_not_allowed' })

    const u = await paidUser(1000)
    await svc.request('/api/_test/fail-next-export/', { method: 'POST', token: u.access })
    const failed = await exportDone(u, 'countries=IT', { max_leads: 3 })
    const notCompleted = await delta(u, failed.search_id, {})
    expect(notCompleted.status).toBe(409)
    expect(await body(notCompleted)).toMatchObject({ status: 'rejected', validation_code: 'not_completed' })

    const original = await exportDone(u, 'countries=IT', { max_leads: 2 })
    await grant(svc, u.access, { subscription: 0 })
    const short = await delta(u, original.search_id, {})
    expect(short.status).toBe(403)
    const b = await body<Delta>(short)
    expect(b).toMatchObject({ status: 'rejected', validation_code: 'insufficient_credits', available_credits: 0 })
    expect(b.required_credits).toBe(original.total - 2)
    const history = await body<Page>(await svc.request('/api/user/search-history/', { token: u.access }))
    expect(history.count).toBe(2) // nothing started
  })

  it('refuses a non-boolean dry_run with 400', async () => {
    const u = await paidUser(100)
    const original = await exportDone(u, 'countries=DE', { max_leads: 1 })
    const res = await delta(u, original.search_id, { dry_run: 'yes' })
    expect(res.status).toBe(400)
    expect((await body<{ errors: Record<string, string[]> }>(res)).errors.dry_run).toBeDefined()
  })
})
