import AxeBuilder from '@axe-core/playwright'
import { expect, test, type APIRequestContext, type Page } from '@playwright/test'
import { authHeaders, signInViaUi, signUpViaApi, type Account } from './helpers'

/**
 * Export history against the real reference service (test clock on): re-download, the 410 path once
 * the test clock passes the link's life, fresh data on an uncapped and on a capped export (the two
 * charging rules of interface 4.3), and a retried failed export charged once.
 * Balances and charges are read from the service itself.
 */

const DAY = 86_400

async function newAccount(request: APIRequestContext, planType = 'Starter', subscription = 50_000): Promise<Account> {
  const a = await signUpViaApi(request, { prefix: 'f3-h' })
  const granted = await api(request, a, 'POST', '/api/_test/grant-credits/', { plan_type: planType, subscription })
  expect(granted.status).toBe(200)
  return a
}

/**
 * A call with a fresh login; once more on 401, because the service clock is shared by every test of
 * the lane and another test may move it past the token's life between login and call.
 */
async function api<T>(
  request: APIRequestContext,
  a: Account,
  method: 'GET' | 'POST',
  path: string,
  data?: unknown,
): Promise<{ status: number; body: T }> {
  let res = await request.fetch(path, { method, data, headers: await authHeaders(request, a) })
  if (res.status() === 401) res = await request.fetch(path, { method, data, headers: await authHeaders(request, a) })
  const text = await res.text()
  return { status: res.status(), body: (text ? JSON.parse(text) : undefined) as T }
}

interface Profile {
  remaining_credits: number | null
  purchased_credits_available: number
  subscription_plan: { link_expiration_days: number } | null
}
async function balance(request: APIRequestContext, a: Account) {
  const p = (await api<Profile>(request, a, 'GET', '/api/user/profile/')).body
  return (p.remaining_credits ?? 0) + p.purchased_credits_available
}

interface Entry {
  search_id: number
  status: string
  lead_count: number
  credits_charged: number
  capped: boolean
  filename: string | null
  expires_at: string | null
}

async function waitForStatus(request: APIRequestContext, a: Account, id: number, wanted: 'COMPLETED' | 'FAILED') {
  await expect
    .poll(async () => (await api<{ status: string }>(request, a, 'GET', `/api/download-status/${id}/`)).body.status.toUpperCase(), {
      timeout: 45_000,
      intervals: [300, 500, 1000],
    })
    .toBe(wanted)
  return (await api<Entry>(request, a, 'GET', `/api/user/search-history/${id}/`)).body
}

/** Preview then export, through the API (the search page is F2's and has its own tests). */
async function exportVia(request: APIRequestContext, a: Account, query: string, maxLeads?: number) {
  const preview = await api<{ totalCount: number; search_id: number }>(request, a, 'GET', `/api/companies/?${query}`)
  expect(preview.status).toBe(200)
  const started = await api<{ search_id: number }>(request, a, 'POST', '/api/download-csv/', {
    search_id: preview.body.search_id,
    export_format: 'csv',
    ...(maxLeads ? { max_leads: maxLeads } : {}),
  })
  expect(started.status).toBe(202)
  return { id: started.body.search_id, total: preview.body.totalCount }
}

async function signIn(page: Page, a: Account, next = '/history') {
  await signInViaUi(page, a, { next })
  await page.waitForURL((url) => url.pathname === next)
}

const entryCard = (page: Page, id: number) => page.getByRole('article', { name: new RegExp(`^Export #${id}\\b`) })

test('re-download a completed export, then see the 410 path once the test clock passes its link', async ({ page, request }) => {
  const a = await newAccount(request)
  const { id } = await exportVia(request, a, 'countries=IL&email=true')
  const entry = await waitForStatus(request, a, id, 'COMPLETED')
  expect(entry.filename).toBeTruthy()

  await signIn(page, a)
  const card = entryCard(page, id)
  await expect(card.getByText('Completed')).toBeVisible()
  await expect(card.getByText('Israel')).toBeVisible()

  const downloadPromise = page.waitForEvent('download')
  await card.getByRole('button', { name: 'Download again' }).click()
  const download = await downloadPromise
  expect(download.suggestedFilename()).toBe(entry.filename)
  const text = await (await download.createReadStream()).toArray()
  const lines = Buffer.concat(text).toString('utf8').trim().split(/\r?\n/)
  expect(lines.length).toBeGreaterThan(1) // header and lead rows

  // move the service's clock past the plan's link life: the descriptor now answers 410
  const days = (await api<Profile>(request, a, 'GET', '/api/user/profile/')).body.subscription_plan!.link_expiration_days
  expect(
    (await request.post('/api/_test/clock/', { data: { advance_seconds: (days + 1) * DAY }, headers: await authHeaders(request, a) })).ok(),
  ).toBe(true)
  expect((await api(request, a, 'GET', `/api/download-completed-csv/${id}/`)).status).toBe(410)

  // the browser's clock has not moved: only the service's 410 can tell the page
  await card.getByRole('button', { name: 'Download again' }).click()
  await expect(card.getByText('This download link has expired')).toBeVisible()
  await expect(card.getByText(/The file was available until/)).toBeVisible()
  await expect(card.getByRole('button', { name: 'Download again' })).toHaveCount(0)
  await expect(card.getByRole('button', { name: 'Fresh data only' })).toBeVisible()
})

test('fresh data on an uncapped export charges only the leads created since (rule 1)', async ({ page, request }) => {
  const a = await newAccount(request)
  const { id } = await exportVia(request, a, 'countries=TH')
  const original = await waitForStatus(request, a, id, 'COMPLETED')
  expect(original.capped).toBe(false)

  // companies created after the export, on a later tick of the service clock
  await request.post('/api/_test/clock/', { data: { advance_seconds: 60 }, headers: await authHeaders(request, a) })
  const added = await api(request, a, 'POST', '/api/_test/new-companies/', { count: 7, countries: ['TH'] })
  expect(added.status).toBeLessThan(300)
  const before = await balance(request, a)

  await signIn(page, a)
  await entryCard(page, id).getByRole('button', { name: 'Fresh data only' }).click()
  const dialog = page.getByRole('dialog', { name: `Fresh data for export #${id}` })
  await expect(dialog.getByText(/7 new leads since your export of/)).toBeVisible()
  await expect(dialog.getByText('Nothing has been charged yet.')).toBeVisible()
  const axe = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']).analyze()
  expect(axe.violations.map((v) => v.id)).toEqual([])
  // the dry run charged nothing
  expect(await balance(request, a)).toBe(before)

  await dialog.getByRole('button', { name: 'Export 7 leads for 7 credits' }).click()
  await page.waitForURL(/\/exports\/\d+$/)
  const newId = Number(new URL(page.url()).pathname.split('/').pop())
  expect(newId).not.toBe(id)
  const delta = await waitForStatus(request, a, newId, 'COMPLETED')
  expect(delta.lead_count).toBe(7)
  expect(delta.credits_charged).toBe(7)
  expect(await balance(request, a)).toBe(before - 7)
})

test('fresh data on a capped export: full expansion, charged the current total minus what was paid (rule 2)', async ({ page, request }) => {
  const a = await newAccount(request)
  const cap = 10
  const { id, total } = await exportVia(request, a, 'countries=ES&website=true', cap)
  const original = await waitForStatus(request, a, id, 'COMPLETED')
  expect(original.capped).toBe(true)
  expect(original.credits_charged).toBe(cap)
  const before = await balance(request, a)
  const expected = total - cap

  await signIn(page, a)
  await entryCard(page, id).getByRole('button', { name: 'Fresh data only' }).click()
  const dialog = page.getByRole('dialog', { name: `Fresh data for export #${id}` })
  await expect(dialog.getByText(/was capped at 10 leads/)).toBeVisible()
  const fmt = new Intl.NumberFormat('en')
  await expect(dialog.locator('dt', { hasText: 'Credits required' }).locator('+ dd')).toHaveText(fmt.format(expected))
  await expect(dialog.locator('dt', { hasText: 'Leads matching now' }).locator('+ dd')).toHaveText(fmt.format(total))
  await expect(dialog.locator('dt', { hasText: 'Original export capped' }).locator('+ dd')).toHaveText('Yes')
  expect(await balance(request, a)).toBe(before)

  await dialog.getByRole('button', { name: new RegExp(`^Export ${fmt.format(total)} leads? for ${fmt.format(expected)} credits$`) }).click()
  await page.waitForURL(/\/exports\/\d+$/)
  const newId = Number(new URL(page.url()).pathname.split('/').pop())
  const delta = await waitForStatus(request, a, newId, 'COMPLETED')
  expect(delta.lead_count).toBe(total)
  expect(delta.credits_charged).toBe(expected)
  expect(await balance(request, a)).toBe(before - expected)
})

test('a plan without fresh exports is explained, with the way to plans', async ({ page, request }) => {
  const a = await newAccount(request, 'Free', 100)
  const { id } = await exportVia(request, a, 'countries=GB&phone_number=true', 5)
  await waitForStatus(request, a, id, 'COMPLETED')
  await signIn(page, a)
  const card = entryCard(page, id)
  await expect(card.getByText('Your plan does not include fresh-data exports.')).toBeVisible()
  await expect(card.getByRole('link', { name: 'See plans' })).toHaveAttribute('href', '/plans')
  // the profile already says no: no button that would only earn a 403
  await expect(card.getByRole('button', { name: 'Download again' })).toBeVisible()
  await expect(card.getByRole('button', { name: 'Fresh data only' })).toHaveCount(0)
  // the service agrees: the dry run is refused with the verdict the dialog would show
  const verdict = await api<{ validation_code: string }>(request, a, 'POST', `/api/user/search-history/${id}/download-delta/`, {
    dry_run: true,
  })
  expect(verdict.status).toBe(403)
  expect(verdict.body.validation_code).toBe('fresh_exports_not_allowed')
})

test('retry a failed export without a second charge', async ({ page, request }) => {
  const a = await newAccount(request)
  expect((await api(request, a, 'POST', '/api/_test/fail-next-export/', {})).status).toBeLessThan(300)
  const before = await balance(request, a)
  const { id } = await exportVia(request, a, 'countries=FR&email=true', 25)
  const failed = await waitForStatus(request, a, id, 'FAILED')
  expect(failed.credits_charged).toBe(25)
  const afterCharge = await balance(request, a)
  expect(afterCharge).toBe(before - 25)

  await signIn(page, a)
  const card = entryCard(page, id)
  await expect(card.getByText('Failed')).toBeVisible()
  await card.getByRole('button', { name: 'Retry export' }).click()
  await page.waitForURL(`**/exports/${id}`)
  const done = await waitForStatus(request, a, id, 'COMPLETED')
  expect(done.lead_count).toBe(25)
  expect(done.credits_charged).toBe(25)
  expect(await balance(request, a)).toBe(afterCharge)
})
