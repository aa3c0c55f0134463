import { expect, test, type APIRequestContext, type Page } from '@playwright/test'
import { readFile } from 'node:fs/promises'
import { authHeaders, signInViaUi, signUpViaApi, type Account } from './helpers'

/**
 * The dashboard against a service that answers only what the interface promises (issue 20): this
 * lane's service runs with SERVICE_PROFILE=interface (playwright.config.ts): no capabilities, no
 * history list, export start answered 202 with no body, download-status `{status}` alone, retry 204,
 * opaque non-numeric ids (`s-12`), ratings as decimal strings, paginated county lists, a location
 * search with no body, 402 for too few credits. The journey must show no error box, no "unexpected
 * shape" text, no extension control, and start exactly one export per click.
 */

async function api<T>(
  request: APIRequestContext,
  a: Account,
  method: 'GET' | 'POST',
  path: string,
  data?: unknown,
): Promise<{ status: number; body: T }> {
  const res = await request.fetch(path, { method, data, headers: await authHeaders(request, a) })
  const text = await res.text()
  return { status: res.status(), body: (text ? JSON.parse(text) : undefined) as T }
}

async function balance(request: APIRequestContext, a: Account) {
  const p = (await api<{ remaining_credits: number | null; purchased_credits_available: number }>(request, a, 'GET', '/api/user/profile/'))
    .body
  return (p.remaining_credits ?? 0) + p.purchased_credits_available
}

/** Nothing on the page says an answer could not be read or a request failed. */
async function expectNoBreakage(page: Page) {
  await expect(page.getByText(/unexpected shape|could not read|Something went wrong|could not be loaded/i)).toHaveCount(0)
  await expect(page.locator('[role="alert"]').filter({ hasText: /error|failed to|could not/i })).toHaveCount(0)
}

async function pickCountry(page: Page, typed: string, name: string) {
  const box = page.getByRole('combobox', { name: 'Countries', exact: true })
  await box.click()
  await page.keyboard.type(typed, { delay: 20 })
  await page.getByRole('option', { name }).first().click()
  await page.keyboard.press('Escape')
}

async function previewCount(page: Page): Promise<number> {
  await expect(page.getByText('Updating…')).toHaveCount(0)
  const count = page.getByTestId('lead-count')
  // an API-style link (countries=TH) is resolved first; allow a loaded machine its time
  await expect(count).toBeVisible({ timeout: 30_000 })
  return Number(await count.getAttribute('data-count'))
}

test('the whole journey on a service with only the interface', async ({ page, request }) => {
  test.setTimeout(180_000)
  const a = await signUpViaApi(request, { prefix: 'iface' })
  expect((await api(request, a, 'POST', '/api/_test/grant-credits/', { plan_type: 'Pro', subscription: 5_000 })).status).toBe(200)
  // what this service is: the extension list and the history list are not there
  expect((await api(request, a, 'GET', '/api/capabilities/')).status).toBe(404)
  expect((await api(request, a, 'GET', '/api/user/search-history/')).status).toBe(404)

  // every request the dashboard sends, to check what it asked for
  const sent: { method: string; path: string; body: string | null }[] = []
  page.on('request', (r) => {
    const url = new URL(r.url())
    if (url.pathname.startsWith('/api/')) sent.push({ method: r.method(), path: url.pathname, body: r.postData() })
  })

  await signInViaUi(page, a, { next: '/search' })
  await page.waitForURL((u) => u.pathname === '/search')

  // search: count and sample (ratings arrive as strings, counties as a paginated list)
  await pickCountry(page, 'Thai', 'Thailand')
  const count = await previewCount(page)
  expect(count).toBeGreaterThan(0)
  await expect(page.getByRole('table').first()).toBeVisible()
  await expectNoBreakage(page)
  // coverage facets, file options and "leads you have" are extensions: not shown
  await expect(page.getByText(/Leave out leads you already have/i)).toHaveCount(0)

  // a county list answered as {count, next, previous, results} still fills the picker
  await page.getByRole('combobox', { name: 'Counties', exact: true }).click()
  await expect(page.getByRole('option').first()).toBeVisible()
  await page.keyboard.press('Escape')
  // the location search answers 200 with no body: said plainly, not an error
  await page.getByRole('combobox', { name: 'Find a place', exact: true }).click()
  await page.keyboard.type('Bang', { delay: 20 })
  await expect(page.getByText('This service does not find places by name: choose them from the lists below.')).toBeVisible()
  await page.keyboard.press('Escape')

  // cap the export so the charge is known exactly
  const cap = Math.min(count, 40)
  await page.getByLabel('Most leads to export').fill(String(cap))
  await expect(page.getByTestId('lead-count')).toBeVisible()

  // export: one click, one charge, the page moves to the export named by the preview's own id
  const before = await balance(request, a)
  await page.getByRole('button', { name: 'Export…' }).click()
  const dialog = page.getByRole('dialog')
  const start = dialog.getByRole('button', { name: 'Start export' })
  await expect(start).toBeEnabled()
  await start.dblclick()
  await page.waitForURL(/\/exports\/s-\d+$/)
  const exportId = decodeURIComponent(page.url().split('/').pop()!)
  await expect(page.getByText('Ready to download')).toBeVisible({ timeout: 60_000 })
  expect(await balance(request, a)).toBe(before - cap)
  const starts = sent.filter((r) => r.method === 'POST' && r.path === '/api/download-csv/')
  expect(starts).toHaveLength(1)
  // nothing of an extension was sent
  expect(JSON.parse(starts[0]!.body!)).toEqual({ search_id: expect.stringMatching(/^s-\d+$/), export_format: 'csv', max_leads: cap })
  await expectNoBreakage(page)

  // download: the file has the capped rows
  const button = page.getByRole('button', { name: /^Download / })
  const [download] = await Promise.all([page.waitForEvent('download'), button.click()])
  const csv = (await readFile(await download.path(), 'utf8'))
    .replace(/^\uFEFF/, '')
    .trim()
    .split(/\r?\n/)
  expect(csv.length - 1).toBe(cap)

  // history: this browser's own record, said as such, with the export's status from download-status
  await page.getByRole('link', { name: 'History' }).first().click()
  await page.waitForURL('**/history')
  await expect(page.getByText('Exports started in this browser')).toBeVisible()
  const card = page.getByRole('article', { name: new RegExp(`^Export #${exportId}\\b`) })
  await expect(card.getByText('Completed')).toBeVisible()
  await expect(card.getByText('Thailand')).toBeVisible()
  const [again] = await Promise.all([page.waitForEvent('download'), card.getByRole('button', { name: 'Download again' }).click()])
  expect(await again.path()).toBeTruthy()
  await expectNoBreakage(page)

  // fresh data: new companies appear, the dry run says how many, the confirmation starts (and charges) once
  expect((await api(request, a, 'POST', '/api/_test/new-companies/', { count: 5, countries: ['TH'] })).status).toBe(201)
  await card.getByRole('button', { name: 'Fresh data only' }).click()
  const fresh = page.getByRole('dialog', { name: `Fresh data for export #${exportId}` })
  const go = fresh.getByRole('button', { name: /^Export [\d,]+ leads? for [\d,]+ credits?$/ })
  await expect(go).toBeVisible()
  const beforeFresh = await balance(request, a)
  await go.click()
  await page.waitForURL(/\/exports\/s-\d+$/)
  expect(decodeURIComponent(page.url().split('/').pop()!)).not.toBe(exportId)
  await expect(page.getByText('Ready to download')).toBeVisible({ timeout: 60_000 })
  expect(await balance(request, a)).toBeLessThan(beforeFresh)

  // a failed export, retried from its page at no new charge
  expect((await api(request, a, 'POST', '/api/_test/fail-next-export/', {})).status).toBeLessThan(300)
  await page.goto('/search?countries=TH&cap=5')
  await previewCount(page)
  const beforeFailed = await balance(request, a)
  await page.getByRole('button', { name: 'Export…' }).click()
  await page.getByRole('dialog').getByRole('button', { name: 'Start export' }).click()
  await page.waitForURL(/\/exports\/s-\d+$/)
  await expect(page.getByRole('button', { name: 'Retry export' })).toBeVisible({ timeout: 60_000 })
  expect(await balance(request, a)).toBe(beforeFailed - 5)
  await page.getByRole('button', { name: 'Retry export' }).click()
  await expect(page.getByText('Ready to download')).toBeVisible({ timeout: 60_000 })
  expect(await balance(request, a)).toBe(beforeFailed - 5)
  const retries = sent.filter((r) => r.method === 'POST' && r.path.endsWith('/retry/'))
  expect(retries).toHaveLength(1)
  expect(retries[0]!.body).toBe('{}')

  // account and plans: no error box; the usage chart counts this browser's exports and says so
  await page.goto('/account')
  await expect(page.getByRole('heading', { name: 'Account', level: 1 })).toBeVisible()
  await expect(page.getByText('the chart counts the exports started in this browser', { exact: false })).toBeVisible()
  await expectNoBreakage(page)
  await page.goto('/plans')
  await expect(page.getByRole('heading', { level: 2 }).first()).toBeVisible()
  await expectNoBreakage(page)
  expect(sent.some((r) => r.path === '/api/plans')).toBe(true)

  // API keys: no scope or cap controls; create sends only the interface's fields; revoke
  await page.goto('/api-keys')
  await expect(page.getByRole('button', { name: 'Create key' })).toBeVisible()
  await expect(page.getByRole('group', { name: 'What the key may do' })).toHaveCount(0)
  await page.getByRole('button', { name: 'Create key' }).click()
  const created = page.getByRole('dialog', { name: 'Your new API key' })
  await expect(created.getByLabel('Full API key')).toBeVisible()
  await created.getByRole('checkbox', { name: /I have copied the key/ }).check()
  await created.getByRole('button', { name: 'Done' }).click()
  const keyCreate = sent.filter((r) => r.method === 'POST' && r.path === '/api/user/api-keys/')
  expect(keyCreate).toHaveLength(1)
  expect(JSON.parse(keyCreate[0]!.body ?? '{}')).toEqual({})
  await page
    .getByRole('button', { name: /^Revoke key / })
    .first()
    .click()
  await page.getByRole('dialog').getByRole('button', { name: 'Revoke key' }).click()
  await expect(page.getByText(/^Key .+ was revoked\.$/)).toBeVisible()
  await expect(page.getByText('You have no API keys yet.')).toBeVisible()
  await expectNoBreakage(page)

  // the whole journey asked for no extension endpoint but the capabilities (which answered 404)
  expect(sent.filter((r) => /\/api\/(companies\/(facets|owned)|user\/(webhooks|password)|auth\/logout)/.test(r.path))).toEqual([])
})

test('too few credits: a bare 402 is "not enough credits" in the service’s words, and nothing is charged', async ({ page, request }) => {
  const a = await signUpViaApi(request, { prefix: 'iface-402' })
  expect((await api(request, a, 'POST', '/api/_test/grant-credits/', { plan_type: 'Pro', subscription: 3 })).status).toBe(200)
  await signInViaUi(page, a, { next: '/search' })
  await page.waitForURL((u) => u.pathname === '/search')
  await page.goto('/search?countries=TH&cap=2')
  await previewCount(page)
  // another tab spends the balance meanwhile: the dialog's figures are stale, the service refuses
  const preview = await api<{ search_id: string }>(request, a, 'GET', '/api/companies/?countries=TH')
  expect(
    (await api(request, a, 'POST', '/api/download-csv/', { search_id: preview.body.search_id, export_format: 'csv', max_leads: 2 })).status,
  ).toBe(202)
  await page.getByRole('button', { name: 'Export…' }).click()
  await page.getByRole('dialog').getByRole('button', { name: 'Start export' }).click()
  const alert = page.getByRole('dialog').getByRole('alert')
  await expect(alert).toContainText('Not enough credits')
  await expect(page.getByText(/not allowed/i)).toHaveCount(0)
  expect(await balance(request, a)).toBe(1)
})
