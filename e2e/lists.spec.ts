import { mkdirSync, readFileSync } from 'node:fs'
import { expect, test, type APIRequestContext, type Page } from '@playwright/test'
import { apiAs, authHeaders, axeCheck, signInViaUi, signUpViaApi, toCsv, type Account } from './helpers'

/**
 * Lists (issue 27, extension `lists`) against the real service: a customers file built from
 * businesses the service has (its preview's sample: names, cities and websites are not masked), with
 * rows no business fits; uploaded in the page, its proposed mapping confirmed, the report's counts
 * held to the service's report, a row un-matched (and the counts following), the report file
 * downloaded, the list deleted. axe and screenshots in English and Hebrew, at 1280 and 360 px.
 */

mkdirSync('test-results/screens', { recursive: true })
const shot = (page: Page, name: string) => page.screenshot({ path: `test-results/screens/${name}.png`, fullPage: true })

interface Lead {
  name: string
  city: string | null
  website: string | null
}
interface Report {
  matched: number
  ambiguous: number
  unmatched: number
  total_rows: number
}

/** Semicolons and German headers: the service detects both, and the page says what it read. */
async function customersCsv(request: APIRequestContext, account: Account): Promise<{ csv: string; rows: number }> {
  const preview = await apiAs<{ results: Lead[] }>(request, account, 'GET', '/api/companies/?countries=DE')
  expect(preview.status).toBe(200)
  const known = preview.body.results.filter((c) => c.website && c.city).slice(0, 6)
  expect(known.length).toBeGreaterThan(2)
  const lines = [
    ...known.map((c) => [c.name, c.city!, c.website!]),
    ['Bäckerei Nirgendwo', 'Atlantis', 'https://baeckerei-nirgendwo-e2e.example'],
    ['Zzyzx Quillwork Atelier', 'Nowhere', ''],
  ]
  return { csv: toCsv([['Firma', 'Ort', 'Webseite'], ...lines], ';'), rows: lines.length }
}

async function reportOf(request: APIRequestContext, account: Account, id: string) {
  const r = await apiAs<Report>(request, account, 'GET', `/api/lists/${id}/report/`)
  expect(r.status).toBe(200)
  return r.body
}

async function expectCounts(page: Page, report: Report) {
  for (const k of ['matched', 'ambiguous', 'unmatched'] as const) {
    await expect(page.getByTestId(`list-report-${k}`)).toHaveText(String(report[k]))
  }
}

test('a customers list: upload, confirm the columns, the report, un-match a row, the report file, delete; axe clean', async ({
  page,
  request,
}) => {
  test.setTimeout(120_000)
  const account = await signUpViaApi(request, { prefix: 'lists' })
  const { csv, rows } = await customersCsv(request, account)

  await page.setViewportSize({ width: 1280, height: 900 })
  await signInViaUi(page, account, { next: '/lists' })
  await page.waitForURL((url) => url.pathname === '/lists')
  await expect(page.getByRole('heading', { level: 1, name: 'My lists' })).toBeVisible()
  await expect(page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'My lists' })).toBeVisible()
  await expect(page.getByText('No lists yet')).toBeVisible()
  await expect(page.getByText('up to 50 MB and 200,000 rows')).toBeVisible()
  await axeCheck(page, '/lists empty (en, 1280 px)')
  await shot(page, 'lists-empty-en-1280')

  await page.locator('input[type=file]').setInputFiles({ name: 'customers.csv', mimeType: 'text/csv', buffer: Buffer.from(csv) })
  await expect(page.getByText('customers.csv')).toBeVisible()
  await page.getByLabel('Name of the list').fill('Customers')
  await page.getByRole('button', { name: 'Upload' }).click()
  await page.waitForURL(/\/lists\/[^/]+$/)
  const id = decodeURIComponent(new URL(page.url()).pathname.split('/').pop()!)

  // the mapping step: what was read, the first rows, and the service's proposal
  await expect(page.getByRole('heading', { level: 1, name: 'Customers' })).toBeVisible()
  await expect(page.getByText('columns separated by semicolons')).toBeVisible()
  const preview = page.getByRole('region', { name: 'The first rows of your file' })
  await expect(preview.getByRole('row')).toHaveCount(rows + 1)
  await expect(page.getByLabel('Business name')).toHaveValue('0')
  await expect(page.getByLabel('City')).toHaveValue('1')
  await expect(page.getByLabel('Website')).toHaveValue('2')
  await expect(page.getByLabel('Phone number')).toHaveValue('')
  await axeCheck(page, '/lists/:id mapping (en, 1280 px)')
  await shot(page, 'lists-mapping-en-1280')
  await page.getByRole('button', { name: 'Start matching' }).click()

  // matching is a job: the page polls the list until it is done, then shows the report
  await expect(page.getByRole('heading', { name: 'Match report' })).toBeVisible({ timeout: 30_000 })
  const before = await reportOf(request, account, id)
  expect(before.total_rows).toBe(rows)
  expect(before.matched).toBeGreaterThan(0)
  expect(before.unmatched).toBeGreaterThanOrEqual(2)
  await expectCounts(page, before)
  await axeCheck(page, '/lists/:id report (en, 1280 px)')
  await shot(page, 'lists-report-en-1280')

  // un-match one matched row: the counts follow the service's, and Undo matches it again
  await page.getByLabel('Show').selectOption('matched')
  const matchedRows = page.getByRole('list', { name: 'Rows of your list' }).getByTestId('list-row')
  await expect(matchedRows).toHaveCount(before.matched)
  await matchedRows.first().getByRole('button', { name: 'Un-match' }).click()
  await expect(page.getByText(/is no longer matched/)).toBeVisible()
  const after = await reportOf(request, account, id)
  expect(after).toMatchObject({ matched: before.matched - 1, unmatched: before.unmatched + 1 })
  await expectCounts(page, after)
  await expect(matchedRows).toHaveCount(before.matched - 1)
  await page.getByRole('button', { name: 'Undo' }).click()
  await expect(page.getByTestId('list-report-matched')).toHaveText(String(before.matched))

  // the report file, read with the session's token (never in an address) and saved from a blob
  const downloading = page.waitForEvent('download')
  await page.getByRole('button', { name: 'Download the report (CSV)' }).click()
  const download = await downloading
  expect(download.suggestedFilename()).toBe(`list-${id}-report.csv`)
  const file = readFileSync((await download.path())!, 'utf8').replace(/^\ufeff/, '')
  const lines = file.trim().split(/\r\n/)
  expect(lines[0]).toBe('row,Firma,Ort,Webseite,match_status,company_id,company_name,company_city,rule,confidence')
  expect(lines).toHaveLength(rows + 1)
  expect(lines.filter((l) => l.includes(',matched,'))).toHaveLength(before.matched)

  await page.setViewportSize({ width: 360, height: 780 })
  await axeCheck(page, '/lists/:id report (en, 360 px)')
  await shot(page, 'lists-report-en-360')
  await page.setViewportSize({ width: 1280, height: 900 })

  // the index shows the list with its counts
  await page.getByRole('link', { name: 'All lists' }).click()
  const table = page.getByRole('region', { name: 'Your lists' })
  const row = table.getByRole('row', { name: /Customers/ })
  await expect(row).toContainText('Matched')
  await expect(row.getByRole('cell').nth(3)).toHaveText(String(before.matched))
  await axeCheck(page, '/lists with a list (en, 1280 px)')
  await shot(page, 'lists-index-en-1280')

  await row.getByRole('link', { name: 'Customers' }).click()
  await page.getByRole('button', { name: 'Delete the list' }).click()
  const dialog = page.getByRole('dialog', { name: 'Delete “Customers”?' })
  await expect(dialog).toContainText('deleted for good')
  await dialog.getByRole('button', { name: 'Delete' }).click()
  await page.waitForURL((url) => url.pathname === '/lists')
  await expect(page.getByText('No lists yet')).toBeVisible()
  expect((await apiAs<unknown[]>(request, account, 'GET', '/api/lists/')).body).toEqual([])
})

test('Hebrew: the mapping step and the report read right to left, at 1280 and 360 px and in dark mode; a bad file is said in words; axe clean', async ({
  page,
  request,
}) => {
  test.setTimeout(120_000)
  const account = await signUpViaApi(request, { prefix: 'lists-he', preferred_language: 'he' })
  const { csv } = await customersCsv(request, account)
  const upload = async (name: string) => {
    const res = await request.post('/api/lists/', {
      headers: await authHeaders(request, account),
      multipart: { name, file: { name: `${name}.csv`, mimeType: 'text/csv', buffer: Buffer.from(csv) } },
    })
    expect(res.status(), await res.text()).toBe(201)
    return String(((await res.json()) as { id: number }).id)
  }
  const matched = await upload('לקוחות')
  const put = await request.put(`/api/lists/${matched}/mapping/`, {
    headers: await authHeaders(request, account),
    data: { mapping: { name: 0, city: 1, website: 2 } },
  })
  expect(put.status(), await put.text()).toBe(202)
  await expect.poll(async () => (await reportOf(request, account, matched)).matched, { timeout: 30_000 }).toBeGreaterThan(0)
  const waiting = await upload('ספקים')

  await page.setViewportSize({ width: 1280, height: 900 })
  await signInViaUi(page, account, { next: '/lists' })
  await page.waitForURL((url) => url.pathname === '/lists')
  await expect(page.locator('html')).toHaveAttribute('dir', 'rtl')
  await expect(page.getByRole('heading', { level: 1, name: 'הרשימות שלי' })).toBeVisible()

  // a file with a header and no rows: the reason and what to do, in Hebrew
  await page.locator('input[type=file]').setInputFiles({ name: 'empty.csv', mimeType: 'text/csv', buffer: Buffer.from('Firma;Ort\r\n') })
  await page.getByRole('button', { name: 'העלאה' }).click()
  await expect(page.getByRole('alert')).toContainText('הקובץ לא הועלה')
  await axeCheck(page, '/lists (he, 1280 px)')
  await shot(page, 'lists-index-he-1280')
  await page.setViewportSize({ width: 360, height: 780 })
  await axeCheck(page, '/lists (he, 360 px)')
  await shot(page, 'lists-index-he-360')

  await page.goto(`/lists/${waiting}`)
  await expect(page.getByRole('heading', { level: 1, name: 'ספקים' })).toBeVisible()
  await axeCheck(page, '/lists/:id mapping (he, 360 px)')
  await shot(page, 'lists-mapping-he-360')
  await page.setViewportSize({ width: 1280, height: 900 })
  await shot(page, 'lists-mapping-he-1280')

  await page.goto(`/lists/${matched}`)
  await expectCounts(page, await reportOf(request, account, matched))
  await axeCheck(page, '/lists/:id report (he, 1280 px)')
  await shot(page, 'lists-report-he-1280')
  await page.setViewportSize({ width: 360, height: 780 })
  await axeCheck(page, '/lists/:id report (he, 360 px)')
  await shot(page, 'lists-report-he-360')

  // dark mode follows the system: the report's colours keep their contrast
  await page.emulateMedia({ colorScheme: 'dark' })
  await page.setViewportSize({ width: 1280, height: 900 })
  await axeCheck(page, '/lists/:id report (he, dark, 1280 px)')
  await shot(page, 'lists-report-he-dark-1280')
})
