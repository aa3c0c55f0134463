import { mkdirSync } from 'node:fs'
import { expect, test, type APIRequestContext, type Page } from '@playwright/test'
import { apiAs, axeCheck, grantCredits, signInViaUi, signUpViaApi, type Account } from './helpers'

/**
 * History that scales (issue 25, part H), against the real reference service: several exports, the
 * compact table (remembered by the browser), search by name, place or number and filters by status
 * and country, answered by the service (extension `history_search`), the
 * row actions by keyboard (retry charged nothing, download, details and naming at the service's
 * limit), a 360 px page that never widens; axe in English and Hebrew, light and dark, with
 * screenshots in test-results/screens/.
 */

mkdirSync('test-results/screens', { recursive: true })

const WIDTHS = [1280, 360] as const
const viewport = (width: number) => ({ width, height: width === 360 ? 780 : 900 })

async function balance(request: APIRequestContext, a: Account) {
  const p = (
    await apiAs<{ remaining_credits: number | null; purchased_credits_available: number }>(request, a, 'GET', '/api/user/profile/')
  ).body
  return (p.remaining_credits ?? 0) + p.purchased_credits_available
}

/** An export of five leads through the API, waited for until it ends; named when `name` is given. */
async function exportOf(
  request: APIRequestContext,
  a: Account,
  query: string,
  { name, fail = false }: { name?: string; fail?: boolean } = {},
) {
  if (fail) expect((await apiAs(request, a, 'POST', '/api/_test/fail-next-export/', {})).status).toBe(200)
  const preview = await apiAs<{ search_id: number }>(request, a, 'GET', `/api/companies/?${query}`)
  expect(preview.status).toBe(200)
  const started = await apiAs<{ search_id: number }>(request, a, 'POST', '/api/download-csv/', {
    search_id: preview.body.search_id,
    export_format: 'csv',
    max_leads: 5,
  })
  expect(started.status).toBe(202)
  const id = started.body.search_id
  await expect
    .poll(async () => (await apiAs<{ status: string }>(request, a, 'GET', `/api/download-status/${id}/`)).body.status, { timeout: 45_000 })
    .toBe(fail ? 'FAILED' : 'COMPLETED')
  if (name) expect((await apiAs(request, a, 'PATCH', `/api/user/search-history/${id}/`, { name })).status).toBe(200)
  return id
}

/** Five exports: three named, one unnamed (of the city of München), one failed. */
async function fiveExports(request: APIRequestContext, a: Account) {
  const places = await apiAs<{ level3: { id: number; name: string }[] }>(
    request,
    a,
    'GET',
    '/api/locations/search/?q=M%C3%BCnchen&country=DE',
  )
  const munich = places.body.level3.find((p) => p.name === 'München')!
  return {
    berlin: await exportOf(request, a, 'countries=DE&email=true', { name: 'Berlin dentists' }),
    paris: await exportOf(request, a, 'countries=FR', { name: 'Paris bakeries' }),
    bangkok: await exportOf(request, a, 'countries=TH', { name: 'Bangkok cafés' }),
    munich: await exportOf(request, a, `countries=DE&level3_location=${munich.id}`),
    failed: await exportOf(request, a, 'countries=ES&website=true', { fail: true }),
  }
}

/** The name limit the service publishes for PATCH …/search-history/{search_id}/ in its OpenAPI document. */
async function serviceNameLimit(request: APIRequestContext): Promise<number> {
  const doc = (await (await request.get('/api/schema/')).json()) as {
    paths: Record<string, Record<string, { requestBody?: { content: Record<string, { schema: unknown }> } }>>
    components?: { schemas?: Record<string, unknown> }
  }
  const path = Object.keys(doc.paths).find((p) => /^\/api\/user\/search-history\/\{search_id\}\/?$/.test(p))
  const body = path && doc.paths[path]?.patch?.requestBody?.content['application/json']?.schema
  const resolve = (s: unknown): Record<string, unknown> => {
    const ref = (s as { $ref?: string } | undefined)?.$ref
    return (ref ? doc.components?.schemas?.[ref.split('/').pop()!] : s) as Record<string, unknown>
  }
  const name = resolve((resolve(body).properties as Record<string, unknown>).name)
  // `name` is a string or null: its maxLength sits on the string, at the top or in anyOf/oneOf
  const limits = [name, ...((name.anyOf ?? name.oneOf ?? []) as Record<string, unknown>[])].map((s) => resolve(s).maxLength)
  const limit = limits.find((l): l is number => typeof l === 'number')
  expect(limit, 'the service publishes a name limit').toBeDefined()
  return limit!
}

/** The page is no wider than the window: only the table's own frame scrolls sideways. */
async function expectNoPageScroll(page: Page) {
  const widths = await page.evaluate(() => ({ page: document.documentElement.scrollWidth, window: window.innerWidth }))
  expect(widths.page).toBeLessThanOrEqual(widths.window)
}

const table = (page: Page) => page.getByRole('table')
const bodyRows = (page: Page) => table(page).locator('tbody > tr')

for (const width of WIDTHS) {
  test(`history as a table at ${width} px: search, filters and the row actions by keyboard`, async ({ page, request }) => {
    test.setTimeout(180_000)
    const a = await signUpViaApi(request, { prefix: `h-table-${width}` })
    await grantCredits(request, a, { plan_type: 'Starter', subscription: 50_000 })
    const ids = await fiveExports(request, a)
    const nameLimit = await serviceNameLimit(request)

    await page.setViewportSize(viewport(width))
    await signInViaUi(page, a, { next: '/history' })
    await page.waitForURL((url) => url.pathname === '/history')
    await expect(page.getByRole('article')).toHaveCount(5)
    await page.getByRole('button', { name: 'Table' }).click()
    await expect(page.getByRole('button', { name: 'Table' })).toHaveAttribute('aria-pressed', 'true')
    await expect(bodyRows(page)).toHaveCount(5)
    await expect(page.getByRole('article')).toHaveCount(0)
    await expectNoPageScroll(page)

    // search by name: the service finds the matches and counts them; the dashboard never reads the whole list
    const asked: URL[] = []
    page.on('request', (r) => {
      const url = new URL(r.url())
      if (/^\/api\/user\/search-history\/?$/.test(url.pathname)) asked.push(url)
    })
    const search = page.getByRole('searchbox', { name: 'Search by name, place, category or number' })
    await search.fill('bakeries')
    await expect(bodyRows(page)).toHaveCount(1)
    await expect(page.getByRole('row', { name: /Paris bakeries/ })).toBeVisible()
    await expect(page.getByText('Matching exports: 1 of 5')).toBeVisible()
    await expect(page).toHaveURL(/[?&]q=bakeries(&|$)/)
    expect(asked.some((u) => u.searchParams.get('q') === 'bakeries')).toBe(true)
    // an export without a name, found by its city's English name: only the service knows it
    await search.fill('Munich')
    await expect(bodyRows(page)).toHaveCount(1)
    await expect(page.getByRole('row', { name: new RegExp(`Export #${ids.munich}`) })).toBeVisible()
    await search.fill(`#${ids.munich}`)
    await expect(bodyRows(page)).toHaveCount(1)
    await expect(page.getByRole('row', { name: new RegExp(`Export #${ids.munich}`) })).toBeVisible()
    await search.fill('')
    expect(asked.filter((u) => u.searchParams.get('page_size') === '100')).toEqual([])

    // by country, then by status
    await page.getByRole('combobox', { name: 'Country' }).selectOption({ label: 'Thailand' })
    await expect(bodyRows(page)).toHaveCount(1)
    await expect(page.getByRole('row', { name: /Bangkok cafés/ })).toBeVisible()
    await page.getByRole('combobox', { name: 'Country' }).selectOption({ label: 'All countries' })
    await page.getByRole('combobox', { name: 'Status' }).selectOption({ label: 'Failed' })
    await expect(bodyRows(page)).toHaveCount(1)
    expect(asked.at(-1)?.searchParams.get('status')).toBe('FAILED')
    const failedRow = page.getByRole('row', { name: new RegExp(`Export #${ids.failed}`) })
    await expect(failedRow.getByText('retry is free')).toBeVisible()
    await expectNoPageScroll(page)

    // the failed export's retry, by keyboard: the service charges nothing again
    const before = await balance(request, a)
    await failedRow.getByRole('button', { name: 'Retry export' }).focus()
    await page.keyboard.press('Enter')
    await page.waitForURL(`**/exports/${ids.failed}`)
    await expect
      .poll(async () => (await apiAs<{ status: string }>(request, a, 'GET', `/api/download-status/${ids.failed}/`)).body.status, {
        timeout: 45_000,
      })
      .toBe('COMPLETED')
    expect(await balance(request, a)).toBe(before)

    // back in History the table is still the view (this browser remembers it); download again by keyboard
    await page.goto('/history')
    await expect(bodyRows(page)).toHaveCount(5)
    const berlin = page.getByRole('row', { name: /Berlin dentists/ })
    const downloading = page.waitForEvent('download')
    await berlin.getByRole('button', { name: 'Download again' }).focus()
    await page.keyboard.press('Enter')
    expect((await downloading).suggestedFilename()).toMatch(/\.csv$/)

    // details: everything the card offers, naming too, at the limit the service publishes
    const details = berlin.getByRole('button', { name: 'Details' })
    await details.focus()
    await page.keyboard.press('Enter')
    await expect(details).toHaveAttribute('aria-expanded', 'true')
    const opened = page.locator(`#${await details.getAttribute('aria-controls')}`)
    await opened.getByRole('button', { name: 'Rename' }).click()
    const nameBox = opened.getByLabel('Name of this search')
    await expect(nameBox).toHaveAttribute('maxlength', String(nameLimit))
    await nameBox.fill('')
    await nameBox.pressSequentially('x'.repeat(nameLimit + 20))
    await expect(nameBox).toHaveValue('x'.repeat(nameLimit))
    await expect(opened.getByText(`Characters: ${nameLimit} of ${nameLimit}`)).toBeVisible()
    await opened.getByRole('button', { name: 'Save name' }).click()
    await expect(page.getByRole('rowheader', { name: new RegExp(`^x{${nameLimit}}`) })).toBeVisible()
    const saved = await apiAs<{ name: string }>(request, a, 'GET', `/api/user/search-history/${ids.berlin}/`)
    expect(saved.body.name).toBe('x'.repeat(nameLimit))
    await expectNoPageScroll(page)
    if (width === 360) await page.screenshot({ path: 'test-results/screens/history-table-details-360.png', fullPage: true })
  })
}

for (const lng of ['en', 'he'] as const) {
  test(`the table in ${lng}: axe clean, light and dark, 1280 and 360 px`, async ({ page, request }) => {
    test.setTimeout(180_000)
    const a = await signUpViaApi(request, { prefix: `h-table-axe-${lng}`, preferred_language: lng })
    await grantCredits(request, a, { plan_type: 'Starter', subscription: 50_000 })
    await fiveExports(request, a)
    await signInViaUi(page, a, { next: '/history' })
    await page.waitForURL((url) => url.pathname === '/history')
    await expect(page.locator('html')).toHaveAttribute('lang', lng)
    await page.getByRole('button', { name: lng === 'en' ? 'Table' : 'טבלה' }).click()
    await expect(bodyRows(page)).toHaveCount(5)
    // one row's details open, so they are checked too
    await bodyRows(page)
      .first()
      .getByRole('button', { name: lng === 'en' ? 'Details' : 'פרטים' })
      .click()
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme })
      for (const width of WIDTHS) {
        await page.setViewportSize(viewport(width))
        await page.waitForLoadState('networkidle')
        await expect(page.locator('[aria-busy="true"]')).toHaveCount(0)
        await expectNoPageScroll(page)
        await page.screenshot({ path: `test-results/screens/history-table-${lng}-${scheme}-${width}.png`, fullPage: true })
        await axeCheck(page, `history table (${lng}, ${scheme}, ${width} px)`, { soft: true })
      }
    }
    // the cards, with the failed one saying a retry is free
    await page.emulateMedia({ colorScheme: 'light' })
    await page.getByRole('button', { name: lng === 'en' ? 'Cards' : 'כרטיסים' }).click()
    await expect(page.getByText(lng === 'en' ? 'Retrying is free: no new charge.' : 'ניסיון חוזר הוא בחינם: ללא חיוב חדש.')).toBeVisible()
    for (const width of WIDTHS) {
      await page.setViewportSize(viewport(width))
      await page.screenshot({ path: `test-results/screens/history-cards-${lng}-${width}.png`, fullPage: true })
      await axeCheck(page, `history cards (${lng}, ${width} px)`, { soft: true })
    }
  })
}
