import { expect, test } from '@playwright/test'
import { signInViaUi, signUpViaApi } from './helpers'

/**
 * What the search page owes a person on a slow phone, checked as facts rather than timings (the
 * timings are `npm run bench:lighthouse`'s, docs/benchmarks.md): a clicked control shows its new
 * state in the very next frame, even with the CPU slowed 4×, and the page's own markup does not
 * shift while it loads and its data arrive.
 */

test.use({ viewport: { width: 360, height: 800 } })

test('every clicked control of the search page shows its new state in the next frame, at 4× CPU', async ({ page, request, context }) => {
  const account = await signUpViaApi(request, { prefix: 'frame' })
  await signInViaUi(page, account)
  await page.goto('/search')
  await expect(page.locator('#root[data-interactive]')).toBeAttached()
  const cdp = await context.newCDPSession(page)
  await cdp.send('Emulation.setCPUThrottlingRate', { rate: 4 })

  /** A trusted click at the control's centre; the control is read in the next animation frame. */
  const clickAndSee = async (name: string, role: 'radio' | 'checkbox') => {
    const control = page.getByRole(role, { name })
    await control.scrollIntoViewIfNeeded()
    const before = await control.isChecked()
    await control.evaluate((el: HTMLInputElement) => {
      const w = window as unknown as { seenInNextFrame?: boolean }
      w.seenInNextFrame = undefined
      el.addEventListener('click', () => requestAnimationFrame(() => (w.seenInNextFrame = el.checked)), { once: true })
    })
    const box = (await control.boundingBox())!
    await page.mouse.click(box.x + box.width / 2, box.y + box.height / 2)
    await page.waitForFunction(() => (window as unknown as { seenInNextFrame?: boolean }).seenInNextFrame !== undefined)
    const seen = await page.evaluate(() => (window as unknown as { seenInNextFrame?: boolean }).seenInNextFrame)
    expect(seen, `${name} in the frame after the click`).toBe(role === 'radio' ? true : !before)
  }

  for (let i = 0; i < 2; i++) {
    await clickAndSee('Excel (XLSX)', 'radio')
    await clickAndSee('CSV', 'radio')
    await clickAndSee('An email address', 'checkbox')
    await clickAndSee('A phone number', 'checkbox')
    await clickAndSee('An email address', 'checkbox')
    await clickAndSee('A phone number', 'checkbox')
  }
  await cdp.send('Emulation.setCPUThrottlingRate', { rate: 1 })
})

test('the signed-in search page does not shift its own markup while it loads (CLS < 0.02)', async ({ page, request, context }) => {
  const account = await signUpViaApi(request, { prefix: 'cls' })
  await signInViaUi(page, account)
  await context.addInitScript(() => {
    const w = window as unknown as { shifts: number }
    w.shifts = 0
    new PerformanceObserver((list) => {
      for (const e of list.getEntries() as (PerformanceEntry & { value: number; hadRecentInput: boolean })[])
        if (!e.hadRecentInput) w.shifts += e.value
    }).observe({ type: 'layout-shift', buffered: true })
  })
  await page.goto('/search')
  await expect(page.locator('#root[data-interactive]')).toBeAttached()
  await page.waitForLoadState('networkidle')
  const shifts = await page.evaluate(() => (window as unknown as { shifts: number }).shifts)
  expect(shifts).toBeLessThan(0.02)
})
