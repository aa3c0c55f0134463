import { expect, test, type APIRequestContext, type BrowserContext, type Page } from '@playwright/test'
import { mkdirSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { axeCheck, grantCredits, loginViaApi, signInViaUi, signUpViaApi, type Account } from './helpers'

/**
 * The map of the search's leads (issue 26, extension `geo`), in Chromium with WebGL through SwiftShader
 * (playwright.config.ts): cells from the service, a territory drawn by mouse (then one corner dragged), by
 * touch and by keyboard (a radius around a place), each giving the service's own count, an export of
 * exactly those leads, and the territory kept in the address.
 */

const SHOTS = 'test-results/screens'

async function token(request: APIRequestContext, account: Account) {
  return (await loginViaApi(request, account)).access
}

/** The count the service gives for the page's search (its address, in the API's words). */
async function serviceCount(request: APIRequestContext, auth: string, extra: Record<string, string>) {
  const res = await request.get('/api/companies/', { params: { countries: 'DE', ...extra }, headers: { Authorization: `Bearer ${auth}` } })
  expect(res.ok(), await res.text()).toBe(true)
  return ((await res.json()) as { totalCount: number }).totalCount
}

/** The settled preview count of the page's side panel. */
async function previewCount(page: Page): Promise<number> {
  await expect(page.getByText('Updating…')).toHaveCount(0)
  const count = page.getByTestId('lead-count').first()
  await expect(count).toBeVisible()
  return Number(await count.getAttribute('data-count'))
}

/** The address's drawn area (`area=lng_lat_…`) as the service's `within`. */
function withinOf(url: string): string {
  const rings = new URL(url).searchParams.getAll('area').map((a) => {
    const n = a.split('_').map(Number)
    const ring = n.flatMap((lng, i) => (i % 2 ? [] : [[lng, n[i + 1]!]]))
    return [...ring, ring[0]!]
  })
  return JSON.stringify({ type: 'Polygon', coordinates: rings })
}

/** The corners of the address's drawn area (one ring), as [lng, lat]. */
function verticesOf(url: string): [number, number][] {
  const n = (new URL(url).searchParams.get('area') ?? '').split('_').map(Number)
  return n.flatMap((lng, i) => (i % 2 ? [] : [[lng, n[i + 1]!] as [number, number]]))
}

/** Opens the map (its toggle comes once the page's first load is over) and waits for the first cells it draws. */
async function openMap(page: Page) {
  const cells = page.waitForResponse((r) => r.url().includes('/api/companies/cells/') && r.ok(), { timeout: 30_000 })
  await page.getByRole('button', { name: 'Show the map' }).click({ timeout: 20_000 })
  const answer = (await (await cells).json()) as { total: number; cells: { count: number }[] }
  await expect(page.locator('[data-testid="map"] canvas')).toBeVisible()
  return answer
}

/** A point on the page, given from the map's centre in fifths of its shorter side (the square's corners are ±1, ±1). */
async function mapPoint(page: Page, fx: number, fy: number): Promise<[number, number]> {
  const box = (await page.getByTestId('map').boundingBox())!
  const d = Math.min(box.width, box.height) / 5
  return [box.x + box.width / 2 + fx * d, box.y + box.height / 2 + fy * d]
}

/** Clicks (or taps) the corners of a square around the map's centre, then the first again to close it. */
async function drawSquare(page: Page, tap = false) {
  await page.getByTestId('map').scrollIntoViewIfNeeded()
  for (const [fx, fy] of [
    [-1, -1],
    [1, -1],
    [1, 1],
    [-1, 1],
    [-1, -1],
  ] as const) {
    const [x, y] = await mapPoint(page, fx, fy)
    if (tap) await page.touchscreen.tap(x, y)
    else {
      await page.mouse.move(x, y, { steps: 4 })
      await page.mouse.click(x, y)
    }
    await page.waitForTimeout(250)
  }
}

test.describe.configure({ mode: 'serial' })

test('the map: cells, a polygon by mouse and edited, a radius by keyboard, the export of exactly those leads, kept on reload', async ({
  page,
  request,
}) => {
  test.setTimeout(180_000)
  // MapLibre's worker and drawing run under the dashboard's Content-Security-Policy as it is (server/src/static.ts)
  const refused: string[] = []
  page.on('console', (m) => {
    if (/Content Security Policy/i.test(m.text())) refused.push(m.text())
  })
  const account = await signUpViaApi(request, { prefix: 'map' })
  await grantCredits(request, account, { subscription: 50_000 })
  const auth = await token(request, account)
  await signInViaUi(page, account, { next: '/search?country=DE' })
  const whole = await previewCount(page)
  expect(whole).toBeGreaterThan(0)

  const cells = await openMap(page)
  expect(cells.cells.length).toBeGreaterThan(0)
  // the numbers in the sheet and the table are the service's
  const total = cells.total.toLocaleString('en-US')
  await expect(page.getByTestId('map-in-view')).toHaveText(new RegExp(`^${total} leads? in view$`))
  await expect(page.getByTestId('areas-total')).toHaveText(total)
  await expect(page.getByTestId('map-legend').getByRole('listitem').first()).toBeVisible()
  await axeCheck(page, 'search with the map open')

  // a polygon by mouse: the count becomes the service's count for that polygon
  await page.getByRole('button', { name: 'Polygon' }).click()
  await drawSquare(page)
  await expect(page).toHaveURL(/[?&]area=/)
  await expect(page.getByRole('button', { name: 'Remove Drawn area' })).toBeVisible()
  const inPolygon = await serviceCount(request, auth, { within: withinOf(page.url()) })
  await expect.poll(() => previewCount(page)).toBe(inPolygon)
  expect(inPolygon).toBeLessThan(whole)

  // edited with the mouse in Terra Draw's select mode: one corner dragged outward, the count follows the new polygon
  const drawn = verticesOf(page.url())
  const edit = page.getByRole('toolbar', { name: 'Draw an area' }).getByRole('button', { name: 'Edit' })
  await edit.click()
  await expect(edit).toHaveAttribute('aria-pressed', 'true')
  const [x, y] = await mapPoint(page, 1, 1)
  const [toX, toY] = await mapPoint(page, 2, 2)
  await page.mouse.move(x, y, { steps: 4 })
  await page.mouse.down()
  await page.mouse.move(toX, toY, { steps: 12 })
  await page.mouse.up()
  await expect.poll(() => verticesOf(page.url())).not.toEqual(drawn)
  const edited = verticesOf(page.url())
  // the same four corners but the one dragged, which moved right and down (east and south)
  expect(edited).toHaveLength(drawn.length)
  const moved = edited.filter((p, i) => p.join() !== drawn[i]!.join())
  expect(moved).toHaveLength(1)
  const from = drawn[edited.indexOf(moved[0]!)]!
  expect(moved[0]![0]).toBeGreaterThan(from[0])
  expect(moved[0]![1]).toBeLessThan(from[1])
  const inEdited = await serviceCount(request, auth, { within: withinOf(page.url()) })
  await expect.poll(() => previewCount(page)).toBe(inEdited)
  // the polygon grew around the square it was: more of the leads are in it
  expect(inEdited).toBeGreaterThan(inPolygon)

  // by keyboard: a radius of 25 km around Munich (the map's place names, in the reader's language), found by name
  await page.getByRole('button', { name: 'Clear the area' }).click()
  await expect(page).not.toHaveURL(/[?&]area=/)
  await page.getByLabel('Radius in km').fill('25')
  await page.getByRole('searchbox', { name: 'Place' }).focus()
  await page.keyboard.type('munich', { delay: 20 })
  const munich = page.getByRole('radio', { name: 'Munich', exact: true })
  await expect(munich).toBeVisible()
  await munich.focus()
  await page.keyboard.press('Space')
  await expect(munich).toBeChecked()
  await page.getByRole('button', { name: 'Use this radius' }).focus()
  await page.keyboard.press('Enter')
  await expect(page).toHaveURL(/[?&]near=/)
  const near = new URL(page.url()).searchParams.get('near')!.split(':')[0]!
  expect(near).toMatch(/^48\.\d+,11\.\d+,25$/)
  const inRadius = await serviceCount(request, auth, { near })
  expect(inRadius).toBeGreaterThan(0)
  await expect.poll(() => previewCount(page)).toBe(inRadius)
  await expect(page.getByRole('button', { name: /^Remove Within 25 km of Munich/ })).toBeVisible()

  // the territory survives a reload
  await page.reload()
  await expect(page.getByRole('button', { name: /^Remove Within 25 km of Munich/ })).toBeVisible()
  expect(await previewCount(page)).toBe(inRadius)

  // the export holds exactly those leads
  await page.getByRole('button', { name: 'Export…' }).first().click()
  await page.getByRole('dialog').getByRole('button', { name: 'Start export' }).click()
  await page.waitForURL(/\/exports\/\d+$/)
  const download = page.getByRole('button', { name: /^Download / })
  await expect(download).toBeVisible({ timeout: 60_000 })
  const [file] = await Promise.all([page.waitForEvent('download'), download.click()])
  const text = await readFile(await file.path(), 'utf8')
  // one header line, then one line per lead (the seed's fields hold no line breaks)
  expect(
    text
      .replace(/^\uFEFF/, '')
      .trim()
      .split(/\r?\n/).length - 1,
  ).toBe(inRadius)
  expect(refused).toEqual([])
})

test('at 360 px with touch, the map fills the screen and a polygon is drawn by tapping', async ({ browser, request }) => {
  test.setTimeout(120_000)
  const account = await signUpViaApi(request, { prefix: 'map-touch' })
  const auth = await token(request, account)
  const context = await browser.newContext({ viewport: { width: 360, height: 740 }, hasTouch: true, isMobile: true })
  const page = await context.newPage()
  await signInViaUi(page, account, { next: '/search?country=DE' })
  await previewCount(page)
  await openMap(page)
  const panel = page.getByTestId('map-panel')
  const box = (await panel.boundingBox())!
  expect(box.width).toBe(360)
  await page.getByRole('button', { name: 'Polygon' }).click()
  await drawSquare(page, true)
  await expect(page).toHaveURL(/[?&]area=/)
  const inPolygon = await serviceCount(request, auth, { within: withinOf(page.url()) })
  await expect(page.getByTestId('map-count')).toHaveText(new RegExp(`^${inPolygon.toLocaleString('en-US')} matching leads?$`))
  await axeCheck(page, 'the map at 360 px')
  // every tool inside the window: a toolbar that scrolled sideways hid "Clear the area" off-screen
  const clear = page.getByRole('button', { name: 'Clear the area' })
  await expect(clear).toBeInViewport({ ratio: 1 })
  await clear.click()
  await expect(page).not.toHaveURL(/[?&]area=/)
  await context.close()
})

/**
 * To look at (test-results/screens): each language in both schemes and at both widths, four pictures in
 * all (each scheme and each width twice), one sign-in per language, its session carried to the next page.
 */
test('screenshots: English and Hebrew, light and dark, 1280 and 360 px', async ({ browser, request }) => {
  test.setTimeout(180_000)
  mkdirSync(SHOTS, { recursive: true })
  const views = {
    en: [
      ['light', 1280],
      ['dark', 360],
    ],
    he: [
      ['light', 360],
      ['dark', 1280],
    ],
  } as const
  for (const lang of ['en', 'he'] as const) {
    // the profile's language applies once signed in (the sign-in page itself is in English)
    const account = await signUpViaApi(request, { prefix: 'map-shots', preferred_language: lang })
    let session: Awaited<ReturnType<BrowserContext['storageState']>> | undefined
    for (const [scheme, width] of views[lang]) {
      const context = await browser.newContext({
        viewport: { width, height: width > 400 ? 900 : 740 },
        colorScheme: scheme,
        hasTouch: width < 400,
        isMobile: width < 400,
        storageState: session,
      })
      const page = await context.newPage()
      const address = '/search?country=DE&near=48.13743,11.57549,40:München'
      if (session) await page.goto(address)
      else await signInViaUi(page, account, { next: address })
      await expect(page.locator('html')).toHaveAttribute('lang', lang)
      await expect(page.locator('html')).toHaveAttribute('dir', lang === 'he' ? 'rtl' : 'ltr')
      const toggle = page.locator('button[aria-expanded][aria-controls]').filter({ hasText: lang === 'en' ? 'Show the map' : 'הצגת המפה' })
      const cells = page.waitForResponse((r) => r.url().includes('/api/companies/cells/') && r.ok(), { timeout: 30_000 })
      await toggle.click({ timeout: 20_000 })
      await cells
      await expect(page.getByTestId('map-legend').getByRole('listitem').first()).toBeVisible()
      await page.waitForTimeout(1500) // tiles of the basemap and the cells drawn
      await page.screenshot({ path: `${SHOTS}/map-${lang}-${scheme}-${width}.png`, fullPage: width > 400 })
      session = await context.storageState()
      await context.close()
    }
  }
})
