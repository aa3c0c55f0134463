import AxeBuilder from '@axe-core/playwright'
import { expect, test, type APIRequestContext, type Page } from '@playwright/test'
import { signInViaUi, signUpViaApi, type Account } from './helpers'

/** API keys end to end: created in the dashboard, used from here with both header forms, revoked. */

const newAccount = (request: APIRequestContext) => signUpViaApi(request, { prefix: 'f3-k' })

async function signIn(page: Page, a: Account, next: string) {
  await signInViaUi(page, a, { next })
  await page.waitForURL((url) => url.pathname === next)
}

const preview = (request: APIRequestContext, authorization: string) =>
  request.get('/api/companies/?countries=DE', { headers: { Authorization: authorization } })

test('create a key, call the API with Token and Bearer, revoke it, and the next call answers 401', async ({ page, request, context }) => {
  const a = await newAccount(request)
  await context.grantPermissions(['clipboard-read', 'clipboard-write'])
  await signIn(page, a, '/api-keys')
  await expect(page.getByText('You have no API keys yet.')).toBeVisible()

  await page.getByRole('button', { name: 'Create key' }).click()
  const dialog = page.getByRole('dialog', { name: 'Your new API key' })
  await expect(dialog.getByText(/you will not see it again/)).toBeVisible()
  const key = await dialog.getByLabel('Full API key').inputValue()
  expect(key.length).toBeGreaterThan(20)

  await dialog.getByRole('button', { name: 'Copy key' }).click()
  await expect(dialog.getByText('Copied', { exact: true })).toBeVisible()
  expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(key)

  const origin = new URL(page.url()).origin
  await expect(dialog.locator('pre')).toHaveText(`curl -H "Authorization: Token ${key}" "${origin}/api/companies/?countries=DE"`)

  const axe = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']).analyze()
  expect(axe.violations.map((v) => v.id)).toEqual([])

  // the dialog stays until the person confirms they have the key
  await expect(dialog.getByRole('button', { name: 'Done' })).toBeDisabled()
  await page.keyboard.press('Escape')
  await expect(dialog.getByLabel('Full API key')).toBeVisible()
  await dialog.getByRole('checkbox', { name: /I have copied the key/ }).check()
  await dialog.getByRole('button', { name: 'Done' }).click()
  await expect(page.getByRole('dialog')).toHaveCount(0)

  const prefix = key.slice(0, 4)
  const row = page.getByRole('row').filter({ hasText: 'Active' })
  await expect(row).toHaveCount(1)
  const shownPrefix = ((await row.locator('td').first().textContent()) ?? '').replace('…', '')
  expect(key.startsWith(shownPrefix)).toBe(true)
  expect(shownPrefix.startsWith(prefix)).toBe(true)
  await expect(page.getByText(key)).toHaveCount(0)

  // the key works with both documented header forms
  const viaToken = await preview(request, `Token ${key}`)
  expect(viaToken.status()).toBe(200)
  expect(typeof ((await viaToken.json()) as { totalCount: number }).totalCount).toBe('number')
  expect((await preview(request, `Bearer ${key}`)).status()).toBe(200)

  await row.getByRole('button', { name: `Revoke key ${shownPrefix}…` }).click()
  const confirm = page.getByRole('dialog', { name: `Revoke key ${shownPrefix}…?` })
  await expect(confirm.getByText(`Programs using the key ${shownPrefix}… will be refused at once.`)).toBeVisible()
  await confirm.getByRole('button', { name: 'Revoke key' }).click()
  await expect(page.getByText(`Key ${shownPrefix}… was revoked.`)).toBeVisible()
  await expect(page.getByText('You have no API keys yet.')).toBeVisible()

  expect((await preview(request, `Token ${key}`)).status()).toBe(401)
  expect((await preview(request, `Bearer ${key}`)).status()).toBe(401)
})

test('a past expiry date is refused before sending; a future one is listed', async ({ page, request }) => {
  const a = await newAccount(request)
  await signIn(page, a, '/api-keys')
  let posts = 0
  page.on('request', (r) => {
    if (r.method() === 'POST' && r.url().includes('/api/user/api-keys')) posts++
  })
  // the date is typed into its segments (month, day, year in English), as a person types it
  const month = page.getByRole('group', { name: 'Expiry date (optional)' }).getByRole('spinbutton').first()
  const typeDay = async (mmddyyyy: string) => {
    await month.click()
    await page.keyboard.type(mmddyyyy)
  }
  await typeDay('01012020')
  await page.getByRole('button', { name: 'Create key' }).click()
  await expect(page.getByText('Choose a date that has not passed yet.')).toBeVisible()
  expect(posts).toBe(0)

  const nextYear = new Date().getFullYear() + 1
  await typeDay(`0630${nextYear}`)
  await page.getByRole('button', { name: 'Create key' }).click()
  const dialog = page.getByRole('dialog', { name: 'Your new API key' })
  await expect(dialog.getByText(/^Expires /)).toBeVisible()
  expect(posts).toBe(1)
  await dialog.getByRole('checkbox').check()
  await dialog.getByRole('button', { name: 'Done' }).click()
  const row = page.getByRole('row').filter({ hasText: 'Active' })
  await expect(row).toContainText(String(nextYear))
})

test('a key made read-only (the default) searches but its export is refused; an export key with a cap shows what it spent', async ({
  page,
  request,
}) => {
  const a = await newAccount(request)
  await signIn(page, a, '/api-keys')
  const rights = page.getByRole('group', { name: 'What the key may do' })
  await expect(rights.getByRole('radio', { name: /Search and download only/ })).toBeChecked()
  await page.getByRole('button', { name: 'Create key' }).click()
  const dialog = page.getByRole('dialog', { name: 'Your new API key' })
  const key = await dialog.getByLabel('Full API key').inputValue()
  await dialog.getByRole('checkbox', { name: /I have copied the key/ }).check()
  await dialog.getByRole('button', { name: 'Done' }).click()
  await expect(page.getByRole('row').filter({ hasText: 'Read only' })).toHaveCount(1)

  const headers = { Authorization: `Bearer ${key}` }
  const found = await request.get('/api/companies/?countries=DE', { headers })
  expect(found.status()).toBe(200)
  const { search_id } = (await found.json()) as { search_id: number }
  const refused = await request.post('/api/download-csv/', { headers, data: { search_id, export_format: 'csv', max_leads: 1 } })
  expect(refused.status()).toBe(403)
  expect(await refused.json()).toMatchObject({ code: 'api_key_read_only' })

  // an export key with a cap of 2: one export of 2 leads, then the list shows the cap used up
  await rights.getByRole('radio', { name: /Also start exports/ }).check()
  await page.getByLabel('Monthly credit cap (optional)').fill('2')
  await page.getByRole('button', { name: 'Create key' }).click()
  const second = await dialog.getByLabel('Full API key').inputValue()
  await dialog.getByRole('checkbox', { name: /I have copied the key/ }).check()
  await dialog.getByRole('button', { name: 'Done' }).click()
  const exportKey = { Authorization: `Bearer ${second}` }
  expect(
    (await request.post('/api/download-csv/', { headers: exportKey, data: { search_id, export_format: 'csv', max_leads: 2 } })).status(),
  ).toBe(202)
  const over = await request.post('/api/download-csv/', { headers: exportKey, data: { search_id, export_format: 'csv', max_leads: 1 } })
  expect(await over.json()).toMatchObject({ code: 'api_key_cap_reached', cap: 2, spent: 2 })
  await page.reload()
  await expect(page.getByRole('row').filter({ hasText: 'Export' }).getByTestId('key-spent')).toHaveText('2 of 2 credits')
  await page.screenshot({ path: 'test-results/screens/api-keys-scoped.png', fullPage: true })
  const axe = await new AxeBuilder({ page }).withTags(['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa']).analyze()
  expect(axe.violations.map((v) => v.id)).toEqual([])
})
