import { expect, test } from '@playwright/test'
import { advanceClock, apiAs, chooseLanguage, newestOutboxMail, signInViaUi, signUpViaApi, uniqueEmail } from './helpers'

/**
 * Sessions against the real reference service: sign-up, sign-in with a way back, an access token
 * expiring mid-session (test clock), sign-out across tabs, a refused refresh, the password reset
 * through the outbox link, and the language switch to Hebrew and Thai.
 */

test('sign up through the form and land in the dashboard', async ({ page }) => {
  await page.goto('/sign-up')
  await expect(page).toHaveTitle(/Create an account/)
  const email = uniqueEmail('signup')
  await page.getByLabel('First name').fill('Ada')
  await page.getByLabel('Last name').fill('Lovelace')
  await page.getByLabel('Email').fill(email)
  await page.getByLabel('Password').fill('short')
  await page.getByRole('button', { name: 'Create account' }).click()
  await expect(page.getByText('The password needs at least 8 characters.')).toBeVisible()

  await page.getByLabel('Password').fill('a-good-password')
  await page.getByRole('button', { name: 'Create account' }).click()
  await expect(page).toHaveURL(/\/search$/)
  await expect(page.getByRole('region', { name: 'Credit balance' })).toBeVisible()

  // the same address again is refused on the field itself
  await page.getByRole('button', { name: 'Account menu' }).click()
  await page.locator('#user-menu').getByRole('button', { name: 'Sign out' }).click()
  await page.goto('/sign-up')
  await page.getByLabel('Email').fill(email)
  await page.getByLabel('Password').fill('a-good-password')
  await page.getByRole('button', { name: 'Create account' }).click()
  await expect(page.getByLabel('Email')).toHaveAttribute('aria-invalid', 'true')
})

test('a signed-out visitor is sent to sign-in and back where they were going', async ({ page, request }) => {
  const account = await signUpViaApi(request, { prefix: 'next' })
  await page.goto('/history?page=2')
  await expect(page).toHaveURL(/\/sign-in\?next=%2Fhistory%3Fpage%3D2$/)
  await page.getByLabel('Email').fill(account.email)
  await page.getByLabel('Password').fill('wrong-password')
  await page.getByRole('button', { name: 'Sign in' }).click()
  await expect(page.getByRole('alert')).toHaveText('The email or the password is not right.')
  await page.getByLabel('Password').fill(account.password)
  await page.getByRole('button', { name: 'Sign in' }).click()
  await expect(page).toHaveURL(/\/history\?page=2$/)

  // an off-site ?next= is ignored
  await page.getByRole('button', { name: 'Account menu' }).click()
  await page.locator('#user-menu').getByRole('button', { name: 'Sign out' }).click()
  await signInViaUi(page, account, { next: '//evil.example/steal' })
  await expect(page).toHaveURL(/127\.0\.0\.1:\d+\/search$/)
})

test('an access token that expires mid-session is renewed without the person noticing', async ({ page, request }) => {
  const account = await signUpViaApi(request, { prefix: 'expire' })
  await signInViaUi(page, account, { next: '/account' })
  const refreshes: number[] = []
  const rejected: string[] = []
  page.on('response', (res) => {
    if (res.url().includes('/api/token/refresh/')) refreshes.push(res.status())
    else if (res.url().includes('/api/') && res.status() === 401) rejected.push(res.url())
  })

  await advanceClock(request, account, 3660) // 61 minutes: the 60-minute access token is now expired
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Exports history' }).click()
  await expect(page).toHaveURL(/\/history$/)
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Account' }).click()
  await expect(page).toHaveURL(/\/account$/)
  await expect(page.getByRole('region', { name: 'Credit balance' })).toBeVisible()

  await expect.poll(() => refreshes.length).toBe(1)
  expect(refreshes).toEqual([200])
  expect(rejected.length).toBeGreaterThan(0) // the expired token really was refused once…
  await expect(page).not.toHaveURL(/sign-in/) // …and the person never saw it
})

test('signing out in one tab signs out the other', async ({ context, request }) => {
  const account = await signUpViaApi(request, { prefix: 'tabs' })
  const first = await context.newPage()
  await signInViaUi(first, account)
  const second = await context.newPage()
  await second.goto('/account')
  await expect(second.getByRole('button', { name: 'Account menu' })).toBeVisible()
  await expect(second).toHaveURL(/\/account$/)

  await first.getByRole('button', { name: 'Account menu' }).click()
  await first.locator('#user-menu').getByRole('button', { name: 'Sign out' }).click()
  await expect(first).toHaveURL(/\/sign-in/)
  await expect(second).toHaveURL(/\/sign-in/)
  await expect(second.getByRole('heading', { level: 1, name: 'Sign in' })).toBeVisible()
  expect(await second.evaluate(() => localStorage.getItem('leads.refresh'))).toBeNull()
})

test('a refused refresh ends the session with a message and the way back', async ({ page, request }) => {
  const account = await signUpViaApi(request, { prefix: 'refused' })
  await signInViaUi(page, account, { next: '/api-keys' })
  // a reload keeps only the refresh token; make the service refuse it
  await page.evaluate(() => localStorage.setItem('leads.refresh', 'not-a-valid-token'))
  await page.reload()
  await expect(page).toHaveURL(/\/sign-in\?reason=expired&next=%2Fapi-keys$/)
  await expect(page.getByText('Your session has ended. Sign in again to continue where you were.')).toBeVisible()
  await page.getByLabel('Email').fill(account.email)
  await page.getByLabel('Password').fill(account.password)
  await page.getByRole('button', { name: 'Sign in' }).click()
  await expect(page).toHaveURL(/\/api-keys$/)
})

test('password reset through the link in the outbox mail', async ({ page, request }) => {
  const account = await signUpViaApi(request, { prefix: 'reset' })
  await page.goto('/sign-in')
  await page.getByRole('link', { name: 'Forgot your password?' }).click()
  await expect(page).toHaveURL(/\/forgot-password$/)
  await page.getByLabel('Email').fill(account.email)
  await page.getByRole('button', { name: 'Send the link' }).click()
  await expect(page.getByText(`If an account exists for ${account.email}`)).toBeVisible()

  let link = ''
  await expect
    .poll(() => {
      try {
        link = newestOutboxMail(account.email).text.match(/https?:\/\/\S+\/reset-password\?token=[^\s]+/)?.[0] ?? ''
      } catch {
        link = ''
      }
      return link
    })
    .not.toBe('')
  const url = new URL(link)
  await page.goto(`${url.pathname}${url.search}`)
  await expect(page.getByRole('heading', { name: 'Choose a new password' })).toBeVisible()
  await page.getByLabel('New password', { exact: true }).fill('the-new-password-1')
  await page.getByLabel('Repeat the new password').fill('the-new-password-1')
  await page.getByRole('button', { name: 'Change password' }).click()
  await expect(page).toHaveURL(/\/sign-in\?reason=password-changed$/)
  await expect(page.getByText('Your password has been changed.')).toBeVisible()

  await signInViaUi(page, { email: account.email, password: 'the-new-password-1' })
  await expect(page).toHaveURL(/\/search$/)

  // the link works once
  await page.getByRole('button', { name: 'Account menu' }).click()
  await page.locator('#user-menu').getByRole('button', { name: 'Sign out' }).click()
  await page.goto(`${url.pathname}${url.search}`)
  await page.getByLabel('New password', { exact: true }).fill('another-password-2')
  await page.getByLabel('Repeat the new password').fill('another-password-2')
  await page.getByRole('button', { name: 'Change password' }).click()
  await expect(page.getByText('This reset link is not valid any more.')).toBeVisible()
})

test('switching to Hebrew and Thai: right-to-left, translated, saved to the profile', async ({ page, request }) => {
  const account = await signUpViaApi(request, { prefix: 'lang' })
  await signInViaUi(page, account)
  await chooseLanguage(page, 'Language', 'עברית')
  await expect(page.locator('html')).toHaveAttribute('dir', 'rtl')
  await expect(page.locator('html')).toHaveAttribute('lang', 'he')
  const nav = page.getByRole('navigation', { name: 'ראשי' })
  await expect(nav.getByRole('link', { name: 'חיפוש' })).toBeVisible()
  await expect
    .poll(async () => (await apiAs<{ preferred_language: string }>(request, account, 'GET', '/api/user/profile/')).body.preferred_language)
    .toBe('he')
  // the navigation starts at the right edge in right-to-left
  const box = await nav.boundingBox()
  const width = page.viewportSize()?.width ?? 0
  expect(box && box.x + box.width > width / 2).toBe(true)

  await chooseLanguage(page, 'שפה', 'ไทย')
  await expect(page.locator('html')).toHaveAttribute('dir', 'ltr')
  await expect(page.locator('html')).toHaveAttribute('lang', 'th')
  await expect(page.getByRole('navigation', { name: 'หลัก' }).getByRole('link', { name: 'ค้นหา' })).toBeVisible()
  await expect
    .poll(async () => (await apiAs<{ preferred_language: string }>(request, account, 'GET', '/api/user/profile/')).body.preferred_language)
    .toBe('th')

  // a new sign-in elsewhere comes back in the saved language
  await page.context().clearCookies()
  await page.evaluate(() => localStorage.clear())
  await page.goto('/sign-in')
  // whatever this browser starts in, English for the sign-in form
  await chooseLanguage(page, /^(Language|ภาษา)/, 'English')
  await signInViaUi(page, account)
  await expect(page.locator('html')).toHaveAttribute('lang', 'th')
})
