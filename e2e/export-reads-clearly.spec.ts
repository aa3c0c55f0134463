import { readFileSync } from 'node:fs'
import { expect, test, type APIRequestContext, type Page } from '@playwright/test'
import { advanceClock, apiAs, axeCheck, grantCredits, signInViaUi, signUpViaApi, type Account } from './helpers'

/**
 * Issue 25, part G: the export confirmation and the export page read clearly, in every language and
 * at 360 px. The confirmation names the file's columns and leaves its labels room; Start lands on the
 * export page as soon as the service answers, with the focus on its heading; an expired link says so
 * and offers fresh data; the file's language stands uninflected in Polish. Real service, test clock on.
 */

const DAY = 86_400
const exportStrings = (lng: string) => JSON.parse(readFileSync(`locales/${lng}/exports.json`, 'utf8')) as Record<string, string>
const WIDTHS = [1280, 360] as const
const viewport = (width: number) => ({ width, height: width === 360 ? 800 : 900 })

async function newAccount(request: APIRequestContext, prefix: string, preferred_language = 'en', plan_type = 'Pro'): Promise<Account> {
  const a = await signUpViaApi(request, { prefix, preferred_language })
  await grantCredits(request, a, { plan_type, subscription: 100_000 })
  return a
}

/** An export of a search through the API (the page under test is not the search page). */
async function exportViaApi(request: APIRequestContext, a: Account, query: string, maxLeads: number): Promise<number> {
  const preview = await apiAs<{ search_id: number }>(request, a, 'GET', `/api/companies/?${query}`)
  expect(preview.status).toBe(200)
  const started = await apiAs<{ search_id: number }>(request, a, 'POST', '/api/download-csv/', {
    search_id: preview.body.search_id,
    export_format: 'csv',
    max_leads: maxLeads,
  })
  expect(started.status).toBe(202)
  return started.body.search_id
}

async function completed(request: APIRequestContext, a: Account, id: number) {
  await expect
    .poll(async () => (await apiAs<{ status: string }>(request, a, 'GET', `/api/download-status/${id}/`)).body.status, {
      timeout: 45_000,
      intervals: [300, 500, 1000],
    })
    .toBe('COMPLETED')
}

async function openConfirmation(page: Page) {
  await expect(page.getByTestId('lead-count').first()).toBeVisible()
  await expect(page.getByText('Updating…')).toHaveCount(0)
  await page.locator('[data-testid=export-open]:visible').first().click()
  const dialog = page.getByRole('dialog')
  await expect(dialog.getByTestId('export-cost')).toBeVisible()
  return dialog
}

/** Each label of the confirmation's list: its share of the list's width, and its lines of text. */
const labelBoxes = (page: Page) =>
  page
    .getByRole('dialog')
    .locator('dl')
    .evaluate((dl) => {
      const width = dl.getBoundingClientRect().width
      return [...dl.querySelectorAll('dt')].map((dt) => {
        const box = dt.getBoundingClientRect()
        return {
          text: dt.textContent ?? '',
          share: box.width / width,
          lines: Math.round(box.height / parseFloat(getComputedStyle(dt).lineHeight)),
        }
      })
    })

for (const width of WIDTHS) {
  test(`${width} px: the confirmation names the columns and leaves its labels room; Start lands on the export page at once`, async ({
    page,
    request,
  }) => {
    const a = await newAccount(request, `g-confirm-${width}`)
    // leads the account already has: the confirmation's longest label ("Credits saved by skipping…") shows
    await exportViaApi(request, a, 'countries=IL', 20)
    await page.setViewportSize(viewport(width))
    await signInViaUi(page, a, { next: '/search?country=IL' })

    await expect(page.getByTestId('lead-count').first()).toBeVisible()
    await page.getByRole('button', { name: /file/i }).click()
    await page.getByRole('button', { name: 'Choose columns' }).click()
    await page.getByRole('button', { name: 'Contact details only' }).click()
    await expect(page.getByTestId('columns-summary')).toHaveText('6 of 20')

    const dialog = await openConfirmation(page)
    await expect(dialog.getByTestId('export-columns')).toHaveText('6 of 20')
    const names = dialog.getByTestId('export-column-names')
    await expect(names.locator('summary')).toHaveText('Name, Email, Phone, and 3 more')
    await names.locator('summary').click()
    await expect(names.getByText('Name, Email, Phone, Website, City, and Country')).toBeVisible()
    await expect(dialog.getByTestId('export-saved')).toHaveText('20')
    // one wording of the link's life: "valid for" here, "valid until" on the export page
    await expect(dialog).toContainText('The download link is valid for 14 days.')

    const labels = await labelBoxes(page)
    expect(labels.map((l) => l.text)).toContain('Credits saved by skipping leads you have')
    for (const label of labels) expect(label.share, `the label "${label.text}"`).toBeGreaterThan(0.45)
    expect(labels.find((l) => l.text === 'Credits saved by skipping leads you have')!.lines).toBeLessThanOrEqual(2)
    await page.screenshot({ path: `test-results/screens/export-confirm-en-${width}.png` })

    // The page changes as soon as the start is answered: the balance, History and the owned counts it
    // makes stale are read again behind it (held here for 5 s), not before it.
    const hold = async (route: Parameters<Parameters<Page['route']>[1]>[0]) => {
      await new Promise((r) => setTimeout(r, 5_000))
      await route.continue().catch(() => undefined)
    }
    for (const url of ['**/api/user/profile/', '**/api/user/search-history/**', '**/api/companies/owned/**']) await page.route(url, hold)
    await dialog.getByRole('button', { name: 'Start export' }).click()
    await page.waitForURL(/\/exports\/\d+$/, { timeout: 3_500 })
    const heading = page.getByRole('heading', { level: 1, name: /^Export #\d+$/ })
    // the start button is gone: the focus is on the page's heading, not on <body>
    await expect(heading).toBeFocused()
    await expect(page.getByTestId('export-facts')).toContainText(/Charged: [\d,]+ credits/)
    await page.unrouteAll({ behavior: 'ignoreErrors' })

    // the file, one Tab from the heading
    const download = page.getByRole('button', { name: /^Download / })
    await expect(download).toBeVisible({ timeout: 30_000 })
    await expect(heading).toBeFocused()
    await page.keyboard.press('Tab')
    await expect(download).toBeFocused()
    await expect(page.getByText(/^The download link is valid until .+\.$/)).toBeVisible()
    await axeCheck(page, `export page (${width} px)`)
  })
}

for (const lng of ['en', 'he'] as const) {
  test(`${lng}: an expired link says when it expired and offers fresh data, not "Ready to download"`, async ({ page, request }) => {
    const t = exportStrings(lng)
    const history = JSON.parse(readFileSync(`locales/${lng}/history.json`, 'utf8')) as { delta: { title: string; notChargedYet: string } }
    // Starter's links last 7 days: the clock passes them well before the session's 14 days end
    const a = await newAccount(request, `g-expired-${lng}`, lng, 'Starter')
    const id = await exportViaApi(request, a, 'countries=IL', 10)
    await completed(request, a, id)
    await signInViaUi(page, a, { next: `/exports/${id}` })
    await expect(page.locator('html')).toHaveAttribute('lang', lng)
    await expect(page.getByRole('heading', { level: 1, name: t.pageTitle!.replace('{{id}}', String(id)) })).toBeVisible()
    const ready = page.getByRole('status').filter({ hasText: t.status_completed! })
    await expect(ready).toBeVisible()

    // the service's clock passes the link's life; the browser's has not moved: the service's 410 tells
    const days = (await apiAs<{ subscription_plan: { link_expiration_days: number } }>(request, a, 'GET', '/api/user/profile/')).body
      .subscription_plan.link_expiration_days
    await advanceClock(request, a, (days + 1) * DAY)
    await page.getByRole('button', { name: t.download!.replace('{{filename}}', '') }).click()
    const [before, after] = t.expired!.split('{{date}}')
    await expect(page.getByRole('status').filter({ hasText: new RegExp(`^${before}.+${after!.replace('.', '\\.')}$`) })).toBeVisible()
    await expect(ready).toHaveCount(0)
    await expect(page.getByRole('progressbar')).toHaveCount(0)
    await expect(page.getByRole('button', { name: t.download!.replace('{{filename}}', '') })).toHaveCount(0)
    await expect(page.getByRole('link', { name: t.getFresh })).toBeVisible()

    // opened afresh, the 410 carries no date: History's entry of the export says it
    await page.reload()
    await expect(page.getByRole('status').filter({ hasText: new RegExp(`^${before}.+${after!.replace('.', '\\.')}$`) })).toBeVisible()
    await expect(ready).toHaveCount(0)
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme })
      for (const width of WIDTHS) {
        await page.setViewportSize(viewport(width))
        await page.screenshot({ path: `test-results/screens/export-expired-${lng}-${scheme}-${width}.png` })
        await axeCheck(page, `expired export page (${lng}, ${scheme}, ${width} px)`, { soft: true })
      }
    }
    await page.getByRole('link', { name: t.getFresh }).click()
    const fresh = page.getByRole('dialog', { name: history.delta.title.replace('{{id}}', String(id)) })
    await expect(fresh.getByText(history.delta.notChargedYet)).toBeVisible()
  })
}

test('Polish: the file’s language stands uninflected („Nagłówki: polski”)', async ({ page, request }) => {
  const a = await newAccount(request, 'g-polish', 'pl')
  await signInViaUi(page, a, { next: '/search?country=PL&cap=25' })
  await expect(page.locator('html')).toHaveAttribute('lang', 'pl')
  const dialog = await openConfirmation(page)
  await expect(dialog.getByTestId('export-file-kind')).toHaveText('Nagłówki: polski, „;” między kolumnami, „,” jako separator dziesiętny')
})

for (const lng of ['en', 'he'] as const) {
  test(`${lng}: the confirmation and the export page are axe clean, light and dark, at 1280 and 360 px`, async ({ page, request }) => {
    test.setTimeout(120_000)
    const a = await newAccount(request, `g-axe-${lng}`, lng)
    await exportViaApi(request, a, 'countries=IL', 20)
    const account = (await apiAs<{ id: number }>(request, a, 'GET', '/api/user/profile/')).body.id
    // seven chosen columns, so the confirmation names some and counts the rest
    await page.addInitScript(([key, columns]) => localStorage.setItem(key, JSON.stringify({ columns, spreadsheet: true })), [
      `leads.export-file.${account}`,
      ['name', 'email', 'phone', 'website', 'address', 'city', 'country'],
    ] as const)
    await signInViaUi(page, a, { next: '/search?country=IL' })
    await expect(page.locator('html')).toHaveAttribute('lang', lng)
    const dialog = await openConfirmation(page)
    await expect(dialog.getByTestId('export-column-names')).toBeVisible()
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme })
      for (const width of WIDTHS) {
        await page.setViewportSize(viewport(width))
        await page.screenshot({ path: `test-results/screens/export-confirm-${lng}-${scheme}-${width}.png` })
        await axeCheck(page, `confirmation (${lng}, ${scheme}, ${width} px)`, { soft: true })
      }
    }
    await page.emulateMedia({ colorScheme: 'light' })
    await dialog.locator('[data-testid=confirm-export]').click()
    await page.waitForURL(/\/exports\/\d+$/)
    await expect(page.getByRole('status').filter({ hasText: exportStrings(lng).status_completed })).toBeVisible({ timeout: 30_000 })
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme })
      for (const width of WIDTHS) {
        await page.setViewportSize(viewport(width))
        await page.screenshot({ path: `test-results/screens/export-page-${lng}-${scheme}-${width}.png`, fullPage: true })
        await axeCheck(page, `export page (${lng}, ${scheme}, ${width} px)`, { soft: true })
      }
    }
  })
}
