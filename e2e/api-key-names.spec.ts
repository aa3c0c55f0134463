import { mkdirSync } from 'node:fs'
import { expect, test, type Locator, type Page } from '@playwright/test'
import { apiAs, axeCheck, signInViaUi, signUpViaApi, type Account } from './helpers'

/**
 * API keys with a name, on a phone too (issue 25, part K), against the real reference service: a
 * key named as it is made (by keyboard), listed by its name with its prefix beside it, revoked by
 * name from a 360 px phone with Revoke inside the window, a page that never widens, and no Content
 * Security Policy violation (React Aria's date field used to add an inline <style>). axe in English
 * and Hebrew, light and dark, with screenshots in test-results/screens/.
 */

mkdirSync('test-results/screens', { recursive: true })

const WIDTHS = [1280, 360] as const
const viewport = (width: number) => ({ width, height: width === 360 ? 780 : 900 })

/** Every console message about the Content Security Policy, from the page's first byte. */
function cspViolations(page: Page): string[] {
  const seen: string[] = []
  page.on('console', (m) => {
    if (m.text().includes('Content Security Policy')) seen.push(m.text())
  })
  return seen
}

/** The page is no wider than the window: only the key table's own box scrolls sideways. */
async function expectNoPageScroll(page: Page) {
  const widths = await page.evaluate(() => ({ page: document.documentElement.scrollWidth, window: window.innerWidth }))
  expect(widths.page).toBeLessThanOrEqual(widths.window)
}

/**
 * Scrolls the page down to `button` (the page only: a scroll into view would also slide the table's
 * own box and hide what is being checked), then expects the whole button inside the window.
 */
async function expectInWindow(button: Locator) {
  await button.evaluate((el) => window.scrollBy({ top: el.getBoundingClientRect().top - window.innerHeight / 2, behavior: 'instant' }))
  await expect(button).toBeInViewport({ ratio: 1 })
}

/** The date field is React Aria, loaded beside the page: wait for it, then open and close its calendar. */
async function useTheDateField(page: Page) {
  await page.getByRole('group', { name: 'Expiry date (optional)' }).getByRole('button').click()
  await expect(page.getByRole('dialog').getByRole('grid')).toBeVisible()
  await page.keyboard.press('Escape')
  await expect(page.getByRole('grid')).toHaveCount(0)
}

const keysOf = async (page: Page, a: Account) =>
  (await apiAs<{ id: string; name?: string | null; token_key: string }[]>(page.request, a, 'GET', '/api/user/api-keys/')).body

for (const width of WIDTHS) {
  test(`a named key at ${width} px: made by keyboard, listed by name, revoked by name with Revoke in the window`, async ({
    page,
    request,
  }) => {
    const csp = cspViolations(page)
    const a = await signUpViaApi(request, { prefix: `k-names-${width}` })
    // a key without a name beside it, with rights and a cap: the widest row the list has
    expect((await apiAs(request, a, 'POST', '/api/user/api-keys/', { scope: 'export', monthly_credit_cap: 250_000 })).status).toBe(201)

    await page.setViewportSize(viewport(width))
    await signInViaUi(page, a, { next: '/api-keys' })
    await page.waitForURL((url) => url.pathname === '/api-keys')
    await useTheDateField(page)

    // by keyboard: the name, then Enter submits the form
    const name = page.getByRole('textbox', { name: 'Name (optional)' })
    await name.focus()
    await page.keyboard.type('  CRM sync ')
    await page.keyboard.press('Enter')
    const created = page.getByRole('dialog', { name: 'Your new API key' })
    await expect(created.getByText('Name: CRM sync')).toBeVisible()
    const key = await created.getByLabel('Full API key').inputValue()
    await created.getByRole('checkbox', { name: /I have copied the key/ }).focus()
    await page.keyboard.press('Space')
    await created.getByRole('button', { name: 'Done' }).focus()
    await page.keyboard.press('Enter')
    await expect(page.getByRole('dialog')).toHaveCount(0)

    // stored trimmed by the service, listed by name with the prefix as secondary text
    const named = (await keysOf(page, a)).find((k) => k.name === 'CRM sync')
    expect(named?.token_key).toBe(key.slice(0, named!.token_key.length))
    const row = page.getByRole('row').filter({ hasText: 'CRM sync' })
    await expect(row).toHaveCount(1)
    await expect(row.getByText(`${named!.token_key}…`)).toBeVisible()
    // the unnamed key reads as its prefix
    const unnamed = (await keysOf(page, a)).find((k) => !k.name)!
    await expect(
      page
        .getByRole('row')
        .filter({ hasText: `${unnamed.token_key}…` })
        .locator('td')
        .first(),
    ).toHaveText(`${unnamed.token_key}…`)
    await expectNoPageScroll(page)

    // every key's Revoke is inside the window, the widest row's too
    for (const button of await page.getByRole('button', { name: /^Revoke key / }).all()) await expectInWindow(button)
    const revoke = row.getByRole('button', { name: `Revoke key “CRM sync” (${named!.token_key}…)`, exact: true })
    await revoke.focus()
    await page.keyboard.press('Enter')
    const confirm = page.getByRole('dialog', { name: 'Revoke “CRM sync”?' })
    await expect(confirm.getByText(`Programs using the key “CRM sync” (${named!.token_key}…) will be refused at once.`)).toBeVisible()
    await confirm.getByRole('button', { name: 'Revoke key', exact: true }).click()
    await expect(page.getByText('Key “CRM sync” was revoked.')).toBeVisible()
    await expect(page.getByRole('row').filter({ hasText: 'CRM sync' })).toHaveCount(0)
    expect((await keysOf(page, a)).map((k) => k.id)).toEqual([unnamed.id])
    expect((await request.get('/api/user/profile/', { headers: { Authorization: `Token ${key}` } })).status()).toBe(401)
    await expectNoPageScroll(page)

    expect(csp).toEqual([])
  })
}

const TEXT = {
  en: {
    name: 'Name (optional)',
    create: 'Create key',
    created: 'Your new API key',
    ack: /I have copied the key/,
    revokeTitle: 'Revoke “CRM sync”?',
  },
  he: {
    name: 'שם (לא חובה)',
    create: 'יצירת מפתח',
    created: 'מפתח ה־API החדש שלכם',
    ack: /העתקתי את המפתח/,
    revokeTitle: 'לבטל את "CRM sync"?',
  },
} as const

for (const lng of ['en', 'he'] as const) {
  test(`the key list in ${lng}: axe clean, light and dark, 1280 and 360 px`, async ({ page, request }) => {
    test.setTimeout(120_000)
    const csp = cspViolations(page)
    const text = TEXT[lng]
    const a = await signUpViaApi(request, { prefix: `k-names-axe-${lng}`, preferred_language: lng })
    // a Hebrew name, a long one, and a key without a name
    for (const json of [
      { name: 'סנכרון אנשי קשר ל־CRM', scope: 'export', monthly_credit_cap: 5_000 },
      { name: 'Nightly export to the data warehouse, EU region (prod)' },
      {},
    ]) {
      expect((await apiAs(request, a, 'POST', '/api/user/api-keys/', json)).status).toBe(201)
    }
    await signInViaUi(page, a, { next: '/api-keys' })
    await page.waitForURL((url) => url.pathname === '/api-keys')
    await expect(page.locator('html')).toHaveAttribute('lang', lng)
    await expect(page.locator('tbody > tr')).toHaveCount(3)

    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme })
      for (const width of WIDTHS) {
        await page.setViewportSize(viewport(width))
        await expect(page.getByRole('textbox', { name: text.name })).toBeVisible()
        await expect(page.locator('[aria-busy="true"]')).toHaveCount(0)
        await expectNoPageScroll(page)
        for (const button of await page.locator('tbody button').all()) await expectInWindow(button)
        await page.evaluate(() => window.scrollTo({ top: 0, behavior: 'instant' }))
        await page.screenshot({ path: `test-results/screens/api-keys-${lng}-${scheme}-${width}.png`, fullPage: true })
        await axeCheck(page, `API keys (${lng}, ${scheme}, ${width} px)`, { soft: true })
      }
    }

    // the dialogs on a phone: the new key with its name, then the revocation by name
    await page.emulateMedia({ colorScheme: 'light' })
    await page.setViewportSize(viewport(360))
    await page.getByRole('textbox', { name: text.name }).fill('CRM sync')
    await page.getByRole('button', { name: text.create, exact: true }).click()
    const created = page.getByRole('dialog', { name: text.created })
    await expect(created.getByText('CRM sync')).toBeVisible()
    await page.screenshot({ path: `test-results/screens/api-keys-created-${lng}-360.png` })
    await axeCheck(page, `new key dialog (${lng}, 360 px)`, { soft: true })
    await created.getByRole('checkbox', { name: text.ack }).check()
    await created.getByRole('button').last().click()
    await expect(page.getByRole('dialog')).toHaveCount(0)

    const row = page.getByRole('row').filter({ hasText: 'CRM sync' })
    const revoke = row.getByRole('button')
    await expectInWindow(revoke)
    await revoke.click()
    const confirm = page.getByRole('dialog', { name: text.revokeTitle })
    // (Headless UI's dialog element itself has no box: its panel is what shows)
    await expect(confirm.getByRole('button').last()).toBeVisible()
    await page.screenshot({ path: `test-results/screens/api-keys-revoke-${lng}-360.png` })
    await axeCheck(page, `revoke dialog (${lng}, 360 px)`, { soft: true })
    await confirm.getByRole('button').last().click()
    await expect(row).toHaveCount(0)
    await expectNoPageScroll(page)
    await page.evaluate(() => window.scrollTo({ top: 0, behavior: 'instant' }))
    await page.screenshot({ path: `test-results/screens/api-keys-revoked-${lng}-360.png`, fullPage: true })

    expect(csp).toEqual([])
  })
}
