import { expect, test, type APIRequestContext } from '@playwright/test'
import { advanceClock, apiAs, axeCheck, grantCredits, signInViaUi, signUpViaApi, type Account } from './helpers'

/**
 * Named and watched searches (issue 12, extension watched_searches) against the real service: watch
 * and name an export in the history, add companies through the test hook, reload: the navigation
 * badge and the card show the right number from the free dry run, and exporting them charges exactly
 * that. axe in English and Hebrew.
 */

async function balance(request: APIRequestContext, a: Account) {
  const p = (
    await apiAs<{ remaining_credits: number | null; purchased_credits_available: number }>(request, a, 'GET', '/api/user/profile/')
  ).body
  return (p.remaining_credits ?? 0) + p.purchased_credits_available
}

async function completedExport(request: APIRequestContext, a: Account, query: string) {
  const preview = await apiAs<{ search_id: number }>(request, a, 'GET', `/api/companies/?${query}`)
  const started = await apiAs<{ search_id: number }>(request, a, 'POST', '/api/download-csv/', {
    search_id: preview.body.search_id,
    export_format: 'csv',
  })
  expect(started.status).toBe(202)
  await expect
    .poll(async () => (await apiAs<{ status: string }>(request, a, 'GET', `/api/download-status/${started.body.search_id}/`)).body.status, {
      timeout: 45_000,
    })
    .toBe('COMPLETED')
  return started.body.search_id
}

for (const lng of ['en', 'he'] as const) {
  test(`watch a search, see its new leads counted, export them for exactly that (${lng})`, async ({ page, request }) => {
    const a = await signUpViaApi(request, { prefix: `watch-${lng}`, preferred_language: lng })
    await grantCredits(request, a, { plan_type: 'Starter', subscription: 50_000 })
    const id = await completedExport(request, a, 'countries=TH')

    await signInViaUi(page, a, { next: '/history' })
    await page.waitForURL((url) => url.pathname === '/history')
    const card = page.locator('article', { has: page.locator(`h2[id="export-${id}-title"]`) })
    const english = lng === 'en'
    await card.getByRole('button', { name: english ? 'Watch for new leads' : 'מעקב אחר אנשי קשר חדשים' }).click()
    await expect(card.getByRole('button', { name: english ? 'Watching' : 'במעקב' })).toHaveAttribute('aria-pressed', 'true')
    await expect(
      card.getByText(english ? 'No new leads since your last export.' : 'אין אנשי קשר חדשים מאז הייצוא האחרון שלכם.'),
    ).toBeVisible()
    await card.getByRole('button', { name: english ? 'Name' : 'מתן שם', exact: true }).click()
    await card.getByLabel(english ? 'Name of this search' : 'שם החיפוש').fill('Bangkok shops')
    await card.getByRole('button', { name: english ? 'Save name' : 'שמירת השם' }).click()
    await expect(page.getByRole('heading', { name: new RegExp(`^Bangkok shops.*${id}`) })).toBeVisible()

    // five companies appear after the export, on a later tick of the service clock
    await advanceClock(request, a, 60)
    expect((await apiAs(request, a, 'POST', '/api/_test/new-companies/', { count: 5, countries: ['TH'] })).status).toBe(201)
    const before = await balance(request, a)

    await page.reload()
    const badge = page.getByTestId('watched-news-badge').first()
    await expect(badge).toHaveText('5', { timeout: 15_000 })
    await expect(card.getByText(english ? '5 new leads since your last export' : '5 אנשי קשר חדשים מאז הייצוא האחרון')).toBeVisible()
    await page.goto('/history?watched=1')
    await expect(page.getByRole('article')).toHaveCount(1)
    await axeCheck(page, `/history?watched=1 (${lng})`)
    if (english) await page.screenshot({ path: 'test-results/screens/history-watched.png', fullPage: true })
    else await page.screenshot({ path: 'test-results/screens/history-watched-he.png', fullPage: true })
    // the dry runs charged nothing
    expect(await balance(request, a)).toBe(before)

    await card.getByRole('button', { name: english ? 'Review and export 5 new leads' : 'בדיקה וייצוא של 5 אנשי קשר חדשים' }).click()
    const dialog = page.getByRole('dialog')
    await dialog.getByRole('button', { name: /5/ }).last().click()
    await page.waitForURL(/\/exports\/\d+$/)
    const newId = Number(new URL(page.url()).pathname.split('/').pop())
    await expect
      .poll(async () => (await apiAs<{ status: string }>(request, a, 'GET', `/api/download-status/${newId}/`)).body.status, {
        timeout: 45_000,
      })
      .toBe('COMPLETED')
    expect(await balance(request, a)).toBe(before - 5)
    const entry = (
      await apiAs<{ lead_count: number; credits_charged: number; delta_of: number }>(
        request,
        a,
        'GET',
        `/api/user/search-history/${newId}/`,
      )
    ).body
    expect(entry).toMatchObject({ lead_count: 5, credits_charged: 5, delta_of: id })

    // after the export nothing is new any more
    await page.goto('/history')
    await expect(
      card.getByText(english ? 'No new leads since your last export.' : 'אין אנשי קשר חדשים מאז הייצוא האחרון שלכם.'),
    ).toBeVisible()
  })
}
