import { expect, test, type APIRequestContext, type Page } from '@playwright/test'
import ExcelJS from 'exceljs'
import { readFile } from 'node:fs/promises'
import { axeBuilder, confirmViaOutbox, parseCsv } from './helpers'

/**
 * The search → export → download flow against the real reference service (test clock on):
 * files are opened and their lead rows counted; balances are read from the service itself.
 */

interface Account {
  email: string
  password: string
  token: string
}

async function newAccount(request: APIRequestContext, credits?: { subscription?: number; purchased?: number }): Promise<Account> {
  const email = `f2-${Date.now()}-${Math.random().toString(36).slice(2, 8)}@example.com`
  const password = 'search-export-pass'
  expect((await request.post('/api/auth/sign-up/', { data: { email, password } })).status()).toBe(201)
  await confirmViaOutbox(request, email)
  const login = await request.post('/api/auth/login/', { data: { username: email, password } })
  expect(login.ok()).toBe(true)
  const token = ((await login.json()) as { access: string }).access
  if (credits) {
    const granted = await request.post('/api/_test/grant-credits/', {
      data: { ...credits, purchased_expires_in_days: 30 },
      headers: { Authorization: `Bearer ${token}` },
    })
    expect(granted.ok()).toBe(true)
  }
  return { email, password, token }
}

async function balances(request: APIRequestContext, account: Account): Promise<{ subscription: number; purchased: number }> {
  const res = await request.get('/api/user/profile/', { headers: { Authorization: `Bearer ${account.token}` } })
  expect(res.ok()).toBe(true)
  const p = (await res.json()) as { remaining_credits: number | null; purchased_credits_available: number }
  return { subscription: p.remaining_credits ?? 0, purchased: p.purchased_credits_available }
}

async function balance(request: APIRequestContext, account: Account): Promise<number> {
  const res = await request.get('/api/user/profile/', { headers: { Authorization: `Bearer ${account.token}` } })
  expect(res.ok()).toBe(true)
  const p = (await res.json()) as { remaining_credits: number | null; purchased_credits_available: number }
  return (p.remaining_credits ?? 0) + p.purchased_credits_available
}

async function signIn(page: Page, account: Account, next = '/search') {
  await page.goto(`/sign-in?next=${encodeURIComponent(next)}`)
  await page.getByLabel('Email').fill(account.email)
  await page.getByLabel('Password', { exact: true }).fill(account.password)
  await page.getByRole('button', { name: 'Sign in' }).click()
  await page.waitForURL((url) => url.pathname === next.split('?')[0])
}

/** Picks an option of a combobox with the keyboard only: focus, type, arrow to it, Enter, Escape. */
async function pickByKeyboard(page: Page, label: string, typed: string, option: RegExp | string) {
  const box = page.getByRole('combobox', { name: label, exact: true })
  await box.focus()
  await page.keyboard.type(typed, { delay: 30 })
  const wanted = page.getByRole('option', { name: option }).first()
  await expect(wanted).toBeVisible()
  await page.waitForTimeout(400) // the type-ahead's debounce and answer settle
  const id = await wanted.getAttribute('id')
  // arrow down until the screen reader's active option (aria-activedescendant) is the wanted one
  for (let i = 0; i < 40 && (await box.getAttribute('aria-activedescendant')) !== id; i++) {
    await page.keyboard.press('ArrowDown')
  }
  await expect(box).toHaveAttribute('aria-activedescendant', id ?? '')
  await page.keyboard.press('Enter')
  await page.keyboard.press('Escape')
}

/** The settled preview count (no "Updating…" left). */
async function previewCount(page: Page): Promise<number> {
  await expect(page.getByText('Updating…')).toHaveCount(0)
  const count = page.getByTestId('lead-count')
  await expect(count).toBeVisible()
  return Number(await count.getAttribute('data-count'))
}

async function confirmExport(page: Page): Promise<string> {
  await page.getByRole('button', { name: 'Export…' }).click()
  await page.getByRole('dialog').getByRole('button', { name: 'Start export' }).click()
  await page.waitForURL(/\/exports\/\d+$/)
  return page.url().split('/').pop() ?? ''
}

async function downloadFile(page: Page): Promise<{ path: string; name: string }> {
  const button = page.getByRole('button', { name: /^Download / })
  await expect(button).toBeVisible({ timeout: 30_000 })
  const [download] = await Promise.all([page.waitForEvent('download'), button.click()])
  const path = await download.path()
  return { path, name: download.suggestedFilename() }
}

test('build a search by keyboard, export CSV and capped Excel; files and balance match the preview', async ({ page, request }) => {
  const account = await newAccount(request, { subscription: 20_000, purchased: 500 })
  await signIn(page, account)

  await pickByKeyboard(page, 'Countries', 'Germ', 'Germany')
  await pickByKeyboard(page, 'Categories', 'Rest', /^Restaurant/)
  await pickByKeyboard(page, 'Find a place', 'Frankfurt', /Frankfurt am Main.*Hessen/)
  // same-named places are told apart by their parents
  await expect(page.getByRole('list', { name: 'Chosen filters' }).getByRole('listitem')).toHaveCount(3)
  await expect(page.getByRole('button', { name: 'Remove Country: Germany' })).toBeVisible()

  const count = await previewCount(page)
  expect(count).toBeGreaterThan(0)
  const searchUrl = page.url()

  // CSV: every previewed lead
  const before = await balance(request, account)
  await confirmExport(page)
  // the shell's balance shows the charge as soon as the export has started, from whichever balance
  // the service spent (the credits that expire first: docs/architecture.md)
  const charged = await balances(request, account)
  expect(charged.subscription + charged.purchased).toBe(before - count)
  await expect(page.getByTestId('credits-subscription').first()).toContainText(charged.subscription.toLocaleString('en-US'))
  await expect(page.getByTestId('credits-purchased').first()).toContainText(charged.purchased.toLocaleString('en-US'))
  const csv = await downloadFile(page)
  expect(csv.name).toMatch(/\.csv$/)
  const rows = parseCsv(await readFile(csv.path, 'utf8')).filter((r) => r.some((f) => f !== ''))
  expect(rows.length - 1).toBe(count)
  const afterCsv = await balance(request, account)
  expect(before - afterCsv).toBe(count)

  // Excel, capped below the count when possible: a pasted link restores the search exactly
  const cap = Math.max(1, Math.min(count - 1, 3))
  await page.goto(searchUrl)
  expect(await previewCount(page)).toBe(count)
  // every lead of this search is already the account's: skipped by default, so buying them again is a choice
  const all = count.toLocaleString('en-US')
  await expect(page.getByText(`Leads you already have: ${all} of ${all}`)).toBeVisible()
  const skip = page.getByRole('checkbox', { name: /^Skip leads I already have/ })
  await expect(skip).toBeChecked()
  await skip.uncheck()
  await page.getByLabel('Most leads to export').fill(String(cap))
  await page.getByLabel('Excel (XLSX)').click()
  await expect(page.getByLabel('Excel (XLSX)')).toBeChecked()
  await expect(page).toHaveURL(/format=excel/)
  const xlsx = await (async () => {
    await confirmExport(page)
    return downloadFile(page)
  })()
  expect(xlsx.name).toMatch(/\.xlsx$/)
  const workbook = new ExcelJS.Workbook()
  await workbook.xlsx.readFile(xlsx.path)
  const sheet = workbook.worksheets[0]!
  expect(sheet.actualRowCount - 1).toBe(cap)
  expect(afterCsv - (await balance(request, account))).toBe(cap)
})

test('"Edit in search" on an export in the history opens the same search: same chips, same count', async ({ page, request }) => {
  const account = await newAccount(request, { subscription: 5_000 })
  await signIn(page, account)
  await pickByKeyboard(page, 'Countries', 'Germ', 'Germany')
  await pickByKeyboard(page, 'Categories', 'Rest', /^Restaurant/)
  await pickByKeyboard(page, 'Find a place', 'Frankfurt', /Frankfurt am Main.*Hessen/)
  // the checkbox follows the address, which updates in a transition: click, then wait for it
  await page.getByRole('checkbox', { name: 'A phone number' }).click()
  await expect(page.getByRole('checkbox', { name: 'A phone number' })).toBeChecked()
  await page.getByLabel('Most leads to export').fill('2')
  await page.getByLabel('Excel (XLSX)').click()
  const chips = page.getByRole('list', { name: 'Chosen filters' }).getByRole('listitem')
  await expect(chips).toHaveCount(5) // country, category, place, phone, cap
  const count = await previewCount(page)
  expect(count).toBeGreaterThan(0)
  const chipTexts = await chips.allTextContents()
  const searchUrl = new URL(page.url())
  await confirmExport(page)

  await page.goto('/history')
  await page.getByRole('link', { name: 'Edit in search' }).first().click()
  // the history's link uses the service's names; the search names its ids and takes its own address
  await expect(page).toHaveURL((url) => url.pathname === '/search' && url.searchParams.has('country'))
  expect(new URL(page.url()).searchParams.has('countries')).toBe(false)
  expect(await previewCount(page)).toBe(count)
  await expect(chips).toHaveText(chipTexts)
  await expect(page.getByRole('checkbox', { name: 'A phone number' })).toBeChecked()
  await expect(page.getByLabel('Most leads to export')).toHaveValue('2')
  await expect(page.getByLabel('Excel (XLSX)')).toBeChecked()
  expect(new URL(page.url()).searchParams.toString()).toBe(searchUrl.searchParams.toString())
  await expect(page.getByText('no longer exist')).toHaveCount(0)
})

test('an export the account cannot pay for is refused before sending and charges nothing', async ({ page, request }) => {
  const account = await newAccount(request) // Free plan: 100 credits
  const start = await balance(request, account)
  await signIn(page, account, '/search?country=DE')
  const count = await previewCount(page)
  expect(count).toBeGreaterThan(start)

  await page.getByRole('button', { name: 'Export…' }).click()
  const dialog = page.getByRole('dialog')
  await expect(dialog.getByText('Not enough credits', { exact: true })).toBeVisible()
  await expect(dialog.getByRole('button', { name: 'Start export' })).toBeDisabled()
  await expect(dialog.getByRole('link', { name: 'See plans and credits' })).toBeVisible()

  // the service refuses too, with its figures, and charges nothing
  const searchId = await previewSearchId(request, account)
  const refused = await request.post('/api/download-csv/', {
    data: { search_id: Number(searchId), export_format: 'csv' },
    headers: { Authorization: `Bearer ${account.token}` },
  })
  expect(refused.status()).toBe(403)
  expect(await refused.json()).toMatchObject({ validation_code: 'insufficient_credits', required_credits: count, available_credits: start })
  expect(await balance(request, account)).toBe(start)

  // the way out: cap at what the balance pays for
  await dialog.getByRole('button', { name: `Export only ${start} leads` }).click()
  await expect(page).toHaveURL(new RegExp(`cap=${start}`))
  await expect(dialog.getByRole('button', { name: 'Start export' })).toBeEnabled()
  await expect(dialog.getByTestId('balance-after')).toHaveText('0 credits')
})

async function previewSearchId(request: APIRequestContext, account: Account): Promise<string> {
  const res = await request.get('/api/companies/?countries=DE', { headers: { Authorization: `Bearer ${account.token}` } })
  return String(((await res.json()) as { search_id: number | string }).search_id)
}

test('a reloaded export page picks up where it was; a failed export retries at no charge', async ({ page, request }) => {
  const account = await newAccount(request, { subscription: 5_000 })
  const headers = { Authorization: `Bearer ${account.token}` }
  expect((await request.post('/api/_test/fail-next-export/', { headers })).ok()).toBe(true)
  await signIn(page, account, '/search?country=DE&cap=25&format=excel')
  await previewCount(page)
  const before = await balance(request, account)
  const id = await confirmExport(page)

  await expect(page.getByText('The export failed').first()).toBeVisible({ timeout: 30_000 })
  await page.reload()
  await expect(page).toHaveURL(new RegExp(`/exports/${id}$`))
  await expect(page.getByText('The export failed').first()).toBeVisible()
  expect(before - (await balance(request, account))).toBe(25)

  await page.getByRole('button', { name: 'Retry export' }).click()
  await page.reload() // mid-run reload: the page polls again from the address alone
  const file = await downloadFile(page)
  await expect(page).toHaveTitle(/^Ready · Export/)
  const workbook = new ExcelJS.Workbook()
  await workbook.xlsx.readFile(file.path)
  expect(workbook.worksheets[0]!.actualRowCount - 1).toBe(25)
  expect(before - (await balance(request, account))).toBe(25)
})

for (const lng of ['en', 'he', 'th'] as const) {
  test(`search and export pages in ${lng}: screenshots at 360 and 1280 px, axe clean`, async ({ page, request }) => {
    const account = await newAccount(request, { subscription: 5_000 })
    const headers = { Authorization: `Bearer ${account.token}` }
    expect((await request.patch('/api/user/profile/', { data: { preferred_language: lng }, headers })).ok()).toBe(true)
    await signIn(page, account, '/search?country=DE&email=1&cap=5')
    await expect(page.locator('html')).toHaveAttribute('lang', lng)
    await expect(page.locator('html')).toHaveAttribute('dir', lng === 'he' ? 'rtl' : 'ltr')
    await expect(page.getByTestId('lead-count')).toBeVisible()
    await page.waitForLoadState('networkidle')

    for (const width of [360, 1280]) {
      await page.setViewportSize({ width, height: 900 })
      await page.screenshot({ path: `test-results/screens/search-${lng}-${width}.png`, fullPage: true })
    }
    {
      const axe = await axeBuilder(page).analyze()
      expect(axe.violations).toEqual([])
    }
    // a combobox open, on a phone: the option list too must be clean
    await page.setViewportSize({ width: 360, height: 800 })
    await page.getByRole('combobox').and(page.locator('input')).first().click()
    await expect(page.getByRole('listbox').getByRole('option').first()).toBeVisible()
    await page.screenshot({ path: `test-results/screens/search-combobox-${lng}-360.png` })
    {
      const axe = await axeBuilder(page).analyze()
      expect(axe.violations).toEqual([])
    }
    await page.keyboard.press('Escape')
    await expect(page.getByRole('listbox')).toBeHidden()
    // the confirmation, on a phone
    await page.setViewportSize({ width: 360, height: 800 })
    // the phone's bottom bar holds "Export…" (the side panel's copy is far below)
    await page.locator('[data-testid=export-open]:visible').first().click()
    await expect(page.getByRole('dialog').getByTestId('confirm-export')).toBeVisible()
    await expect(page.getByRole('dialog').getByTestId('balance-after')).toBeVisible()
    await page.screenshot({ path: `test-results/screens/confirm-${lng}-360.png` })
    {
      const axe = await axeBuilder(page).analyze()
      expect(axe.violations).toEqual([])
    }
    await page.keyboard.press('Escape')

    const searchId = await previewIdFor(request, headers)
    const started = await request.post('/api/download-csv/', { data: { search_id: searchId, export_format: 'csv', max_leads: 5 }, headers })
    expect(started.status()).toBe(202)
    const exportId = ((await started.json()) as { search_id: number }).search_id
    await page.goto(`/exports/${exportId}`)
    await expect(page.locator('main button').first()).toBeVisible({ timeout: 30_000 })
    await page.waitForLoadState('networkidle')
    for (const width of [360, 1280]) {
      await page.setViewportSize({ width, height: 900 })
      await page.screenshot({ path: `test-results/screens/export-${lng}-${width}.png`, fullPage: true })
    }
    {
      const axe = await axeBuilder(page).analyze()
      expect(axe.violations).toEqual([])
    }
  })
}

async function previewIdFor(request: APIRequestContext, headers: Record<string, string>): Promise<number> {
  const res = await request.get('/api/companies/?countries=DE&email=true', { headers })
  return Number(((await res.json()) as { search_id: number | string }).search_id)
}

test('comboboxes: Tab goes straight to the next field and back; the match stays readable on the active option', async ({
  page,
  request,
}) => {
  const account = await newAccount(request)
  await signIn(page, account)
  const countries = page.getByRole('combobox', { name: 'Countries', exact: true })
  await countries.focus()
  await page.keyboard.type('germ', { delay: 30 })
  const option = page.getByRole('option', { name: /Germany/ }).first()
  await expect(option).toBeVisible()
  await expect(countries).toHaveAttribute('aria-activedescendant', (await option.getAttribute('id')) ?? '')
  const colours = await option.evaluate((li) => {
    const mark = li.querySelector('mark')
    return mark && { row: getComputedStyle(li).color, mark: getComputedStyle(mark).color, bg: getComputedStyle(mark).backgroundColor }
  })
  // on the brand-coloured active row the match keeps the row's own text colour, with no yellow behind it
  expect(colours).not.toBeNull()
  expect(colours?.mark).toBe(colours?.row)
  expect(colours?.bg).toBe('rgba(0, 0, 0, 0)')

  await page.keyboard.press('Tab')
  const next = await page.evaluate(() => {
    const el = document.activeElement
    return el && el !== document.body ? { tag: el.tagName, visible: (el as HTMLElement).offsetParent !== null } : null
  })
  expect(next).toEqual({ tag: 'INPUT', visible: true })
  await page.keyboard.press('Shift+Tab')
  await expect(countries).toBeFocused()
})
