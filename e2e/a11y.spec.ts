import { mkdirSync } from 'node:fs'
import { expect, test, type Page } from '@playwright/test'
import { apiAs, axeCheck, grantCredits, signInViaUi, signUpViaApi, type Account } from './helpers'

/**
 * axe-core (wcag2a, wcag2aa, wcag21a, wcag21aa) on every page, in English and in Hebrew, signed out
 * and signed in (an account with history, usage and an API key), with zero violations expected.
 * Screenshots at 360 and 1280 px go to test-results/screens/ to be looked at.
 */

const LANGUAGES = ['en', 'he'] as const
const WIDTHS = [1280, 360] as const

const publicPages = [
  { name: 'sign-in', path: '/sign-in' },
  { name: 'sign-up', path: '/sign-up' },
  { name: 'forgot-password', path: '/forgot-password' },
  { name: 'reset-password', path: '/reset-password?token=example-token' },
  { name: 'plans-signed-out', path: '/plans' },
  { name: 'not-found', path: '/no-such-page' },
]

const signedInPages = (exportId: number) => [
  { name: 'search', path: '/search?countries=DE' },
  { name: 'export-job', path: `/exports/${exportId}` },
  { name: 'history', path: '/history' },
  { name: 'account', path: '/account' },
  { name: 'api-keys', path: '/api-keys' },
  { name: 'webhooks', path: '/webhooks' },
  { name: 'plans', path: '/plans' },
]

mkdirSync('test-results/screens', { recursive: true })

/** The page is drawn: a level-1 heading, no spinner, the network quiet. */
async function settle(page: Page) {
  await expect(page.getByRole('heading', { level: 1 }).first()).toBeVisible()
  await page.waitForLoadState('networkidle')
  await expect(page.locator('[aria-busy="true"]')).toHaveCount(0)
}

async function checkAt(page: Page, lng: string, name: string) {
  for (const width of WIDTHS) {
    await page.setViewportSize({ width, height: width === 360 ? 780 : 900 })
    await settle(page)
    await page.screenshot({ path: `test-results/screens/${lng}-${name}-${width}.png`, fullPage: true })
    await axeCheck(page, `${name} (${lng}, ${width} px)`, { soft: true })
  }
}

/** An export of the search `query`, of at most `maxLeads` leads; `fail`: the service fails it. */
async function startExport(
  request: Parameters<typeof apiAs>[0],
  account: Account,
  { query, maxLeads, fail = false }: { query: string; maxLeads?: number; fail?: boolean },
): Promise<number> {
  if (fail) expect((await apiAs(request, account, 'POST', '/api/_test/fail-next-export/', {})).status).toBe(200)
  const preview = await apiAs<{ search_id: number | string }>(request, account, 'GET', `/api/companies/?${query}`)
  expect(preview.status).toBe(200)
  const started = await apiAs<{ search_id: number }>(request, account, 'POST', '/api/download-csv/', {
    search_id: Number(preview.body.search_id),
    export_format: 'csv',
    ...(maxLeads ? { max_leads: maxLeads } : {}),
  })
  expect(started.status).toBe(202)
  return started.body.search_id
}

/** Until the export has ended, so that the pages show it settled. */
async function exportEnded(request: Parameters<typeof apiAs>[0], account: Account, id: number) {
  await expect
    .poll(async () => (await apiAs<{ status: string }>(request, account, 'GET', `/api/download-status/${id}/`)).body.status)
    .toMatch(/^(COMPLETED|FAILED)$/)
}

for (const lng of LANGUAGES) {
  test.describe(`${lng}`, () => {
    test(`signed-out pages have no axe violations (${lng})`, async ({ page }) => {
      await page.addInitScript((language) => localStorage.setItem('leads.language', language), lng)
      for (const p of publicPages) {
        await page.goto(p.path)
        await expect(page.locator('html')).toHaveAttribute('lang', lng)
        await expect(page.locator('html')).toHaveAttribute('dir', lng === 'he' ? 'rtl' : 'ltr')
        await checkAt(page, lng, p.name)
      }
    })

    test(`signed-in pages have no axe violations (${lng})`, async ({ page, request }) => {
      test.setTimeout(180_000)
      const account = await signUpViaApi(request, { prefix: `a11y-${lng}`, preferred_language: lng })
      await grantCredits(request, account, { plan_type: 'Starter', subscription: 5000, purchased: 300, purchased_expires_in_days: 5 })
      // pages with something in them: a history of a completed, a capped and a failed export (so the
      // account's usage chart too), and an API key
      const exports = [
        await startExport(request, account, { query: 'countries=DE&email=true' }),
        await startExport(request, account, { query: 'countries=FR', maxLeads: 20 }),
        await startExport(request, account, { query: 'countries=IL', maxLeads: 15, fail: true }),
      ]
      expect((await apiAs(request, account, 'POST', '/api/user/api-keys/', {})).status).toBe(201)
      for (const id of exports) await exportEnded(request, account, id)
      const exportId = exports[0]!
      await signInViaUi(page, account)
      await expect(page.locator('html')).toHaveAttribute('lang', lng)
      for (const p of signedInPages(exportId)) {
        await page.goto(p.path)
        await checkAt(page, lng, p.name)
      }
      // the user menu and the mobile navigation, opened
      await page.setViewportSize({ width: 360, height: 780 })
      await page.goto('/account')
      await settle(page)
      await page.locator('header button[aria-controls="mobile-nav"]').click()
      await expect(page.locator('#mobile-nav')).toBeVisible()
      await page.screenshot({ path: `test-results/screens/${lng}-mobile-nav-360.png` })
      await axeCheck(page, `mobile navigation (${lng})`)
      await page.setViewportSize({ width: 1280, height: 900 })
      await page.locator('header button[aria-controls="user-menu"]').click()
      await expect(page.locator('#user-menu')).toBeVisible()
      await page.screenshot({ path: `test-results/screens/${lng}-user-menu-1280.png` })
      await axeCheck(page, `user menu (${lng})`)
    })
  })
}

test('keyboard only: skip link, navigation and the user menu', async ({ page, request }) => {
  const account = await signUpViaApi(request, { prefix: 'keys' })
  await signInViaUi(page, account, { next: '/account' })
  await settle(page)
  await page.keyboard.press('Tab')
  const skip = page.getByRole('link', { name: 'Skip to main content' })
  await expect(skip).toBeFocused()
  await page.keyboard.press('Enter')
  await expect(page).toHaveURL(/#main$/)
  await expect(page.locator('#main')).toBeFocused()

  // the user menu is a disclosure: Enter opens it, Tab walks its items, Escape closes it and
  // puts the focus back on its button; Enter on "Sign out" signs out
  const menuButton = page.locator('header button[aria-controls="user-menu"]')
  await menuButton.focus()
  await page.keyboard.press('Enter')
  await expect(menuButton).toHaveAttribute('aria-expanded', 'true')
  await expect(page.locator('#user-menu')).toBeVisible()
  await page.keyboard.press('Tab')
  await expect(page.locator('#user-menu').getByRole('link', { name: 'Account settings' })).toBeFocused()
  await page.keyboard.press('Escape')
  await expect(page.locator('#user-menu')).toBeHidden()
  await expect(menuButton).toHaveAttribute('aria-expanded', 'false')
  await expect(menuButton).toBeFocused()
  await page.keyboard.press('Enter')
  await page.keyboard.press('Tab')
  await page.keyboard.press('Tab')
  const signOut = page.locator('#user-menu').getByRole('button', { name: 'Sign out' })
  await expect(signOut).toBeFocused()
  await page.keyboard.press('Enter')
  await expect(page).toHaveURL(/\/sign-in/)
})
