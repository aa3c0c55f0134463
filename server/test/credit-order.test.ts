import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestService, type TestService } from './helpers.ts'
import { advanceClock, body, login, preview, profile, signUp, startExport, waitForExport, type TestUser } from './account-helpers.ts'

/**
 * Extension `credit_order` (issue 21, decisions.md "Credits"): an export spends the credits that
 * expire first (subscription credits at the period's end, each purchased lot at its own date,
 * never-expiring credits last), says which balances paid, and the profile lists the balances in
 * the order they will be spent.
 */

let svc: TestService
beforeAll(async () => {
  svc = await startTestService()
})
afterAll(async () => {
  await svc?.close()
})

const DAY_MS = 86_400_000

interface ChargedFrom {
  subscription: number
  purchased: number
}
interface Started {
  search_id: number
  lead_count: number
  credits_charged: number
  charged_from: ChargedFrom
}
interface CreditLot {
  source: 'subscription' | 'purchased'
  credits: number
  expires_at: string | null
}
type Errors = { detail: string; errors: Record<string, string[]> }

/** The test hook, with the fields this extension added: a lot that never expires (null), the period's end. */
async function grant(
  u: TestUser,
  g: {
    subscription?: number
    purchased?: number
    purchased_expires_in_days?: number | null
    period_ends_in_days?: number | null
    plan_type?: string
  },
) {
  const res = await svc.request('/api/_test/grant-credits/', { method: 'POST', token: u.access, json: g })
  expect(res.status, await res.clone().text()).toBe(200)
}

async function exportOf(u: TestUser, maxLeads: number, query = ''): Promise<Started> {
  const p = await preview(svc, u.access, query)
  expect(p.totalCount).toBeGreaterThanOrEqual(maxLeads)
  const res = await startExport(svc, u.access, { search_id: p.search_id, export_format: 'csv', max_leads: maxLeads })
  expect(res.status, await res.clone().text()).toBe(202)
  return body<Started>(res)
}

const creditLots = async (u: TestUser) => (await profile(svc, u.access)).credit_lots as CreditLot[]

/** What the history says paid an export: the entry and the list agree. */
async function historyChargedFrom(u: TestUser, id: number): Promise<ChargedFrom> {
  const entry = await body<{ charged_from: ChargedFrom; credits_charged: number }>(
    await svc.request(`/api/user/search-history/${id}/`, { token: u.access }),
  )
  const list = await body<{ results: { search_id: number; charged_from: ChargedFrom }[] }>(
    await svc.request('/api/user/search-history/?page_size=100', { token: u.access }),
  )
  expect(list.results.find((e) => e.search_id === id)?.charged_from).toEqual(entry.charged_from)
  expect(entry.charged_from.subscription + entry.charged_from.purchased).toBe(entry.credits_charged)
  return entry.charged_from
}

const inDays = (iso: string | null) =>
  iso === null ? null : Math.round((new Date(iso).getTime() - svc.deps.clock.now().getTime()) / DAY_MS)

describe('capabilities and schema', () => {
  it('lists credit_order and documents charged_from and credit_lots as extension fields', async () => {
    const u = await signUp(svc)
    const caps = await body<Record<string, unknown>>(await svc.request('/api/capabilities/', { token: u.access }))
    expect(caps.credit_order).toEqual({ version: 1, order: 'earliest_expiry_first' })
    type Props = Record<string, { 'x-extension'?: boolean }>
    const schema = await body<{ components: { schemas: Record<string, { properties: Props }> } }>(await svc.request('/api/schema/'))
    const { schemas } = schema.components
    expect(schemas.ExportStarted!.properties.charged_from!['x-extension']).toBe(true)
    expect(schemas.HistoryEntry!.properties.charged_from!['x-extension']).toBe(true)
    expect(schemas.DeltaExportResult!.properties.charged_from!['x-extension']).toBe(true)
    expect(schemas.User!.properties.credit_lots!['x-extension']).toBe(true)
  })
})

// before any test moves the clock: the seed's dates are relative to the service's start
describe('the demo account', () => {
  it('has 500 purchased credits expiring within 7 days, spent first, and a history charged by the same rule', async () => {
    const { access } = await login(svc, 'demo@example.com', 'demo-password')
    const me = await profile(svc, access)
    expect(me).toMatchObject({ purchased_credits_available: 2500, purchased_credits_expiring_soon: 500 })
    expect((me.credit_lots as CreditLot[]).map((l) => [l.source, l.credits])).toEqual([
      ['purchased', 500],
      ['subscription', me.remaining_credits],
      ['purchased', 2000],
    ])
    const history = await body<{ results: { credits_charged: number; charged_from: ChargedFrom; created_at: string }[] }>(
      await svc.request('/api/user/search-history/?page_size=100', { token: access }),
    )
    expect(history.results.length).toBeGreaterThan(0)
    for (const e of history.results) {
      expect(e.charged_from.subscription + e.charged_from.purchased).toBe(e.credits_charged)
      // every seeded export had a purchased lot expiring before the period's end: the lots paid
      expect(e.charged_from.purchased).toBe(e.credits_charged)
    }
  })
})

describe('charging order: the credits that expire first', () => {
  it('spends a purchased lot expiring in 3 days before a subscription ending in 20 (an export capped at 500 paid by the lot)', async () => {
    const u = await signUp(svc)
    await grant(u, { subscription: 1000, period_ends_in_days: 20, plan_type: 'Pro' })
    await grant(u, { purchased: 500, purchased_expires_in_days: 3 })
    const before = await profile(svc, u.access)
    expect(before).toMatchObject({ remaining_credits: 1000, purchased_credits_available: 500, purchased_credits_expiring_soon: 500 })
    expect((before.credit_lots as CreditLot[]).map((l) => [l.source, l.credits, inDays(l.expires_at)])).toEqual([
      ['purchased', 500, 3],
      ['subscription', 1000, 20],
    ])
    expect(inDays(new Date((before.current_period_end as number) * 1000).toISOString())).toBe(20)

    const started = await exportOf(u, 500)
    expect(started).toMatchObject({ lead_count: 500, credits_charged: 500, charged_from: { subscription: 0, purchased: 500 } })
    expect(await historyChargedFrom(u, started.search_id)).toEqual({ subscription: 0, purchased: 500 })
    const after = await profile(svc, u.access)
    expect(after).toMatchObject({ remaining_credits: 1000, purchased_credits_available: 0, purchased_credits_expiring_soon: 0 })
    expect((after.credit_lots as CreditLot[]).map((l) => [l.source, l.credits])).toEqual([['subscription', 1000]])

    // the next export, the lot spent, is paid by the subscription
    const next = await exportOf(u, 30)
    expect(next.charged_from).toEqual({ subscription: 30, purchased: 0 })
    expect((await profile(svc, u.access)).remaining_credits).toBe(970)
  })

  it('spends a subscription ending tomorrow before a lot expiring in 30 days, and goes on into the lot', async () => {
    const u = await signUp(svc)
    await grant(u, { subscription: 50, period_ends_in_days: 1 })
    await grant(u, { purchased: 100, purchased_expires_in_days: 30 })
    expect((await creditLots(u)).map((l) => [l.source, l.credits, inDays(l.expires_at)])).toEqual([
      ['subscription', 50, 1],
      ['purchased', 100, 30],
    ])
    const started = await exportOf(u, 70)
    expect(started.charged_from).toEqual({ subscription: 50, purchased: 20 })
    expect(await historyChargedFrom(u, started.search_id)).toEqual({ subscription: 50, purchased: 20 })
    const after = await profile(svc, u.access)
    expect(after).toMatchObject({ remaining_credits: 0, purchased_credits_available: 80, purchased_credits_expiring_soon: 0 })
    expect((after.credit_lots as CreditLot[]).map((l) => [l.source, l.credits, inDays(l.expires_at)])).toEqual([['purchased', 80, 30]])
  })

  it('spends lots that never expire last, after the subscription and every dated lot; expired lots never', async () => {
    const u = await signUp(svc)
    await grant(u, { purchased: 100, purchased_expires_in_days: null }) // bought first, never expires
    await grant(u, { subscription: 40, period_ends_in_days: 20 })
    await grant(u, { purchased: 30, purchased_expires_in_days: 60 })
    await grant(u, { purchased: 500, purchased_expires_in_days: -1 }) // expired
    const before = await profile(svc, u.access)
    expect(before).toMatchObject({ remaining_credits: 40, purchased_credits_available: 130, purchased_credits_expiring_soon: 0 })
    expect((before.credit_lots as CreditLot[]).map((l) => [l.source, l.credits, inDays(l.expires_at)])).toEqual([
      ['subscription', 40, 20],
      ['purchased', 30, 60],
      ['purchased', 100, null],
    ])

    const started = await exportOf(u, 80)
    expect(started.charged_from).toEqual({ subscription: 40, purchased: 40 })
    expect(await historyChargedFrom(u, started.search_id)).toEqual({ subscription: 40, purchased: 40 })
    const after = await profile(svc, u.access)
    expect(after).toMatchObject({ remaining_credits: 0, purchased_credits_available: 90 })
    expect((after.credit_lots as CreditLot[]).map((l) => [l.source, l.credits, l.expires_at])).toEqual([['purchased', 90, null]])
    const lots = await svc.deps.db.query<{ remaining: number; expires_at: Date | null }>(
      'SELECT remaining, expires_at FROM credit_lots WHERE user_id = $1 ORDER BY id',
      [u.id],
    )
    expect(lots.rows.map((l) => l.remaining)).toEqual([90, 0, 500]) // the expired lot untouched
  })

  it('counts a subscription without a period end as never expiring: after dated lots, before later-bought undated ones', async () => {
    const u = await signUp(svc)
    await grant(u, { subscription: 20, period_ends_in_days: null })
    await grant(u, { purchased: 50, purchased_expires_in_days: null })
    await grant(u, { purchased: 10, purchased_expires_in_days: 5 })
    const me = await profile(svc, u.access)
    expect(me.current_period_end).toBeNull()
    expect((me.credit_lots as CreditLot[]).map((l) => [l.source, l.credits, inDays(l.expires_at)])).toEqual([
      ['purchased', 10, 5],
      ['subscription', 20, null],
      ['purchased', 50, null],
    ])
    expect((await exportOf(u, 15)).charged_from).toEqual({ subscription: 5, purchased: 10 })
    expect((await exportOf(u, 30)).charged_from).toEqual({ subscription: 15, purchased: 15 })
    expect(await profile(svc, u.access)).toMatchObject({ remaining_credits: 0, purchased_credits_available: 35 })
  })

  it('follows the clock: a lot that has expired is no longer spent, a renewed period moves the subscription', async () => {
    const u = await signUp(svc)
    await grant(u, { subscription: 100, period_ends_in_days: 10, plan_type: 'Starter' })
    await grant(u, { purchased: 40, purchased_expires_in_days: 3 })
    await grant(u, { purchased: 60, purchased_expires_in_days: 15 })
    const later = async (days: number) => {
      await advanceClock(svc, days * 86_400)
      u.access = (await login(svc, u.email, u.password)).access // the access token has expired meanwhile
    }
    await later(4) // the 3-day lot has expired unspent
    expect((await creditLots(u)).map((l) => [l.source, l.credits])).toEqual([
      ['subscription', 100],
      ['purchased', 60],
    ])
    expect((await exportOf(u, 10)).charged_from).toEqual({ subscription: 10, purchased: 0 })
    await later(7) // the period renewed: Starter's 1,000 credits until a month later
    const lots = await creditLots(u)
    expect(lots.map((l) => [l.source, l.credits])).toEqual([
      ['purchased', 60],
      ['subscription', 1000],
    ])
    expect((await exportOf(u, 70)).charged_from).toEqual({ subscription: 10, purchased: 60 })
  })

  it('a failed export keeps its charge and is retried at no new charge', async () => {
    const u = await signUp(svc)
    await grant(u, { subscription: 100, period_ends_in_days: 20 })
    await grant(u, { purchased: 10, purchased_expires_in_days: 2 })
    await svc.request('/api/_test/fail-next-export/', { method: 'POST', token: u.access })
    const started = await exportOf(u, 25)
    expect(started.charged_from).toEqual({ subscription: 15, purchased: 10 })
    expect((await waitForExport(svc, u.access, started.search_id)).status).toBe('FAILED')
    const retry = await svc.request(`/api/user/search-history/${started.search_id}/retry/`, { method: 'POST', token: u.access, json: {} })
    expect(retry.status).toBe(202)
    expect((await waitForExport(svc, u.access, started.search_id)).status).toBe('COMPLETED')
    expect(await historyChargedFrom(u, started.search_id)).toEqual({ subscription: 15, purchased: 10 })
    expect(await profile(svc, u.access)).toMatchObject({ remaining_credits: 85, purchased_credits_available: 0 })
  })

  it('a started fresh-data export says which balances paid, in the same order', async () => {
    const u = await signUp(svc)
    await grant(u, { subscription: 1000, period_ends_in_days: 20, plan_type: 'Pro' })
    const p = await preview(svc, u.access, 'countries=NL')
    const res = await startExport(svc, u.access, { search_id: p.search_id, export_format: 'csv' })
    expect(res.status).toBe(202)
    const original = await body<Started>(res)
    expect(original.charged_from).toEqual({ subscription: p.totalCount, purchased: 0 })
    await waitForExport(svc, u.access, original.search_id)
    await grant(u, { purchased: 4, purchased_expires_in_days: 2 })
    await advanceClock(svc, 60)
    const added = await svc.request('/api/_test/new-companies/', { method: 'POST', token: u.access, json: { count: 9, countries: ['NL'] } })
    expect(added.status).toBe(201)

    const dry = await body<Record<string, unknown>>(
      await svc.request(`/api/user/search-history/${original.search_id}/download-delta/`, {
        method: 'POST',
        token: u.access,
        json: { dry_run: true },
      }),
    )
    expect(dry).toMatchObject({ status: 'validated', required_credits: 9 })
    expect(dry.charged_from).toBeUndefined() // nothing was charged
    const go = await svc.request(`/api/user/search-history/${original.search_id}/download-delta/`, {
      method: 'POST',
      token: u.access,
      json: {},
    })
    expect(go.status).toBe(202)
    const started = await body<{ status: string; search_id: number; charged_from: ChargedFrom }>(go)
    expect(started).toMatchObject({ status: 'started', charged_from: { subscription: 5, purchased: 4 } })
    expect(await historyChargedFrom(u, started.search_id)).toEqual({ subscription: 5, purchased: 4 })
  })
})

describe('charging order under concurrency', () => {
  it('20 concurrent exports over several lots: each charge takes the earliest expiry first, no lot overspent or skipped', async () => {
    const u = await signUp(svc)
    // in spending order: 30 (2 days), subscription 25 (period ends in 5 days), 40 (7 days), 50 (30 days), 60 (never)
    await grant(u, { purchased: 60, purchased_expires_in_days: null })
    await grant(u, { purchased: 50, purchased_expires_in_days: 30 })
    await grant(u, { purchased: 40, purchased_expires_in_days: 7 })
    await grant(u, { purchased: 30, purchased_expires_in_days: 2 })
    await grant(u, { purchased: 1000, purchased_expires_in_days: -1 }) // expired: never spent
    await grant(u, { subscription: 25, period_ends_in_days: 5 })
    const initial = await creditLots(u)
    expect(initial.map((l) => [l.source, l.credits])).toEqual([
      ['purchased', 30],
      ['subscription', 25],
      ['purchased', 40],
      ['purchased', 50],
      ['purchased', 60],
    ])
    const lotIds = (await svc.deps.db.query<{ id: number }>('SELECT id FROM credit_lots WHERE user_id = $1 ORDER BY id', [u.id])).rows.map(
      (r) => r.id,
    )
    // lotIds in grant order: never, 30 days, 7 days, 2 days, expired; the same lots in spending order:
    const spendingOrderIds = [lotIds[3], null, lotIds[2], lotIds[1], lotIds[0]]
    const available = initial.reduce((n, l) => n + l.credits, 0) // 205

    const p = await preview(svc, u.access, '')
    const caps = [17, 5, 23, 9, 12, 21, 6, 14, 19, 8, 24, 11, 7, 16, 20, 10, 22, 13, 18, 15] // 290 asked, 205 there
    expect(p.totalCount).toBeGreaterThan(Math.max(...caps))
    const answers = await Promise.all(
      caps.map(async (max_leads) => {
        const res = await startExport(svc, u.access, { search_id: p.search_id, export_format: 'csv', max_leads })
        return { max_leads, status: res.status, body: await body<Started & { validation_code?: string }>(res) }
      }),
    )
    const accepted = answers.filter((a) => a.status === 202).map((a) => a.body)
    const refused = answers.filter((a) => a.status !== 202)
    expect(refused.every((a) => a.status === 403 && a.body.validation_code === 'insufficient_credits')).toBe(true)
    expect(accepted.length).toBeGreaterThan(0)
    expect(refused.length).toBeGreaterThan(0)

    // the exports were charged one after the other (the account row is the lock), in id order: replaying
    // the initial balances in spending order must give each its charge exactly
    const balances = initial.map((l) => l.credits)
    let spent = 0
    for (const e of accepted.sort((a, b) => a.search_id - b.search_id)) {
      expect(e.credits_charged).toBe(e.lead_count)
      let rest = e.credits_charged
      const expected: ChargedFrom = { subscription: 0, purchased: 0 }
      for (const [i, l] of initial.entries()) {
        const take = Math.min(balances[i]!, rest)
        balances[i]! -= take
        expected[l.source] += take
        rest -= take
      }
      expect(rest).toBe(0)
      expect(e.charged_from, `export ${e.search_id}`).toEqual(expected)
      expect(await historyChargedFrom(u, e.search_id)).toEqual(expected)
      spent += e.credits_charged
    }
    // every refused export asked more than what was left when it came: at the end, more than what is left
    for (const r of refused) expect(r.max_leads).toBeGreaterThan(available - spent)

    // the balances afterwards: spent in order, a prefix used up, at most one in part, the rest untouched
    const lots = await svc.deps.db.query<{ id: number; amount: number; remaining: number }>(
      'SELECT id, amount, remaining FROM credit_lots WHERE user_id = $1',
      [u.id],
    )
    const me = await profile(svc, u.access)
    const after = spendingOrderIds.map((id) => (id === null ? me.remaining_credits : lots.rows.find((l) => l.id === id)!.remaining))
    expect(after).toEqual(balances)
    expect(after.every((n) => n >= 0)).toBe(true)
    const firstLeft = after.findIndex((n) => n > 0)
    if (firstLeft >= 0) expect(after.slice(firstLeft + 1)).toEqual(initial.slice(firstLeft + 1).map((l) => l.credits)) // none skipped
    expect(lots.rows.find((l) => l.id === lotIds[4])!.remaining).toBe(1000)
    expect(initial.reduce((n, l) => n + l.credits, 0) - after.reduce((n, l) => n + l, 0)).toBe(spent)

    // refused ones charged nothing: one charge per accepted export
    const charges = await svc.deps.db.query<{ n: number; total: number }>(
      'SELECT count(*)::int AS n, coalesce(sum(from_subscription + from_purchased), 0)::int AS total FROM credit_charges WHERE user_id = $1',
      [u.id],
    )
    expect(charges.rows[0]).toEqual({ n: accepted.length, total: spent })
    expect(me.purchased_credits_available + me.remaining_credits).toBe(available - spent)
  })
})

describe('field limits (interface part 8)', () => {
  const signUpWith = (extra: Record<string, unknown>) =>
    svc.request('/api/auth/sign-up/', {
      method: 'POST',
      json: { email: `limits-${Math.random().toString(36).slice(2)}@example.com`, password: 'long enough', ...extra },
    })

  it.each([
    ['first_name', { first_name: 'n'.repeat(151) }],
    ['first_name', { first_name: 'n'.repeat(5000) }],
    ['last_name', { last_name: 'n'.repeat(151) }],
    ['email', { email: `${'a'.repeat(243)}@example.com` }], // 255 characters
  ])('sign-up refuses %s over its limit with 400 on that field', async (field, extra) => {
    const res = await signUpWith(extra)
    expect(res.status).toBe(400)
    const b = await body<Errors & { error_codes?: Record<string, { code: string }[]> }>(res)
    expect(Object.keys(b.errors)).toEqual([field])
  })

  it('sign-up accepts names of 150 and an email of 254 characters', async () => {
    const res = await signUpWith({ email: `${'b'.repeat(242)}@example.com`, first_name: 'n'.repeat(150), last_name: 'm'.repeat(150) })
    expect(res.status).toBe(201)
  })

  it.each([
    ['first_name', { first_name: 'x'.repeat(151) }],
    ['last_name', { last_name: 'x'.repeat(151) }],
    ['email', { email: `${'e'.repeat(243)}@example.com`, current_password: 'correct horse battery' }],
  ])('profile PATCH refuses %s over its limit with 400 on that field, and changes nothing', async (field, extra) => {
    const u = await signUp(svc, { first_name: 'Ada' })
    const res = await svc.request('/api/user/profile/', { method: 'PATCH', token: u.access, json: extra })
    expect(res.status).toBe(400)
    expect(Object.keys((await body<Errors>(res)).errors)).toEqual([field])
    expect(await profile(svc, u.access)).toMatchObject({ first_name: 'Ada', last_name: '', email: u.email, pending_email: null })
  })

  it('the search name limit is the one capabilities advertise', async () => {
    const u = await signUp(svc)
    await grant(u, { subscription: 10 })
    const caps = await body<{ watched_searches: { name_max_length: number } }>(await svc.request('/api/capabilities/', { token: u.access }))
    const limit = caps.watched_searches.name_max_length
    expect(limit).toBe(80)
    const started = await exportOf(u, 1)
    const name = (n: number) =>
      svc.request(`/api/user/search-history/${started.search_id}/`, { method: 'PATCH', token: u.access, json: { name: 'n'.repeat(n) } })
    expect((await name(limit)).status).toBe(200)
    const over = await name(limit + 1)
    expect(over.status).toBe(400)
    expect(Object.keys((await body<Errors>(over)).errors)).toEqual(['name'])
  })
})
