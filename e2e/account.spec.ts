import { expect, test, type APIRequestContext, type Page } from '@playwright/test'
import { authHeaders, axeBuilder, signInViaUi, signUpViaApi, type Account } from './helpers'

/** Account and credits against the real service, the language switch, and the fresh-data verdict's screenshots. */

/**
 * A call as the account with a token from a fresh login, once more on 401: other tests of the lane
 * share the service clock and may move it past a token's life between login and use.
 */
async function asAccount(request: APIRequestContext, a: Account, method: 'GET' | 'POST' | 'PATCH', path: string, data?: unknown) {
  let res
  for (let attempt = 0; attempt < 2; attempt++) {
    res = await request.fetch(path, { method, data, headers: await authHeaders(request, a) })
    if (res.status() !== 401) break
  }
  return { status: res!.status(), text: await res!.text() }
}

async function newAccount(request: APIRequestContext, grant?: Record<string, unknown>): Promise<Account> {
  const a = await signUpViaApi(request, { prefix: 'f3-a' })
  if (grant) {
    const granted = await asAccount(request, a, 'POST', '/api/_test/grant-credits/', grant)
    expect(granted.status, granted.text).toBe(200)
  }
  return a
}

async function signIn(page: Page, a: Account, next: string) {
  await signInViaUi(page, a, { next })
  await page.waitForURL((url) => url.pathname === next)
}

test('credits panel shows what the service says', async ({ page, request }) => {
  const a = await newAccount(request, { plan_type: 'Pro', subscription: 4321, purchased: 250, purchased_expires_in_days: 3 })
  await signIn(page, a, '/account')
  const credits = page
    .getByRole('region', { name: 'Credits' })
    .or(page.locator('section', { has: page.getByRole('heading', { name: 'Credits' }) }))
  await expect(credits.getByText('Pro', { exact: true })).toBeVisible()
  await expect(credits.getByText('5,000 credits per month')).toBeVisible()
  await expect(credits.getByText('4,321 of 5,000 left this period')).toBeVisible()
  await expect(credits.getByText('250 available')).toBeVisible()
  await expect(credits.getByText(/250 purchased credits expire within 7 days/)).toBeVisible()
  await expect(credits.getByText('Included in your plan')).toBeVisible()
  await expect(credits.getByTestId('billing-period')).toHaveText(/\d{4}.*–.*\d{4}/)
  // nothing exported yet: the usage card says so in words instead of drawing an empty chart
  await expect(page.getByText('No credits spent over the last 12 weeks.')).toBeVisible()
  await expect(page.getByText('Your exports will show here.')).toBeVisible()
  await expect(page.getByRole('img', { name: 'Credits spent per week' })).toHaveCount(0)
})

test('changing the language in the profile switches the dashboard at once and it stays after reload', async ({ page, request }) => {
  const a = await newAccount(request)
  await signIn(page, a, '/account')
  await expect(page.getByRole('heading', { level: 1, name: 'Account' })).toBeVisible()
  await page.getByLabel('Preferred language').selectOption('de')
  await page.getByRole('button', { name: 'Save changes' }).click()
  await expect(page.locator('html')).toHaveAttribute('lang', 'de')
  const germanTitle = page.getByRole('heading', { level: 1 })
  await expect(germanTitle).not.toHaveText('Account')
  const titleInGerman = await germanTitle.textContent()

  // saved on the profile, so it survives a reload
  const profile = await asAccount(request, a, 'GET', '/api/user/profile/')
  expect(profile.status).toBe(200)
  expect((JSON.parse(profile.text) as { preferred_language: string }).preferred_language).toBe('de')
  await page.reload()
  await expect(page.locator('html')).toHaveAttribute('lang', 'de')
  await expect(page.getByRole('heading', { level: 1 })).toHaveText(titleInGerman ?? '')

  // Hebrew turns the page right-to-left
  const profileForm = page.locator('form').filter({ has: page.locator('select') })
  await profileForm.locator('select').selectOption('he')
  await profileForm.locator('button[type=submit]').click()
  await expect(page.locator('html')).toHaveAttribute('dir', 'rtl')
})

test('profile limits are checked before sending, and a taken email is shown on the field', async ({ page, request }) => {
  const other = await newAccount(request)
  const a = await newAccount(request)
  await signIn(page, a, '/account')
  let patches = 0
  page.on('request', (r) => {
    if (r.method() === 'PATCH') patches++
  })
  // the input stops at the interface's limit (150) and shows the count near it (issue 21)
  await page.getByLabel('First name').fill('x'.repeat(151))
  await expect(page.getByLabel('First name')).toHaveValue('x'.repeat(150))
  await expect(page.getByLabel('First name')).toHaveAccessibleDescription('Characters: 150 of 150')
  expect(patches).toBe(0)
  await page.getByLabel('First name').fill('Grace')
  await page.getByLabel('Email').fill(other.email)
  // a new sign-in address needs the current password, asked for before anything is sent
  const profileForm = page.locator('form').filter({ has: page.getByLabel('Email') })
  await page.getByRole('button', { name: 'Save changes' }).click()
  await expect(page.getByText('Enter your current password to change the email address.')).toBeVisible()
  expect(patches).toBe(0)
  await profileForm.getByLabel('Current password').fill(a.password)
  await page.getByRole('button', { name: 'Save changes' }).click()
  await expect(page.getByLabel('Email')).toHaveAttribute('aria-invalid', 'true')
  expect(patches).toBe(1)
})

// the pages themselves (history, account, API keys, plans) with this history, axe-checked and
// photographed at both widths in both languages: a11y.spec.ts
test('the fresh-data verdict at 360 px and 1280 px in English and Hebrew: screenshots, and no axe violations', async ({
  page,
  request,
}) => {
  const a = await newAccount(request, { plan_type: 'Starter', subscription: 5000, purchased: 40, purchased_expires_in_days: 5 })
  // some history to show: one completed, one capped, one failed
  const started: number[] = []
  for (const [query, max, fail] of [
    ['countries=DE&email=true', undefined, false],
    ['countries=FR', 20, false],
    ['countries=IL', 15, true],
  ] as const) {
    if (fail) expect((await asAccount(request, a, 'POST', '/api/_test/fail-next-export/', {})).status).toBe(200)
    const preview = await asAccount(request, a, 'GET', `/api/companies/?${query}`)
    const searchId = (JSON.parse(preview.text) as { search_id: number }).search_id
    const res = await asAccount(request, a, 'POST', '/api/download-csv/', {
      search_id: searchId,
      export_format: 'csv',
      ...(max ? { max_leads: max } : {}),
    })
    expect(res.status).toBe(202)
    started.push((JSON.parse(res.text) as { search_id: number }).search_id)
  }
  // the history shows them settled
  for (const id of started)
    await expect
      .poll(async () => (JSON.parse((await asAccount(request, a, 'GET', `/api/download-status/${id}/`)).text) as { status: string }).status)
      .toMatch(/^(COMPLETED|FAILED)$/)

  await signIn(page, a, '/history')
  for (const lng of ['en', 'he'] as const) {
    const patched = await asAccount(request, a, 'PATCH', '/api/user/profile/', { preferred_language: lng })
    expect(patched.status, patched.text).toBe(200)
    await page.evaluate((l) => localStorage.setItem('leads.language', l), lng)
    for (const width of [360, 1280]) {
      await page.setViewportSize({ width, height: 900 })
      // the fresh-data verdict (a dry run: free) in the same language and width
      await page.goto('/history')
      await expect(page.locator('html')).toHaveAttribute('lang', lng)
      await page.getByRole('button', { name: DIALOG_TEXT[lng].fresh }).first().click()
      const dialog = page.getByRole('dialog')
      await expect(dialog.locator('dl dd').first()).toBeVisible()
      await page.screenshot({ path: `test-results/f3-screens/delta-dialog-${lng}-${width}.png` })
      const axe = await axeBuilder(page).analyze()
      expect(axe.violations.map((v) => `delta dialog ${lng} ${width}: ${v.id}`)).toEqual([])
      await page.keyboard.press('Escape')
      await expect(page.getByRole('dialog')).toHaveCount(0)
    }
  }
})

const DIALOG_TEXT = { en: { fresh: 'Fresh data only' }, he: { fresh: 'נתונים חדשים בלבד' } } as const
