import { expect, test, type Page } from '@playwright/test'
import { apiAs, axeCheck, confirmationLink, signInViaUi, signUpViaApi } from './helpers'

/**
 * Issue 25 (part F) against the real service: a Hebrew list joined as Hebrew writes it, a header
 * balance that reads as a balance (none of the plan's credits before the address is confirmed), a
 * confirmation page whose heading says what happened, and an offline notice while the count cannot
 * follow the search, which catches up once the browser is back online. At 1280 and 360 px.
 */

const WIDTHS = [1280, 360] as const

/** The header's balance, whatever the language: a button naming what the account can spend, its breakdown behind it. */
const balanceButton = (page: Page) => page.locator('header button[aria-controls="credit-breakdown"]')

async function previewCount(page: Page): Promise<number> {
  await expect(page.getByText('Updating…')).toHaveCount(0)
  const count = page.getByTestId('lead-count')
  await expect(count).toBeVisible()
  return Number(await count.getAttribute('data-count'))
}

for (const width of WIDTHS) {
  test.describe(`${width} px`, () => {
    test.use({ viewport: { width, height: 800 } })

    test('Hebrew joins a list with "ו" attached to the last name', async ({ page, request }) => {
      const account = await signUpViaApi(request, { prefix: 'f-list', preferred_language: 'he' })
      const ids: string[] = []
      for (const name of ['Cafe', 'Bakery']) {
        const found = await apiAs<{ id: string | number; name: string }[]>(request, account, 'GET', `/api/categories/?q=${name}&lang=en`)
        ids.push(String(found.body.find((c) => c.name === name)!.id))
      }
      const preview = await apiAs<{ search_id: string | number }>(
        request,
        account,
        'GET',
        `/api/companies/?countries=IL&${ids.map((id) => `category=${id}`).join('&')}`,
      )
      expect(preview.status).toBe(200)
      const started = await apiAs(request, account, 'POST', '/api/download-csv/', {
        search_id: preview.body.search_id,
        export_format: 'csv',
      })
      expect(started.status).toBe(202)

      await signInViaUi(page, account, { next: '/history' })
      await expect(page.locator('html')).toHaveAttribute('lang', 'he')
      // each name in its own <bdi>, the "ו" written against the name it joins
      await expect(page.locator('dd').filter({ has: page.locator('bdi', { hasText: 'מאפייה' }) })).toHaveText('בית קפה ומאפייה')
      await expect(page.getByText('ו מאפייה')).toHaveCount(0)
    })

    test('the balance reads as a balance, without the plan credits before the address is confirmed', async ({ page, request }) => {
      const account = await signUpViaApi(request, { prefix: 'f-balance', confirm: false })
      await signInViaUi(page, account)
      const button = balanceButton(page)
      await expect(page.getByRole('region', { name: 'Credit balance' }).getByRole('button')).toHaveText('0 credits left')
      await expect(button).toBeVisible()
      await button.click()
      const breakdown = page.locator(`#${await button.getAttribute('aria-controls')}`)
      await expect(breakdown).toBeVisible()
      await expect(breakdown).toContainText("Your plan's credits arrive once you confirm your email address.")
      await expect(breakdown.getByTestId('credits-subscription')).toHaveCount(0)
      await expect(page.getByText(/of 100/)).toHaveCount(0)
      await axeCheck(page, `search, unconfirmed, breakdown open (${width} px)`)
      await page.keyboard.press('Escape')
      await expect(breakdown).toBeHidden()
      await expect(button).toBeFocused()

      // the mailed link, in the same browser: the heading says what happened
      const link = confirmationLink(account.email)
      await page.goto(link)
      await expect(page.getByRole('heading', { level: 1 })).toHaveText('Email address confirmed')
      await expect(page).toHaveTitle(/^Email address confirmed/)
      await page.getByRole('link', { name: 'Go to the dashboard' }).click()
      await expect(button).toHaveText('100 credits left')
      // keyboard only: Enter opens the breakdown
      await button.focus()
      await page.keyboard.press('Enter')
      await expect(page.getByTestId('credits-subscription')).toHaveText('100 of 100 left this period')
      await expect(page.getByTestId('credits-purchased')).toHaveText('0')

      // the link opened a second time: the service answers 409 already_confirmed, nothing left to do
      await page.goto(link)
      await expect(page.getByRole('heading', { level: 1 })).toHaveText('Address already confirmed')
      await expect(page.getByText('This address is already confirmed. There is nothing more to do.')).toBeVisible()
      await axeCheck(page, `confirm-email, used link (${width} px)`)
    })

    test('offline, a changed filter says the count may be out of date; back online, the count catches up', async ({
      page,
      context,
      request,
    }) => {
      const account = await signUpViaApi(request, { prefix: 'f-offline' })
      const total = async (query: string) =>
        (await apiAs<{ totalCount: number }>(request, account, 'GET', `/api/companies/?countries=IL${query}`)).body.totalCount
      const all = await total('')
      const withPhone = await total('&phone_number=true')
      expect(withPhone).not.toBe(all)

      await signInViaUi(page, account, { next: '/search?country=IL' })
      expect(await previewCount(page)).toBe(all)
      const notice = page.getByTestId('offline-notice')
      await expect(notice).toHaveCount(0)

      await context.setOffline(true)
      const phone = page.getByRole('checkbox', { name: 'A phone number' })
      await phone.click()
      await expect(phone).toBeChecked()
      await expect(notice).toHaveText(
        'You are offline. The counts and balances shown may be out of date; they will refresh once you are back online.',
      )
      await expect(notice).toBeVisible()
      // axe reads colours as drawn: not halfway through a button's colour transition
      await page.waitForFunction(() => !document.getAnimations().some((a) => a instanceof CSSTransition))
      await axeCheck(page, `search, offline (${width} px)`)
      expect(Number(await page.getByTestId('lead-count').getAttribute('data-count'))).toBe(all)

      await context.setOffline(false)
      await expect(page.getByTestId('lead-count')).toHaveAttribute('data-count', String(withPhone))
      await expect(notice).toHaveCount(0)
    })
  })
}

test('in Hebrew: the balance, the notice and the confirmation page are axe-clean', async ({ page, context, request }) => {
  const account = await signUpViaApi(request, { prefix: 'f-he', preferred_language: 'he', confirm: false })
  await signInViaUi(page, account)
  await expect(page.locator('html')).toHaveAttribute('dir', 'rtl')
  const button = balanceButton(page)
  await expect(button).toHaveText('נותרו 0 קרדיטים')
  await button.click()
  await expect(page.getByText('הקרדיטים של התוכנית יגיעו לאחר שתאשרו את כתובת הדוא״ל.')).toBeVisible()
  await axeCheck(page, 'search in Hebrew, breakdown open')

  await context.setOffline(true)
  await expect(page.getByTestId('offline-notice')).toContainText('אין חיבור לאינטרנט.')
  await page.waitForFunction(() => !document.getAnimations().some((a) => a instanceof CSSTransition))
  await axeCheck(page, 'search in Hebrew, offline')
  await context.setOffline(false)
  await expect(page.getByTestId('offline-notice')).toHaveCount(0)

  await page.goto(confirmationLink(account.email))
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('כתובת הדוא״ל אושרה')
  await axeCheck(page, 'confirm-email in Hebrew')
})
