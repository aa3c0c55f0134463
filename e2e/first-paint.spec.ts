import { expect, test, type Page } from '@playwright/test'
import { signInViaUi, signUpViaApi } from './helpers'

/**
 * Pages paint from the HTML (issue 13): the service sends the build's prerendered markup of the page
 * for the browser's variant, the dashboard's code arrives after the first paint and hydrates it. What
 * a person must be able to rely on meanwhile, and that hydration keeps what was painted.
 */

/** Holds back the dashboard's code until `release()`: the page as it is before its scripts have run. */
async function holdScripts(page: Page) {
  let release!: () => void
  const gate = new Promise<void>((resolve) => (release = resolve))
  await page.route(/\/assets\/start-[^/]+\.js$/, async (route) => {
    await gate
    await route.continue()
  })
  return release
}

/** Records console errors and page errors (a hydration mismatch is reported there). */
function consoleErrors(page: Page): string[] {
  const errors: string[] = []
  page.on('console', (m) => {
    if (m.type() === 'error') errors.push(m.text())
  })
  page.on('pageerror', (e) => errors.push(e.message))
  return errors
}

/** Marks the heading as painted from the HTML; true later if hydration kept that very element. */
async function markHeading(page: Page) {
  await page.locator('h1').evaluate((h) => ((h as HTMLElement & { paintedFromHtml?: boolean }).paintedFromHtml = true))
  return () => page.locator('h1').evaluate((h) => (h as HTMLElement & { paintedFromHtml?: boolean }).paintedFromHtml === true)
}

test('sign-in paints before its code runs; a submit cannot go out natively, typed fields survive hydration', async ({ page, request }) => {
  const account = await signUpViaApi(request)
  const errors = consoleErrors(page)
  const release = await holdScripts(page)
  await page.goto('/sign-in', { waitUntil: 'domcontentloaded' })
  await expect(page.getByRole('heading', { name: 'Sign in' })).toBeVisible()
  const kept = await markHeading(page)
  const submit = page.getByRole('button', { name: 'Sign in' })
  await expect(submit).toBeDisabled()
  await page.getByLabel('Email').fill(account.email)
  await page.getByLabel('Password').fill(account.password)
  await page.getByLabel('Password').press('Enter')
  // nothing was sent: the fields are not in the address, the page is still the same document
  await expect(page).toHaveURL(/\/sign-in$/)
  expect(await kept()).toBe(true)

  release()
  await expect(submit).toBeEnabled()
  expect(await kept()).toBe(true)
  await expect(page.getByLabel('Email')).toHaveValue(account.email)
  await expect(page.getByLabel('Password')).toHaveValue(account.password)
  await submit.click()
  await expect(page).toHaveURL(/\/search$/)
  expect(errors).toEqual([])
})

for (const address of ['/sign-in', '/sign-up', '/forgot-password', '/plans']) {
  test(`${address} is hydrated from the prerendered markup without a mismatch`, async ({ page }) => {
    const errors = consoleErrors(page)
    const release = await holdScripts(page)
    const response = await page.goto(address, { waitUntil: 'domcontentloaded' })
    expect(await response!.text()).toContain('data-prerendered="signed-out"')
    const kept = await markHeading(page)
    release()
    await expect(page.locator('#root button[type="submit"], #root a').first()).toBeVisible()
    await page.waitForLoadState('networkidle')
    expect(await kept()).toBe(true)
    expect(errors).toEqual([])
  })
}

test('a signed-in person gets the signed-in search page and plans painted, hydrated without a mismatch', async ({ page, request }) => {
  const account = await signUpViaApi(request)
  await signInViaUi(page, account)
  const errors = consoleErrors(page)
  for (const address of ['/search', '/plans']) {
    const release = await holdScripts(page)
    const response = await page.goto(address, { waitUntil: 'domcontentloaded' })
    expect(await response!.text()).toContain('data-prerendered="signed-in"')
    const kept = await markHeading(page)
    release()
    await expect(page.locator('header button[aria-controls="user-menu"]')).toBeVisible()
    await page.waitForLoadState('networkidle')
    expect(await kept(), address).toBe(true)
    await page.unroute(/\/assets\/start-[^/]+\.js$/)
  }
  // the search page works after hydration: a filter changes the address and the count follows; the
  // browser's locale table is built by the warm-up worker (src/boot/intl-warmup.worker.ts), which the
  // page's CSP admits (a refused worker would be a console error)
  const warmup = page.waitForRequest(/\/assets\/intl-warmup\.worker-[^/]+\.js$/)
  await page.goto('/search')
  expect((await (await warmup).response())?.status()).toBe(200)
  // a tick before hydration is held and played after it (src/boot/early-clicks.ts), which `check()`
  // would take for a checkbox that does not change: the page says when it is the app's
  await expect(page.locator('#root[data-interactive]')).toBeAttached()
  await page.getByRole('checkbox', { name: 'An email address' }).check()
  await expect(page).toHaveURL(/email=1/)
  expect(errors).toEqual([])
})

test('a person who chose another language is not shown English markup first', async ({ page, context, baseURL }) => {
  await context.addCookies([{ name: 'leads.lang', value: 'he', url: baseURL! }])
  await context.addInitScript(() => localStorage.setItem('leads.language', 'he'))
  const response = await page.goto('/sign-in')
  const html = await response!.text()
  expect(html).not.toContain('data-prerendered')
  expect(html).not.toContain('Welcome back')
  await expect(page.locator('html')).toHaveAttribute('dir', 'rtl')
  await expect(page.getByRole('heading', { level: 1 })).not.toHaveText('Sign in')
})

test('a tap on the painted page before its code has run is answered once it has, not lost', async ({ page, request }) => {
  const errors = consoleErrors(page)
  let release = await holdScripts(page)
  await page.goto('/sign-up', { waitUntil: 'domcontentloaded' })
  const toggle = page
    .getByRole('button', { name: 'Language' })
    .and(page.locator('[aria-controls][aria-expanded]'))
    .filter({ visible: true })
    .first()
  await toggle.click()
  await expect(page.getByRole('list', { name: 'Language' })).toHaveCount(0)
  await expect(page.locator('#root[data-interactive]')).toHaveCount(0)
  release()
  await expect(page.getByRole('list', { name: 'Language' }).filter({ visible: true })).toBeVisible()
  await expect(page.locator('#root[data-interactive]')).toBeAttached()
  await expect(toggle).toHaveAttribute('aria-expanded', 'true')
  await page.unroute(/\/assets\/start-[^/]+\.js$/)

  // a filter ticked on the signed-in search page before its code: not ticked in appearance only
  const account = await signUpViaApi(request)
  await signInViaUi(page, account)
  release = await holdScripts(page)
  await page.goto('/search', { waitUntil: 'domcontentloaded' })
  const email = page.getByRole('checkbox', { name: 'An email address' })
  await email.click()
  await expect(email).not.toBeChecked()
  release()
  await expect(email).toBeChecked()
  await expect(page).toHaveURL(/email=1/)
  expect(errors).toEqual([])
})
