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
  detail?: string
  freshness: {
    original_exported_at: string
    last_exported_at: string
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
        'search_id',
        'filters',
        'created_at',
        'status',
        'lead_count',
        'credits_charged',
        'export_format',
        'capped',
        'expires_at',
        'max_leads',
        'delta_of',
        'filename',
        'file_size_bytes',
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
    expect(await body(none)).toMatchObject({
      status: 'rejected',
      validation_code: 'no_new_leads',
      required_credits: 0,
      detail: expect.stringMatching(/\w/),
    })

    await advanceClock(svc, 60)
    const added = await svc.request('/api/_test/new-companies/', {
      method: 'POST',
      token: u.access,
      json: { count: 12, countries: ['DE'] },
    })
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
        last_exported_at: verdict.freshness.original_exported_at, // no fresh-data export yet
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
    // available_credits is the balance after the charge
    expect(started).toMatchObject({
      status: 'started',
      validation_code: 'ok',
      lead_count: 12,
      required_credits: 12,
      available_credits: balance - 12,
    })
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
    expect(await body(notAllowed)).toMatchObject({
      status: 'rejected',
      validation_code: 'fresh_exports_not_allowed',
      detail: expect.stringMatching(/plan/i),
    })

    const u = await paidUser(1000)
    await svc.request('/api/_test/fail-next-export/', { method: 'POST', token: u.access })
    const failed = await exportDone(u, 'countries=IT', { max_leads: 3 })
    const notCompleted = await delta(u, failed.search_id, {})
    expect(notCompleted.status).toBe(409)
    expect(await body(notCompleted)).toMatchObject({
      status: 'rejected',
      validation_code: 'not_completed',
      detail: expect.stringMatching(/complete/i),
    })

    const original = await exportDone(u, 'countries=IT', { max_leads: 2 })
    await grant(svc, u.access, { subscription: 0 })
    const short = await delta(u, original.search_id, {})
    expect(short.status).toBe(403)
    const b = await body<Delta>(short)
    expect(b).toMatchObject({
      status: 'rejected',
      validation_code: 'insufficient_credits',
      available_credits: 0,
      detail: expect.stringMatching(/credits/),
    })
    expect(b.required_credits).toBe(original.total - 2)
    const history = await body<Page>(await svc.request('/api/user/search-history/', { token: u.access }))
    expect(history.count).toBe(2) // nothing started
  })

  it('three concurrent `{}` deltas: exactly one starts and charges, the others answer no_new_leads', async () => {
    const u = await paidUser(1000)
    const original = await exportDone(u, 'countries=NL')
    await advanceClock(svc, 60)
    await svc.request('/api/_test/new-companies/', { method: 'POST', token: u.access, json: { count: 9, countries: ['NL'] } })
    const balance = (await profile(svc, u.access)).remaining_credits
    const answers = await Promise.all([1, 2, 3].map(() => delta(u, original.search_id, {})))
    const bodies = await Promise.all(answers.map((r) => body<Delta>(r)))
    const started = bodies.filter((b) => b.status === 'started')
    expect(started).toHaveLength(1)
    expect(started[0]).toMatchObject({ lead_count: 9, required_credits: 9, available_credits: balance - 9 })
    expect(answers.filter((r) => r.status === 202)).toHaveLength(1)
    const others = bodies.filter((b) => b.status !== 'started')
    expect(others).toHaveLength(2)
    for (const b of others) {
      expect(b).toMatchObject({ status: 'rejected', validation_code: 'no_new_leads', required_credits: 0, lead_count: 0 })
      expect(b.detail).toEqual(expect.any(String))
    }
    expect((await profile(svc, u.access)).remaining_credits).toBe(balance - 9)
    const history = await body<Page>(await svc.request('/api/user/search-history/', { token: u.access }))
    expect(history.count).toBe(2)
  })

  it('later deltas buy only what the chain has not bought: the cut-off moves, capped charges subtract every charge', async () => {
    const u = await paidUser(5000)
    // uncapped: original, a first delta of 7, then 4 more companies
    const original = await exportDone(u, 'countries=PL')
    await advanceClock(svc, 60)
    await svc.request('/api/_test/new-companies/', { method: 'POST', token: u.access, json: { count: 7, countries: ['PL'] } })
    const first = await body<Delta>(await delta(u, original.search_id, {}))
    expect(first).toMatchObject({ status: 'started', lead_count: 7, required_credits: 7 })
    await waitForExport(svc, u.access, first.search_id)
    expect(await body(await delta(u, original.search_id, { dry_run: true }))).toMatchObject({
      validation_code: 'no_new_leads',
      freshness: { new_since_export: 0, current_total: original.lead_count + 7 },
    })
    await advanceClock(svc, 60)
    await svc.request('/api/_test/new-companies/', { method: 'POST', token: u.access, json: { count: 4, countries: ['PL'] } })
    const dry = await body<Delta>(await delta(u, original.search_id, { dry_run: true }))
    expect(dry).toMatchObject({ status: 'validated', lead_count: 4, required_credits: 4, freshness: { new_since_export: 4 } })
    expect(new Date(dry.freshness.last_exported_at).getTime()).toBeGreaterThan(new Date(dry.freshness.original_exported_at).getTime())
    const balance = (await profile(svc, u.access)).remaining_credits
    const second = await body<Delta>(await delta(u, original.search_id, {}))
    expect(second).toMatchObject({ status: 'started', lead_count: 4, required_credits: 4, available_credits: balance - 4 })
    await waitForExport(svc, u.access, second.search_id)
    const firstRows = new Set((await fileRows(u, first.search_id)).slice(1).map((r) => r.join('|')))
    const secondRows = (await fileRows(u, second.search_id)).slice(1)
    expect(secondRows).toHaveLength(4)
    expect(secondRows.some((r) => firstRows.has(r.join('|')))).toBe(false)
    // a delta of the first delta sees its sibling: nothing left to buy
    expect(await body(await delta(u, first.search_id, { dry_run: true }))).toMatchObject({ validation_code: 'no_new_leads' })

    // capped: original of 5, full expansion, then 3 more companies cost 3, not total − 5 again
    const capped = await exportDone(u, 'countries=IL', { max_leads: 5 })
    const full = await body<Delta>(await delta(u, capped.search_id, {}))
    expect(full).toMatchObject({ status: 'started', lead_count: capped.total, required_credits: capped.total - 5 })
    await waitForExport(svc, u.access, full.search_id)
    expect(await body(await delta(u, capped.search_id, { dry_run: true }))).toMatchObject({ validation_code: 'no_new_leads' })
    await advanceClock(svc, 60)
    await svc.request('/api/_test/new-companies/', { method: 'POST', token: u.access, json: { count: 3, countries: ['IL'] } })
    expect(await body(await delta(u, capped.search_id, { dry_run: true }))).toMatchObject({
      status: 'validated',
      lead_count: capped.total + 3,
      required_credits: 3,
      freshness: { capped: true, new_since_export: 3 },
    })
  })

  it('refuses a non-boolean dry_run with 400', async () => {
    const u = await paidUser(100)
    const original = await exportDone(u, 'countries=DE', { max_leads: 1 })
    const res = await delta(u, original.search_id, { dry_run: 'yes' })
    expect(res.status).toBe(400)
    expect((await body<{ errors: Record<string, string[]> }>(res)).errors.dry_run).toBeDefined()
  })
})
