import { screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { http, HttpResponse } from 'msw'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { capabilitiesOptions } from '@/api/capabilities/get-capabilities'
import { changeLanguage } from '@/lib/i18n'
import { resetSessionForTests, setTokensForTests } from '@/lib/session'
import { server } from '@/testing/msw-server'
import { renderWithProviders } from '@/testing/render'
import { CreditBalance } from './credit-balance'

const profile = {
  id: 3,
  email: 'grace@example.com',
  first_name: 'Grace',
  last_name: 'Hopper',
  subscription_plan: { plan_type: 'Basic', monthly_credits: 1000, price_per_month: '19.00', link_expiration_days: 14 },
  total_credits: 1000,
  remaining_credits: 250,
  purchased_credits_available: 300,
  purchased_credits_expiring_soon: 0,
  current_period_start: 1_793_000_000,
  current_period_end: 1_795_592_000,
  can_download_fresh_exports: true,
  preferred_language: 'en',
}

const withProfile = (extra: Record<string, unknown>) =>
  server.use(http.get('/api/user/profile/', () => HttpResponse.json({ ...profile, ...extra })))

/** The header's button, once the profile is in. */
const balanceButton = () => screen.findByRole('button', { name: /left$/ })

async function subscriptionShown(remaining: number, total: number) {
  withProfile({ remaining_credits: remaining, total_credits: total })
  renderWithProviders(<CreditBalance />)
  await balanceButton()
  return screen.getByTestId('credits-subscription').textContent
}

beforeEach(() => {
  resetSessionForTests()
  setTokensForTests('access', 'refresh')
})

describe('credit balance', () => {
  it('reads as a balance: what the account can spend, subscription and purchased together', async () => {
    withProfile({ remaining_credits: 250, purchased_credits_available: 300 })
    renderWithProviders(<CreditBalance />)
    expect(await balanceButton()).toHaveTextContent('550 credits left')
  })

  it('says "credit" for one', async () => {
    withProfile({ remaining_credits: 1, purchased_credits_available: 0 })
    renderWithProviders(<CreditBalance />)
    expect(await balanceButton()).toHaveTextContent(/^1 credit left$/)
  })

  it('shows where the credits come from behind the button, and Escape puts them away', async () => {
    const user = userEvent.setup()
    withProfile({ remaining_credits: 250, purchased_credits_available: 300 })
    renderWithProviders(<CreditBalance />)
    const button = await balanceButton()
    const breakdown = document.getElementById(button.getAttribute('aria-controls') ?? '')!
    expect(button).toHaveAttribute('aria-expanded', 'false')
    expect(breakdown).not.toBeVisible()
    await user.click(button)
    expect(button).toHaveAttribute('aria-expanded', 'true')
    expect(breakdown).toBeVisible()
    expect(within(breakdown).getByTestId('credits-subscription')).toHaveTextContent('250 of 1,000 left this period')
    expect(within(breakdown).getByTestId('credits-purchased')).toHaveTextContent('300')
    await user.keyboard('{Escape}')
    expect(breakdown).not.toBeVisible()
    expect(button).toHaveFocus()
  })

  it('shows the subscription credits left of the period total', async () => {
    expect(await subscriptionShown(250, 1000)).toBe('250 of 1,000 left this period')
  })

  it('still shows "of" when exactly the total is left', async () => {
    expect(await subscriptionShown(1000, 1000)).toBe('1,000 of 1,000 left this period')
  })

  it('shows only the number when grants or rollovers put the credits above the total', async () => {
    expect(await subscriptionShown(3298, 1000)).toBe('3,298')
  })

  it('counts no subscription credits for an account whose address is not confirmed yet', async () => {
    // as the service sends it before the confirmation: the plan's total, nothing of it granted
    withProfile({ email_confirmed: false, remaining_credits: 0, total_credits: 100, purchased_credits_available: 0 })
    renderWithProviders(<CreditBalance />)
    expect(await balanceButton()).toHaveTextContent('0 credits left')
    expect(screen.queryByTestId('credits-subscription')).toBeNull()
    expect(screen.queryByText(/of 100/)).toBeNull()
    expect(screen.getByText("Your plan's credits arrive once you confirm your email address.")).toBeInTheDocument()
  })

  describe('purchased credits about to expire (issue 21)', () => {
    const expiring = () =>
      server.use(http.get('/api/user/profile/', () => HttpResponse.json({ ...profile, purchased_credits_expiring_soon: 120 })))

    it('links to the plan for them when the service spends the credits that expire first (credit_order)', async () => {
      expiring()
      server.use(http.get('*/api/capabilities/', () => HttpResponse.json({ credit_order: { version: 1, order: 'earliest_expiry_first' } })))
      renderWithProviders(<CreditBalance />)
      const link = await screen.findByRole('link', { name: 'Expiring soon: 120' })
      expect(link).toHaveAttribute('href', '/account#expiring')
    })

    it('states only the fact when the service does not say which credits it spends first', async () => {
      expiring()
      const { queryClient } = renderWithProviders(<CreditBalance />)
      expect(await screen.findByTestId('credits-expiring')).toHaveTextContent('Expiring soon: 120')
      // the capabilities have answered (404: none): still no promise of a plan
      await waitFor(() => expect(queryClient.getQueryState(capabilitiesOptions().queryKey)?.status).toBe('success'))
      expect(screen.queryByRole('link')).toBeNull()
    })
  })

  describe('in Hebrew', () => {
    afterEach(async () => {
      await changeLanguage('en')
    })

    it('isolates each number of the sentence in a <bdi>', async () => {
      await changeLanguage('he')
      withProfile({ remaining_credits: 250, total_credits: 1000, purchased_credits_available: 1300 })
      renderWithProviders(<CreditBalance />)
      const button = await screen.findByRole('button', { name: /קרדיטים/ })
      expect([...button.querySelectorAll('bdi')].map((b) => b.textContent)).toEqual(['1,550'])
      expect(button).toHaveTextContent('נותרו 1,550 קרדיטים')
      const shown = screen.getByTestId('credits-subscription')
      expect([...shown.querySelectorAll('bdi')].map((b) => b.textContent)).toEqual(['250', '1,000'])
      expect(shown.textContent).toBe('נותרו 250 מתוך 1,000 בתקופה זו')
    })
  })
})
