import AxeBuilder from '@axe-core/playwright'
import { expect, test, type APIRequestContext, type Page } from '@playwright/test'
import { readFile } from 'node:fs/promises'
import { confirmViaOutbox } from './helpers'

/**
 * Issue 11 against the reference service: a second, overlapping export leaves out (and does not charge)
 * the leads the account already has; a file with chosen columns and German headers; the plan for
 * expiring purchased credits leads to the usual confirmation with the right amount.
 */

interface Account {
  email: string
  password: string
  token: string
}

async function newAccount(request: APIRequestContext, grant: Record<string, unknown>): Promise<Account> {
  const email = `pay-once-${Date.now()}-${Math.random().toString(36).slice(2, 8)}@example.com`
  const password = 'pay-once-pass-1'
  expect((await request.post('/api/auth/sign-up/', { data: { email, password } })).status()).toBe(201)
  await confirmViaOutbox(request, email)
  const login = await request.post('/api/auth/login/', { data: { username: email, password } })
  const token = ((await login.json()) as { access: string }).access
  expect((await request.post('/api/_test/grant-credits/', { data: grant, headers: { Authorization: `Bearer ${token}` } })).ok()).toBe(true)
  return { email, password, token }
}

async function balance(request: APIRequestContext, account: Account): Promise<number> {
  const p = (await (await request.get('/api/user/profile/', { headers: { Authorization: `Bearer ${account.token}` } })).json()) as {
    remaining_credits: number | null
    purchased_credits_available: number
  }
  return (p.remaining_credits ?? 0) + p.purchased_credits_available
}

async function signIn(page: Page, account: Account, next: string) {
  await page.goto(`/sign-in?next=${encodeURIComponent(next)}`)
  await page.getByLabel('Email').fill(account.email)
  await page.getByLabel('Password', { exact: true }).fill(account.password)
  await page.getByRole('button', { name: 'Sign in' }).click()
  await page.waitForURL((url) => url.pathname === next.split('?')[0])
}

async function leadCount(page: Page): Promise<number> {
  const count = page.getByTestId('lead-count').first()
  await expect(count).toBeVisible()
  await expect(page.getByText('Updating…')).toHaveCount(0)
  return Number(await count.getAttribute('data-count'))
}

async function startFromDialog(page: Page): Promise<void> {
  await page.getByRole('dialog').getByRole('button', { name: 'Start export' }).click()
  await page.waitForURL(/\/exports\/\d+$/)
  await expect(page.getByRole('button', { name: /^Download / })).toBeVisible({ timeout: 30_000 })
}

test('an overlapping second export leaves out the leads already bought and charges only the difference', async ({ page, request }) => {
  const account = await newAccount(request, { subscription: 100_000, plan_type: 'Pro' })
  await signIn(page, account, '/search?country=DE&email=1')
  const withEmail = await leadCount(page)
  await page.locator('[data-testid=export-open]:visible').first().click()
  await startFromDialog(page)
  const afterFirst = await balance(request, account)

  await page.goto('/search?country=DE')
  const all = await leadCount(page)
  expect(all).toBeGreaterThan(withEmail)
  const owned = page.getByTestId('owned-leads')
  await expect(owned).toHaveAttribute('data-owned', String(withEmail))
  await expect(owned).toContainText(`Leads you already have: ${withEmail.toLocaleString('en')} of ${all.toLocaleString('en')}`)
  await expect(owned.getByRole('checkbox', { name: /Skip leads I already have/ })).toBeChecked()
  expect((await new AxeBuilder({ page }).analyze()).violations).toEqual([])

  await page.locator('[data-testid=export-open]:visible').first().click()
  const dialog = page.getByRole('dialog')
  await expect(dialog.getByTestId('export-cost')).toHaveText(`${(all - withEmail).toLocaleString('en')} credits`)
  await expect(dialog.getByTestId('export-saved')).toHaveText(withEmail.toLocaleString('en'))
  await startFromDialog(page)
  expect(afterFirst - (await balance(request, account))).toBe(all - withEmail)
})

test('a file with chosen columns and German headers opens as a German spreadsheet expects', async ({ page, request }) => {
  const account = await newAccount(request, { subscription: 100_000, plan_type: 'Pro' })
  await request.patch('/api/user/profile/', { data: { preferred_language: 'de' }, headers: { Authorization: `Bearer ${account.token}` } })
  await signIn(page, account, '/search?country=DE&cap=25')
  await expect(page.locator('html')).toHaveAttribute('lang', 'de')
  await leadCount(page)
  await page.getByRole('button', { name: /datei/i }).click()
  await page.getByRole('button', { name: 'Spalten wählen' }).click()
  await page.getByRole('button', { name: 'Nur Kontaktdaten' }).click()
  await page.getByRole('button', { name: 'E-Mail nach oben' }).click()
  await expect(page.getByTestId('columns-summary')).toHaveText('6 von 20')
  await expect(page.getByRole('radio', { name: /Für Tabellen auf Deutsch/ })).toBeChecked()
  expect((await new AxeBuilder({ page }).analyze()).violations).toEqual([])

  await page.locator('[data-testid=export-open]:visible').first().click()
  const dialog = page.getByRole('dialog')
  await expect(dialog.getByTestId('export-file-kind')).toContainText('„;“')
  await expect(dialog.getByTestId('export-columns')).toHaveText('6 von 20')
  await dialog.getByRole('button', { name: 'Export starten' }).click()
  await page.waitForURL(/\/exports\/\d+$/)
  const button = page.getByRole('button', { name: /herunterladen/i })
  await expect(button).toBeVisible({ timeout: 30_000 })
  const [download] = await Promise.all([page.waitForEvent('download'), button.click()])
  const bytes = await readFile((await download.path())!)
  expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf])
  const lines = bytes.subarray(3).toString('utf8').trim().split('\r\n')
  expect(lines[0]).toBe('E-Mail;Name;Telefon;Website;Ort;Land')
  expect(lines).toHaveLength(26)
  expect(lines.slice(1).every((l) => l.split(';').length >= 6)).toBe(true)
})

test('the plan for expiring credits leads to a confirmation of exactly the expiring amount', async ({ page, request }) => {
  const account = await newAccount(request, { subscription: 0, purchased: 37, purchased_expires_in_days: 3, plan_type: 'Pro' })
  await signIn(page, account, '/search')
  const header = page.getByTestId('credits-expiring').first()
  await expect(header).toHaveText('Expiring soon: 37')
  await header.click()
  await page.waitForURL((url) => url.pathname === '/account')
  const plan = page.getByTestId('expiring-plan')
  await expect(plan).toContainText('Purchased credits expiring within 7 days: 37.')
  expect((await new AxeBuilder({ page }).analyze()).violations).toEqual([])
  await plan.getByRole('link', { name: 'Search and export, capped at 37' }).click()
  await page.waitForURL((url) => url.pathname === '/search' && url.searchParams.get('cap') === '37')
  // the same cap is one click away on the search page too
  await page.goto('/search?country=FR')
  await leadCount(page)
  const hint = page.getByTestId('expiring-hint')
  await expect(hint).toContainText('Purchased credits expiring within 7 days: 37')
  await hint.getByRole('button', { name: 'Cap this export at 37' }).click()
  await expect(page).toHaveURL(/cap=37/)
  await leadCount(page)
  await page.locator('[data-testid=export-open]:visible').first().click()
  const dialog = page.getByRole('dialog', { name: 'Export 37 leads?' })
  await expect(dialog.getByTestId('export-cost')).toHaveText('37 credits')
  await expect(dialog.getByTestId('balance-after')).toHaveText('0 credits')
})

test('in Hebrew: the owned leads, the file options and the confirmation read right to left, axe clean', async ({ page, request }) => {
  const account = await newAccount(request, { subscription: 100_000, purchased: 20, purchased_expires_in_days: 2, plan_type: 'Pro' })
  const auth = { Authorization: `Bearer ${account.token}` }
  await request.patch('/api/user/profile/', { data: { preferred_language: 'he' }, headers: auth })
  const pv = (await (await request.get('/api/companies/?countries=IL', { headers: auth })).json()) as { search_id: number }
  expect(
    (
      await request.post('/api/download-csv/', { data: { search_id: pv.search_id, export_format: 'csv', max_leads: 3 }, headers: auth })
    ).status(),
  ).toBe(202)

  await signIn(page, account, '/search?country=IL')
  await expect(page.locator('html')).toHaveAttribute('dir', 'rtl')
  await leadCount(page)
  await expect(page.getByTestId('owned-leads')).toHaveAttribute('data-owned', '3')
  await expect(page.getByTestId('expiring-hint')).toBeVisible()
  await page.getByRole('button', { name: /קובץ/ }).click()
  await page.getByRole('button', { name: 'בחירת עמודות' }).click()
  await expect(page.getByRole('radio', { name: /מוכן לגיליונות אלקטרוניים בעברית/ })).toBeChecked()
  expect((await new AxeBuilder({ page }).analyze()).violations).toEqual([])
  await page.locator('[data-testid=export-open]:visible').first().click()
  await expect(page.getByRole('dialog').getByTestId('export-saved')).toHaveText('3')
  expect((await new AxeBuilder({ page }).analyze()).violations).toEqual([])
})
