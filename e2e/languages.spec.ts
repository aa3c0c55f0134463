import { expect, test } from '@playwright/test'
import { apiAs, axeCheck, chooseLanguage, grantCredits, newestOutboxMail, signInViaUi, signUpViaApi } from './helpers'

/**
 * Issue 10, every word in the person's language, against the real service: a service error
 * translated by its code (Hebrew), a mail in the account's language (Polish), a Thai list of
 * multi-word places, and the API-key expiry picked by keyboard in German.
 */

test('sign-up with a taken email, in Hebrew: the service error arrives in Hebrew', async ({ page }) => {
  await page.goto('/sign-up')
  await chooseLanguage(page, 'Language', 'עברית')
  await expect(page.locator('html')).toHaveAttribute('dir', 'rtl')
  await page.getByLabel('דוא״ל').fill('demo@example.com')
  await page.getByLabel('סיסמה', { exact: true }).fill('a long enough password')
  await page.getByRole('button', { name: 'יצירת חשבון' }).click()
  await expect(page.getByText('כבר קיים חשבון עם האימייל הזה. התחברו או אפסו את הסיסמה.')).toBeVisible()
  await expect(page.getByLabel('דוא״ל')).toHaveAttribute('aria-invalid', 'true')
  await expect(page.getByText('An account with this email already exists.')).toHaveCount(0)
  await axeCheck(page, 'sign-up (he) with the service error')
})

test('a reset asked for a Polish account writes a Polish mail', async ({ page, request }) => {
  const account = await signUpViaApi(request, { prefix: 'pl-mail', preferred_language: 'pl' })
  await page.goto('/forgot-password')
  await page.getByLabel('Email').fill(account.email)
  await page.getByRole('button', { name: 'Send the link' }).click()
  await expect(page.getByText(new RegExp(`If an account exists for ${account.email.replace(/[.+]/g, '\\$&')}`))).toBeVisible()
  await expect.poll(() => newestOutboxMail(account.email).text).toContain('Ktoś poprosił o zresetowanie hasła')
  const { text } = newestOutboxMail(account.email)
  expect(text).toContain('Content-Language: pl')
  expect(text).toContain(`Subject: =?UTF-8?B?${Buffer.from('Zresetuj hasło').toString('base64')}?=`)
  expect(text).toMatch(/otwórz ten link w ciągu 1 godziny/)
  // the link in the Polish mail works like any other
  const link = /(\/reset-password\?token=[A-Za-z0-9_-]+)/.exec(text)![1]!
  await page.goto(link)
  await expect(page.locator('html')).toHaveAttribute('lang', /.+/)
  await expect(page.locator('form')).toBeVisible()
})

test('a Thai history entry names two multi-word places as two items', async ({ page, request }) => {
  const account = await signUpViaApi(request, { prefix: 'th-list', preferred_language: 'th' })
  await grantCredits(request, account, { plan_type: 'Starter', subscription: 50_000 })
  const regions = (await apiAs<Array<{ id: string; name: string }>>(request, account, 'GET', '/api/locations/level1/?country=TH')).body
  const ids = ['Chiang Mai', 'Chon Buri'].map((name) => regions.find((r) => r.name === name)!.id)
  const preview = await apiAs<{ search_id: number }>(
    request,
    account,
    'GET',
    `/api/companies/?countries=TH&level1_location=${ids.join(',')}`,
  )
  expect(preview.status).toBe(200)
  const started = await apiAs<{ search_id: number }>(request, account, 'POST', '/api/download-csv/', {
    search_id: preview.body.search_id,
    export_format: 'csv',
    max_leads: 5,
  })
  expect(started.status).toBe(202)

  await signInViaUi(page, account, { next: '/history' })
  await expect(page.locator('html')).toHaveAttribute('lang', 'th')
  const places = page.locator('dt', { hasText: 'สถานที่' }).locator('xpath=following-sibling::dd[1]')
  await expect(places.locator('bdi')).toHaveText(['Chiang Mai', 'Chon Buri'])
  // Intl alone writes "Chiang MaiและChon Buri": the conjunction now stands apart from both names
  await expect(places).toHaveText('Chiang Mai และ Chon Buri')
  await axeCheck(page, 'history (th)')
})

test('the API-key expiry, picked with the keyboard in German, speaks German', async ({ page, request }) => {
  const account = await signUpViaApi(request, { prefix: 'de-key', preferred_language: 'de' })
  await signInViaUi(page, account, { next: '/api-keys' })
  const field = page.getByRole('group', { name: 'Ablaufdatum (optional)' })
  const segments = field.getByRole('spinbutton')
  // German order: day, month, year
  await expect(segments).toHaveCount(3)
  await expect(segments.nth(0)).toHaveAttribute('aria-label', /Tag/)
  await expect(segments.nth(1)).toHaveAttribute('aria-label', /Monat/)
  await expect(segments.nth(2)).toHaveAttribute('aria-label', /Jahr/)

  // open the calendar from the field with the keyboard, go two months on, pick a day
  await segments.nth(0).focus()
  await page.keyboard.press('Alt+ArrowDown')
  const calendar = page.getByRole('application')
  await expect(calendar).toBeVisible()
  await page.keyboard.press('PageDown')
  await page.keyboard.press('PageDown')
  const inTwoMonths = new Date()
  inTwoMonths.setDate(1)
  inTwoMonths.setMonth(inTwoMonths.getMonth() + 2)
  const monthName = new Intl.DateTimeFormat('de', { month: 'long' }).format(inTwoMonths)
  await expect(calendar.getByRole('heading')).toContainText(monthName)
  // the month names are German, not English
  expect(monthName).not.toBe(new Intl.DateTimeFormat('en', { month: 'long' }).format(inTwoMonths))
  await axeCheck(page, 'api keys (de), calendar open')
  await page.keyboard.press('Enter')
  await expect(calendar).toBeHidden()
  await expect(page.getByTestId('expiry-format')).toContainText(`Gewählt: `)
  await expect(page.getByTestId('expiry-format')).toContainText(monthName)

  await page.getByRole('button', { name: 'Schlüssel erstellen' }).click()
  await expect(page.getByRole('heading', { name: 'Ihr neuer API-Schlüssel' })).toBeVisible()
  // the key's expiry, in German
  await expect(page.getByText(/^Läuft ab am \d{2}\.\d{2}\.\d{4}/)).toBeVisible()
  const keys = (await apiAs<Array<{ expiry: string | null }>>(request, account, 'GET', '/api/user/api-keys/')).body
  expect(keys).toHaveLength(1)
  expect(new Date(keys[0]!.expiry!).getMonth()).toBe(inTwoMonths.getMonth())
})
