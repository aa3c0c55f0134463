import { mkdirSync, readFileSync } from 'node:fs'
import { expect, test, type APIRequestContext, type Page } from '@playwright/test'
import { apiAs, authHeaders, chooseLanguage, grantCredits, parseCsv, signInViaUi, signUpViaApi, toCsv, type Account } from './helpers'

/**
 * A list as a suppression list and as an enrichment order (issue 27, extension `lists`) against the real
 * service: a list made of businesses of a search leaves them out of that search's count, by exactly the
 * companies it matched; a second list of names and cities is filled in through the dialog, and its file
 * keeps the person's columns and rows, fills the matched rows' new cells, leaves the unmatched row's empty,
 * for one credit per matched company. Screenshots in English and Hebrew at 1280 and 360 px.
 */

mkdirSync('test-results/screens', { recursive: true })
const shot = (page: Page, name: string) => page.screenshot({ path: `test-results/screens/${name}.png`, fullPage: true })

interface Lead {
  name: string
  city: string | null
  website: string | null
}

/** Uploads a CSV through the API as the page would, confirms the proposed mapping and waits for the match. */
async function matchedList(request: APIRequestContext, account: Account, name: string, csv: string): Promise<string> {
  const headers = await authHeaders(request, account)
  const res = await request.post('/api/lists/', {
    headers,
    multipart: { name, file: { name: `${name}.csv`, mimeType: 'text/csv', buffer: Buffer.from(csv) } },
  })
  expect(res.status(), await res.text()).toBe(201)
  const list = (await res.json()) as { id: number; proposed_mapping: Record<string, number> }
  const mapped = await request.put(`/api/lists/${list.id}/mapping/`, { headers, data: { mapping: list.proposed_mapping } })
  expect(mapped.status(), await mapped.text()).toBe(202)
  await expect
    .poll(async () => (await apiAs<{ status: string }>(request, account, 'GET', `/api/lists/${list.id}/`)).body.status, { timeout: 60_000 })
    .toBe('matched')
  return String(list.id)
}

/** The distinct companies a list's matched rows name. */
async function matchedCompanies(request: APIRequestContext, account: Account, id: string): Promise<Set<number>> {
  const ids = new Set<number>()
  for (let page = 1; ; page++) {
    const r = await apiAs<{ results: { match: { company_id: number } | null }[]; next?: string | null; count: number; page_size: number }>(
      request,
      account,
      'GET',
      `/api/lists/${id}/rows/?status=matched&page=${page}`,
    )
    expect(r.status).toBe(200)
    for (const row of r.body.results) if (row.match) ids.add(row.match.company_id)
    if (page * r.body.page_size >= r.body.count) return ids
  }
}

async function balance(request: APIRequestContext, account: Account) {
  const p = await apiAs<{ remaining_credits: number; purchased_credits_available: number }>(request, account, 'GET', '/api/user/profile/')
  return Math.max(0, p.body.remaining_credits) + p.body.purchased_credits_available
}

const leadCount = async (page: Page) => Number(await page.getByTestId('lead-count').first().getAttribute('data-count'))

test('leave out a list’s businesses from a search, then fill in another list through the dialog and read its file', async ({
  page,
  request,
}) => {
  test.setTimeout(240_000)
  const account = await signUpViaApi(request, { prefix: 'lists-use' })
  await grantCredits(request, account, { subscription: 1000 })

  // the search, and a customers list made of businesses of its sample (name, city, website)
  const search = 'countries=DE&website=true'
  const preview = await apiAs<{ totalCount: number; results: Lead[] }>(request, account, 'GET', `/api/companies/?${search}`)
  expect(preview.status).toBe(200)
  const sample = preview.body.results.filter((c) => c.website && c.city)
  expect(sample.length).toBeGreaterThan(8)
  const customers = sample.slice(0, 5)
  const customersId = await matchedList(
    request,
    account,
    'Customers',
    toCsv([['Name', 'City', 'Website'], ...customers.map((c) => [c.name, c.city!, c.website!])]),
  )
  const suppressed = await matchedCompanies(request, account, customersId)
  expect(suppressed.size).toBeGreaterThan(0)
  // the service's own figure agrees with the list's matches
  const withList = await apiAs<{ totalCount: number; excluded_by_lists: number }>(
    request,
    account,
    'GET',
    `/api/companies/?${search}&exclude_lists=${customersId}`,
  )
  expect(withList.body.excluded_by_lists).toBe(suppressed.size)
  expect(withList.body.totalCount).toBe(preview.body.totalCount - suppressed.size)

  // the search page: tick the list, the count drops by exactly its matched companies, and it stays in the address
  await page.setViewportSize({ width: 1280, height: 900 })
  await signInViaUi(page, account, { next: '/search?country=DE&website=1' })
  await expect.poll(() => leadCount(page)).toBe(preview.body.totalCount)
  const control = page.getByRole('group', { name: 'Leave out businesses in my lists' })
  await expect(control).toBeVisible({ timeout: 30_000 })
  await control.getByRole('checkbox', { name: 'Customers' }).check()
  await expect(page).toHaveURL(new RegExp(`[?&]xl=${customersId}(&|$)`))
  await expect.poll(() => leadCount(page)).toBe(preview.body.totalCount - suppressed.size)
  await expect(page.getByTestId('lists-left-out')).toHaveAttribute('data-count', String(suppressed.size))
  const chips = page.getByRole('list', { name: 'Chosen filters' })
  await expect(chips.getByText('Leaving out: \u2068Customers\u2069')).toBeVisible()
  await shot(page, 'lists-leave-out-en-1280')
  // part of the search: a reload keeps it
  await page.reload()
  await expect.poll(() => leadCount(page)).toBe(preview.body.totalCount - suppressed.size)
  await expect(control.getByRole('checkbox', { name: 'Customers' })).toBeChecked({ timeout: 30_000 })
  await page.setViewportSize({ width: 360, height: 800 })
  await expect(control).toBeVisible()
  await shot(page, 'lists-leave-out-en-360')

  // a second list, of names and cities only: businesses of the search not in the first list, and a row nothing matches
  const orders = sample.slice(5, 9)
  const nowhere = ['Zzyzx Quillwork Atelier', 'Nowhere']
  const own = [['Name', 'City'], ...orders.map((c) => [c.name, c.city!]), nowhere]
  const ordersId = await matchedList(request, account, 'Orders', toCsv(own))
  const toFill = await matchedCompanies(request, account, ordersId)
  expect(toFill.size).toBeGreaterThan(0)
  const before = await balance(request, account)

  await page.setViewportSize({ width: 1280, height: 900 })
  await page.goto(`/lists/${ordersId}`)
  await page.getByRole('button', { name: 'Fill in my list' }).click()
  const dialog = page.getByRole('dialog', { name: 'Fill in \u2068Orders\u2069' })
  await expect(dialog.getByTestId('enrich-cost')).toHaveText(`${toFill.size} credit${toFill.size === 1 ? '' : 's'}`)
  await expect(dialog.getByTestId('enrich-companies')).toHaveText(String(toFill.size))
  await expect(dialog.getByText('Name and City', { exact: true })).toBeVisible()
  await shot(page, 'lists-enrich-dialog-en-1280')
  await dialog.getByTestId('confirm-enrich').click()
  await page.waitForURL(/\/exports\/[^/]+$/)
  await expect(page.getByRole('heading', { level: 1 })).toContainText('Fill in \u2068Orders\u2069')
  await expect(page.getByRole('link', { name: 'Open the list' })).toHaveAttribute('href', `/lists/${ordersId}`)
  const button = page.getByRole('button', { name: /^Download / })
  await expect(button).toBeVisible({ timeout: 60_000 })
  await shot(page, 'lists-enrich-export-en-1280')
  const [download] = await Promise.all([page.waitForEvent('download'), button.click()])
  const rows = parseCsv(readFileSync(await download.path(), 'utf8')).filter((r) => r.some((f) => f !== ''))

  // the person's header first, their rows in their order with every own cell kept, match_status last
  const [header, ...body] = rows
  expect(header!.slice(0, 2)).toEqual(['Name', 'City'])
  expect(header!.at(-1)).toBe('match_status')
  expect(header!.length).toBeGreaterThan(3)
  expect(body.map((r) => r.slice(0, 2))).toEqual(own.slice(1))
  const status = (r: string[]) => r.at(-1)
  const added = (r: string[]) => r.slice(2, -1)
  for (const r of body) {
    if (status(r) === 'matched')
      expect(
        added(r).some((cell) => cell !== ''),
        `filled: ${r.join(',')}`,
      ).toBe(true)
    else
      expect(
        added(r).every((cell) => cell === ''),
        `empty: ${r.join(',')}`,
      ).toBe(true)
  }
  expect(status(body.at(-1)!)).not.toBe('matched')
  expect(body.filter((r) => status(r) === 'matched').length).toBeGreaterThanOrEqual(toFill.size)
  // one credit per matched company, nothing for the row without a match
  expect(before - (await balance(request, account))).toBe(toFill.size)

  // Hebrew, right to left: the search with the list left out, and the dialog at a phone's width
  await chooseLanguage(page, 'Language', 'עברית')
  await expect(page.locator('html')).toHaveAttribute('dir', 'rtl')
  await page.goto(`/search?country=DE&website=1&xl=${customersId}`)
  await expect.poll(() => leadCount(page)).toBe(preview.body.totalCount - suppressed.size)
  await expect(page.getByTestId('lists-left-out')).toBeVisible({ timeout: 30_000 })
  await shot(page, 'lists-leave-out-he-1280')
  await page.setViewportSize({ width: 360, height: 800 })
  await shot(page, 'lists-leave-out-he-360')
  await page.goto(`/lists/${ordersId}`)
  await page.getByRole('button', { name: 'השלמת הרשימה שלי' }).first().click()
  await expect(page.getByRole('dialog').getByTestId('enrich-cost')).toBeVisible()
  await shot(page, 'lists-enrich-dialog-he-360')
})
