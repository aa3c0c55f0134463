import { mkdirSync } from 'node:fs'
import { expect, test, type Page } from '@playwright/test'
import { axeCheck, signInViaUi, signUpViaApi } from './helpers'

/**
 * The search stays (issue 25, part L), against the real reference service: a search made on the
 * search page is the one the navigation's "Search" and the header's logo open again after a visit
 * elsewhere, until "New search", beside the heading, starts another; the country picker names what
 * is chosen. Keyboard only on the search page; axe clean in English and Hebrew, light and dark, with
 * screenshots in test-results/screens/.
 */

mkdirSync('test-results/screens', { recursive: true })

const WIDTHS = [1280, 360] as const
const viewport = (width: number) => ({ width, height: width === 360 ? 780 : 900 })

const COUNTRIES = { en: 'Countries', he: 'מדינות' }

/** Follows a link of the navigation: the header's on a wide page, the menu's on a narrow one. */
async function navigate(page: Page, width: number, name: string) {
  if (width === 360) await page.locator('button[aria-controls="mobile-nav"]').click()
  const nav = width === 360 ? page.locator('#mobile-nav') : page.locator('header nav').filter({ visible: true }).first()
  await nav.getByRole('link', { name, exact: true }).click()
}

for (const width of WIDTHS) {
  test(`at ${width} px: the navigation's Search opens the last search, which "New search" clears`, async ({ page, request }) => {
    await page.setViewportSize(viewport(width))
    const a = await signUpViaApi(request, { prefix: `stays-${width}` })
    await signInViaUi(page, a, { next: '/search' })
    await page.waitForURL((url) => url.pathname === '/search')

    // a country and a flag, by keyboard
    const countries = page.getByRole('combobox', { name: 'Countries', exact: true })
    await expect(countries).toHaveAttribute('placeholder', 'Type a country')
    await countries.focus()
    await page.keyboard.type('Germ', { delay: 30 })
    await expect(page.getByRole('option', { name: 'Germany', exact: true })).toBeVisible()
    await page.keyboard.press('Enter')
    await page.keyboard.press('Escape')
    const email = page.getByRole('checkbox', { name: 'An email address' })
    await email.focus()
    await page.keyboard.press('Space')
    await expect.poll(() => new URL(page.url()).search).toBe('?country=DE&email=1')
    await expect(countries).toHaveAttribute('placeholder', 'Germany')
    await expect(countries).toHaveAccessibleDescription('Chosen: Germany')

    // elsewhere and back through the navigation: the same search
    await navigate(page, width, 'Exports history')
    await page.waitForURL((url) => url.pathname === '/history')
    await navigate(page, width, 'Search')
    await page.waitForURL((url) => url.pathname === '/search')
    expect(new URL(page.url()).search).toBe('?country=DE&email=1')
    await expect(countries).toHaveAttribute('placeholder', 'Germany')
    await expect(email).toBeChecked()

    // the header's logo returns to it too
    await navigate(page, width, 'Exports history')
    await page.waitForURL((url) => url.pathname === '/history')
    await page.locator('header').getByRole('link', { name: 'Leads', exact: true }).click()
    await page.waitForURL((url) => url.pathname === '/search')
    expect(new URL(page.url()).search).toBe('?country=DE&email=1')

    // "New search" sits beside the page's heading, on the phone too
    const newSearch = page.getByRole('button', { name: 'New search' })
    const heading = page.getByRole('heading', { level: 1, name: 'Build a search' })
    const [h, b] = [await heading.boundingBox(), await newSearch.boundingBox()]
    expect(Math.abs(h!.y + h!.height / 2 - (b!.y + b!.height / 2))).toBeLessThan(h!.height)

    // "New search" starts afresh, and the navigation then opens the empty search
    await page.getByRole('button', { name: 'New search' }).click()
    await expect.poll(() => new URL(page.url()).search).toBe('')
    await expect(countries).toHaveAttribute('placeholder', 'Type a country')
    await navigate(page, width, 'Exports history')
    await page.waitForURL((url) => url.pathname === '/history')
    await navigate(page, width, 'Search')
    await page.waitForURL((url) => url.pathname === '/search')
    expect(new URL(page.url()).search).toBe('')
  })
}

for (const lng of ['en', 'he'] as const) {
  test(`the chosen countries in ${lng}: named in the field, axe clean, light and dark, 1280 and 360 px`, async ({ page, request }) => {
    test.setTimeout(120_000)
    const a = await signUpViaApi(request, { prefix: `stays-axe-${lng}`, preferred_language: lng })
    await signInViaUi(page, a, { next: '/search?country=DE&country=FR&country=IT&email=1' })
    await page.waitForURL((url) => url.pathname === '/search')
    await expect(page.locator('html')).toHaveAttribute('lang', lng)
    const countries = page.getByRole('combobox', { name: COUNTRIES[lng], exact: true })
    await expect(countries).toHaveAttribute('placeholder', /\+1/)
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme })
      for (const width of WIDTHS) {
        await page.setViewportSize(viewport(width))
        await countries.scrollIntoViewIfNeeded()
        await page.screenshot({ path: `test-results/screens/search-stays-${lng}-${scheme}-${width}.png` })
        await axeCheck(page, `search page with chosen countries (${lng}, ${scheme}, ${width} px)`)
      }
    }
  })
}
