import { expect, test, type Page } from '@playwright/test'
import { axeCheck, signInViaUi, signUpViaApi } from './helpers'

/** Coverage before paying, against the reference service's facets extension: each bar is what its click counts. */

async function settledCount(page: Page): Promise<number> {
  await expect(page.getByText('Updating…')).toHaveCount(0)
  const count = page.getByTestId('lead-count')
  await expect(count).toBeVisible()
  return Number(await count.getAttribute('data-count'))
}

/** "1,234 (12%)" → 1234 */
const barCount = async (page: Page, name: RegExp) => {
  const text = (await page.getByRole('region', { name: 'Coverage' }).getByRole('button', { name }).textContent()) ?? ''
  return Number(text.match(/([\d,]+) \(/)![1]!.replace(/,/g, ''))
}

test('coverage bars show what the leads have, and a click narrows the search to exactly that', async ({ page, request }) => {
  const account = await signUpViaApi(request, { prefix: 'coverage' })
  await signInViaUi(page, account, { next: '/search?country=DE' })
  const total = await settledCount(page)
  const coverage = page.getByRole('region', { name: 'Coverage' })
  await expect(coverage.getByRole('heading', { name: 'Top regions' })).toBeVisible()
  await expect(coverage.getByRole('heading', { name: 'Top categories' })).toBeVisible()
  await axeCheck(page, 'coverage')

  const phones = await barCount(page, /^A phone number/)
  expect(phones).toBeGreaterThan(0)
  expect(phones).toBeLessThanOrEqual(total)
  await coverage.getByRole('button', { name: /^A phone number/ }).click()
  await expect(page).toHaveURL(/phone=1/)
  expect(await settledCount(page)).toBe(phones)
  await expect(page.getByRole('checkbox', { name: 'A phone number' })).toBeChecked()

  const region = coverage.getByRole('heading', { name: 'Top regions' }).locator('..').getByRole('button').first()
  const regionName = ((await region.locator('bdi').textContent()) ?? '').trim()
  const inRegion = Number(((await region.textContent()) ?? '').match(/([\d,]+) \(/)![1]!.replace(/,/g, ''))
  await region.click()
  await expect(page).toHaveURL(/l1=DE/)
  expect(await settledCount(page)).toBe(inRegion)
  await expect(page.getByRole('button', { name: new RegExp(`^Remove .*${regionName}$`) })).toBeVisible()
})
