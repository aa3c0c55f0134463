import { expect, test } from '@playwright/test'
import ExcelJS from 'exceljs'
import { grantCredits, signInViaUi, signUpViaApi } from './helpers'

/**
 * Issue 25: "One email per column" in the export's "Columns and file" panel. The confirmation names
 * it, and the Excel file has `email_1`, `email_2`, … columns (CRMs import them better than several
 * emails in one cell) under a frozen, filtered header. Real service, test clock on.
 */
test('one email per column: chosen in "Columns and file", named by the confirmation, email_1… in the XLSX', async ({ page, request }) => {
  const account = await signUpViaApi(request, { prefix: 'email-columns' })
  await grantCredits(request, account, { plan_type: 'Pro', subscription: 1_000 })
  // companies with an email, a few of them, in an Excel file with the interface's English field names
  await signInViaUi(page, account, { next: '/search?country=DE&email=1&cap=20&format=excel' })
  await expect(page.getByTestId('lead-count').first()).toBeVisible()

  await page.getByRole('button', { name: 'Columns and file' }).click()
  await page.getByRole('radio', { name: /^Standard file/ }).check()
  const split = page.getByRole('checkbox', { name: /^One email per column/ })
  await expect(split).not.toBeChecked()
  await split.check()

  await expect(page.getByText('Updating…')).toHaveCount(0)
  await page.locator('[data-testid=export-open]:visible').first().click()
  const dialog = page.getByRole('dialog')
  await expect(dialog.getByTestId('export-email-columns')).toHaveText('One per column')
  await dialog.getByRole('button', { name: 'Start export' }).click()
  await page.waitForURL(/\/exports\/\d+$/)

  const button = page.getByRole('button', { name: /^Download / })
  await expect(button).toBeVisible({ timeout: 30_000 })
  const [download] = await Promise.all([page.waitForEvent('download'), button.click()])
  const workbook = new ExcelJS.Workbook()
  await workbook.xlsx.readFile(await download.path())
  const sheet = workbook.worksheets[0]!
  const header = (sheet.getRow(1).values as unknown[]).slice(1) as string[]
  expect(header).not.toContain('email')
  const first = header.indexOf('email_1')
  expect(first).toBeGreaterThan(0)
  // as many as the most emails a company of the file has, one after another
  const emailColumns = header.filter((h) => /^email_\d$/.test(h))
  expect(emailColumns).toEqual(emailColumns.map((_, i) => `email_${i + 1}`))
  expect(header.slice(first, first + emailColumns.length)).toEqual(emailColumns)
  // every company of this search has an email: the first column is never empty, and holds one address
  for (let r = 2; r <= sheet.actualRowCount; r++) expect(String(sheet.getRow(r).getCell(first + 1).value)).toMatch(/^[^;\s]+@[^;\s]+$/)
  expect(sheet.actualRowCount).toBe(21)
  // the header stays in view and filters every row
  expect(sheet.views[0]).toMatchObject({ state: 'frozen', ySplit: 1 })
  expect(sheet.autoFilter).toMatch(/^A1:[A-Z]+21$/)
})
