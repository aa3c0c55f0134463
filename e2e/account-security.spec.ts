import { expect, test, type Page } from '@playwright/test'
import { axeCheck, confirmationLink, signInViaUi, signUpViaApi, uniqueEmail } from './helpers'

/**
 * Issue 9 in the browser, against the real service: a confirmed sign-up before credits, an email
 * change that needs the password and the new address's link, a sign-out that ends the session at the
 * service, and a sign-in throttled per account shown as a countdown. axe-clean in English and Hebrew.
 */

async function signOutViaMenu(page: Page) {
  await page.locator('header button[aria-controls="user-menu"]').click()
  await page.locator('#user-menu').getByRole('button').last().click()
  await expect(page).toHaveURL(/\/sign-in/)
}

test('sign-up: a banner until the address is confirmed, then the free credits arrive', async ({ page }) => {
  const email = uniqueEmail('confirm')
  await page.goto('/sign-up')
  await page.getByLabel('Email').fill(email)
  await page.getByLabel('Password').fill('a-good-password')
  await page.getByRole('button', { name: 'Create account' }).click()
  await expect(page).toHaveURL(/\/search/)
  const banner = page.getByTestId('confirm-banner')
  await expect(banner).toContainText(`We sent a link to ${email}`)
  await expect(page.getByRole('region', { name: 'Credit balance' })).toContainText('0')
  await axeCheck(page, 'search with the confirmation banner')
  await banner.getByRole('button', { name: 'Send the link again' }).click()
  await expect(banner).toContainText(`A new link is on its way to ${email}`)

  // the link from the mail, opened in the same browser: the token leaves the address bar at once
  await page.goto(confirmationLink(email))
  await expect(page.getByText('Your address is confirmed and your free credits are in your account.')).toBeVisible()
  await expect(page).toHaveURL(/\/confirm-email$/)
  await axeCheck(page, 'confirm-email')
  await page.getByRole('link', { name: 'Go to the dashboard' }).click()
  await expect(page.getByTestId('confirm-banner')).toHaveCount(0)
  await expect(page.getByRole('region', { name: 'Credit balance' })).toContainText('100')
  // a link used once confirms nothing more: the page says there is nothing left to do
  await page.goto(confirmationLink(email))
  await expect(page.getByText('This address is already confirmed. There is nothing more to do.')).toBeVisible()
})

for (const lng of ['en', 'he'] as const) {
  test(`change the email with the password and the new address's link (${lng})`, async ({ page, request }) => {
    const account = await signUpViaApi(request, { prefix: `move-${lng}`, preferred_language: lng })
    await signInViaUi(page, account, { next: '/account' })
    const newEmail = uniqueEmail(`moved-${lng}`)
    const email = page.locator('input[type=email]')
    await email.fill(newEmail)
    const current = page.locator('input[autocomplete=current-password]').first()
    await expect(current).toBeVisible()
    await current.fill('not my password')
    await page.locator('main form').first().locator('button[type=submit]').click()
    await expect(current).toHaveAttribute('aria-invalid', 'true')
    await current.fill(account.password)
    await page.locator('main form').first().locator('button[type=submit]').click()
    await expect(page.locator('main [role=status]').filter({ hasText: newEmail })).toBeVisible()
    await expect(email).toHaveValue(account.email) // unchanged until confirmed
    await page.screenshot({ path: `test-results/screens/account-pending-${lng}.png`, fullPage: true })
    await axeCheck(page, `account with a pending email (${lng})`)

    await page.goto(confirmationLink(newEmail))
    await expect(page.locator('main [role=status]').filter({ hasText: newEmail })).toBeVisible()
    await axeCheck(page, `confirm-email (${lng})`)
    await page.goto('/account')
    await expect(email).toHaveValue(newEmail)
    await signOutViaMenu(page)
    // the sign-in page speaks the profile's language now: fields by type
    await page.locator('input[type=email]').fill(newEmail)
    await page.locator('input[type=password]').fill(account.password)
    await page.locator('main button[type=submit]').click()
    await expect(page.locator('header button[aria-controls="user-menu"]')).toBeVisible()
  })
}

test('change the password: other sessions end, and the surviving API keys can be revoked in one go', async ({ page, request, browser }) => {
  const account = await signUpViaApi(request, { prefix: 'newpass' })
  const other = await browser.newContext()
  const otherPage = await other.newPage()
  await signInViaUi(otherPage, account, { next: '/account' })
  await signInViaUi(page, account, { next: '/api-keys' })
  await expect(page.getByTestId('key-limit')).toContainText('Active keys: 0 of 25.')
  await page.getByRole('button', { name: 'Create key' }).click()
  await page.getByRole('checkbox').check()
  await page.getByRole('button', { name: 'Done' }).click()
  await expect(page.getByTestId('key-limit')).toContainText('Active keys: 1 of 25.')

  await page.goto('/account')
  await page.getByLabel('Current password', { exact: true }).fill(account.password)
  await page.getByLabel('New password', { exact: true }).fill('a-newer-password')
  await page.getByLabel('Repeat the new password').fill('a-newer-password')
  await page.getByRole('button', { name: 'Change password' }).click()
  await expect(page.getByText('Your password has been changed, and every other session was signed out.')).toBeVisible()
  await expect(page.getByText('API keys still active: 1.')).toBeVisible()
  await page.screenshot({ path: 'test-results/screens/account-password-changed.png', fullPage: true })
  await axeCheck(page, 'account after a password change')
  await page.getByRole('button', { name: 'Revoke all API keys (1)' }).click()
  await page.getByRole('dialog').getByRole('button', { name: 'Revoke all' }).click()
  await expect(page.getByText('Every API key has been revoked.')).toBeVisible()

  // this tab lives on with its new session; the other browser is signed out on its next request
  await page.reload()
  await expect(page.locator('header button[aria-controls="user-menu"]')).toBeVisible()
  await otherPage.reload()
  await expect(otherPage).toHaveURL(/\/sign-in/)
  await other.close()
})

test('sign-out ends the session at the service: the old refresh token is refused', async ({ page, request }) => {
  const account = await signUpViaApi(request, { prefix: 'logout' })
  await signInViaUi(page, account)
  const refresh = await page.evaluate(() => localStorage.getItem('leads.refresh'))
  expect(refresh).toBeTruthy()
  expect((await request.post('/api/token/refresh/', { data: { refresh } })).status()).toBe(200) // it worked before
  const fresh = await page.evaluate(() => localStorage.getItem('leads.refresh'))
  await signOutViaMenu(page)
  await expect.poll(async () => (await request.post('/api/token/refresh/', { data: { refresh: fresh } })).status()).toBe(401)
})

for (const lng of ['en', 'he'] as const) {
  test(`too many wrong passwords: the sign-in page counts down the wait (${lng})`, async ({ page, request }) => {
    const account = await signUpViaApi(request, { prefix: `throttle-${lng}` })
    await page.goto('/sign-in')
    if (lng === 'he') {
      await page.evaluate(() => localStorage.setItem('leads.language', 'he'))
      await page.reload()
      await expect(page.locator('html')).toHaveAttribute('dir', 'rtl')
    }
    await page.locator('input[type=email]').fill(account.email)
    const password = page.locator('input[type=password]')
    const submit = page.locator('main button[type=submit]')
    for (let i = 0; i < 5; i++) {
      await password.fill(`wrong ${i}`)
      await submit.click()
      await expect(page.locator('main [role=alert]').first()).toBeVisible()
    }
    await password.fill(account.password)
    await submit.click()
    const countdown = page.getByTestId('throttle-countdown')
    await expect(countdown).toBeVisible()
    await expect(submit).toBeDisabled()
    const first = await countdown.textContent()
    await expect.poll(async () => countdown.textContent(), { timeout: 5_000 }).not.toBe(first)
    if (lng === 'en') expect(first).toMatch(/^Too many attempts\. You can try again in \d+ seconds\.$/)
    await page.screenshot({ path: `test-results/screens/sign-in-throttled-${lng}.png` })
    await axeCheck(page, `sign-in throttled (${lng})`)
  })
}
