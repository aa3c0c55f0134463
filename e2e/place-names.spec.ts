import { mkdirSync } from 'node:fs'
import { expect, test, type Page } from '@playwright/test'
import { axeCheck, signInViaUi, signUpViaApi } from './helpers'

/**
 * Places found by any name, ranked as a person expects (issue 25, part J), against the real
 * reference service: "Munich" finds München, shown as "München (Munich)", and picking it narrows the
 * count; "Mü" lists München first. Hebrew finds it by its Hebrew name; axe clean in English and
 * Hebrew, light and dark, with screenshots in test-results/screens/.
 */

mkdirSync('test-results/screens', { recursive: true })

const WIDTHS = [1280, 360] as const
const viewport = (width: number) => ({ width, height: width === 360 ? 780 : 900 })

/** The settled preview count (no "Updating…" left). */
async function previewCount(page: Page): Promise<number> {
  await expect(page.locator('[aria-busy="true"]')).toHaveCount(0)
  const count = page.getByTestId('lead-count')
  await expect(count).toBeVisible()
  return Number(await count.getAttribute('data-count'))
}

const placeBox = (page: Page, label: string) => page.getByRole('combobox', { name: label, exact: true })

for (const width of WIDTHS) {
  test(`at ${width} px: "Munich" finds München (Munich), picked by keyboard; "Mü" lists München first`, async ({ page, request }) => {
    await page.setViewportSize(viewport(width))
    const a = await signUpViaApi(request, { prefix: `places-${width}` })
    await signInViaUi(page, a, { next: '/search?country=DE' })
    await page.waitForURL((url) => url.pathname === '/search')
    const germany = await previewCount(page)
    expect(germany).toBeGreaterThan(0)

    const box = placeBox(page, 'Find a place')
    await box.focus()
    await page.keyboard.type('Munich', { delay: 30 })
    const city = page.getByRole('option', { name: /^München \(Munich\)\s*City · München · Bayern$/ })
    await expect(city).toBeVisible()
    // the county of the same name is found too, each told by its level
    await expect(page.getByRole('option', { name: /^München \(Munich\)\s*County · Bayern$/ })).toBeVisible()
    const id = await city.getAttribute('id')
    for (let i = 0; i < 10 && (await box.getAttribute('aria-activedescendant')) !== id; i++) await page.keyboard.press('ArrowDown')
    await expect(box).toHaveAttribute('aria-activedescendant', id ?? '')
    await page.keyboard.press('Enter')
    await page.keyboard.press('Escape')

    // the place is chosen by its own name, and the count is München's alone
    await expect(page.getByRole('button', { name: 'Remove City: München (München, Bayern)' })).toBeVisible()
    await expect.poll(() => previewCount(page)).toBeLessThan(germany)
    const munich = await previewCount(page)
    expect(munich).toBeGreaterThan(0)
    expect(new URL(page.url()).searchParams.getAll('l3')).toEqual([expect.stringMatching(/^DE:\d+:München \(München, Bayern\)$/)])

    // "Mü": München first, before Dortmund, which only contains "mu"
    await box.focus()
    await page.keyboard.type('Mü', { delay: 30 })
    const options = page.getByRole('option')
    await expect(options.first()).toHaveAccessibleName(/^München\s*(County|City)/)
    await page.waitForTimeout(400) // the type-ahead's debounce and answer settle
    const names = await options.allTextContents()
    expect(names.slice(0, 2).every((n) => n.startsWith('München'))).toBe(true)
    const dortmund = names.findIndex((n) => n.startsWith('Dortmund'))
    if (dortmund >= 0) expect(dortmund).toBeGreaterThan(names.findLastIndex((n) => /^München/.test(n)))
    if (width === 360) {
      // the list of options fits the narrow page: it never widens it
      const { scrollWidth, clientWidth } = await page.evaluate(() => ({
        scrollWidth: document.documentElement.scrollWidth,
        clientWidth: document.documentElement.clientWidth,
      }))
      expect(scrollWidth).toBeLessThanOrEqual(clientWidth)
    }
    await page.keyboard.press('Escape')
  })
}

for (const lng of ['en', 'he'] as const) {
  test(`the place search in ${lng}: names in another script isolated, axe clean, light and dark, 1280 and 360 px`, async ({
    page,
    request,
  }) => {
    test.setTimeout(120_000)
    const a = await signUpViaApi(request, { prefix: `places-axe-${lng}`, preferred_language: lng })
    await signInViaUi(page, a, { next: '/search?country=DE' })
    await page.waitForURL((url) => url.pathname === '/search')
    await expect(page.locator('html')).toHaveAttribute('lang', lng)
    const box = placeBox(page, lng === 'en' ? 'Find a place' : 'חיפוש מקום')
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme })
      for (const width of WIDTHS) {
        await page.setViewportSize(viewport(width))
        await box.focus()
        await page.keyboard.type(lng === 'en' ? 'Munich' : 'מינכן', { delay: 30 })
        const found = page.getByRole('option', { name: lng === 'en' ? /^München \(Munich\)/ : /^München \(מינכן\)/ })
        await expect(found.first()).toBeVisible()
        // the names sit in <bdi>: "München" reads left to right inside a Hebrew line
        await expect(found.first().locator('bdi').first()).toHaveText('München')
        await page.screenshot({ path: `test-results/screens/place-names-${lng}-${scheme}-${width}.png` })
        await axeCheck(page, `place search (${lng}, ${scheme}, ${width} px)`, { soft: true })
        await page.keyboard.press('Escape')
      }
    }
  })
}
