import { screen, within } from '@testing-library/react'
import { http, HttpResponse } from 'msw'
import { afterEach, describe, expect, it } from 'vitest'
import { resetSessionForTests, setTokensForTests } from '@/lib/session'
import { server } from '@/testing/msw-server'
import { renderWithProviders } from '@/testing/render'
import { PlansPage, pricePerLead } from './plans-page'

const plan = (p: Record<string, unknown>) => ({
  monthly_credits: 1000,
  price_per_month: '49.00',
  link_expiration_days: 7,
  product_id: 'prod',
  price_id: 'price',
  is_active: true,
  is_sellable: true,
  allows_fresh_exports: true,
  created_at: '2026-01-01T00:00:00Z',
  updated_at: '2026-01-01T00:00:00Z',
  ...p,
})

const plans = [
  plan({ id: 1, plan_type: 'free', monthly_credits: 100, price_per_month: '0.00', link_expiration_days: 3, allows_fresh_exports: false }),
  plan({ id: 2, plan_type: 'pro', monthly_credits: 5000, price_per_month: '99.00', link_expiration_days: 14 }),
  plan({ id: 3, plan_type: 'legacy', is_sellable: false }),
]

afterEach(() => resetSessionForTests())

describe('PlansPage', () => {
  it('shows sellable plans with credits, price, price per lead, link validity and fresh exports (signed out)', async () => {
    server.use(http.get('/api/plans', () => HttpResponse.json(plans)))
    renderWithProviders(<PlansPage />)
    const pro = await screen.findByRole('article', { name: 'pro' })
    expect(within(pro).getByText('$99.00 per month')).toBeInTheDocument()
    expect(within(pro).getByText('5,000')).toBeInTheDocument()
    expect(within(pro).getByText('$0.0198')).toBeInTheDocument()
    expect(within(pro).getByText('14 days')).toBeInTheDocument()
    expect(within(pro).getByText('Included')).toBeInTheDocument()
    const free = screen.getByRole('article', { name: 'free' })
    expect(within(free).getByText('Free')).toBeInTheDocument()
    expect(within(free).getByText('Not included')).toBeInTheDocument()
    expect(screen.queryByRole('article', { name: 'legacy' })).not.toBeInTheDocument()
    expect(screen.queryByText('Your current plan')).not.toBeInTheDocument()
  })

  it('marks the current plan when signed in', async () => {
    setTokensForTests('access', 'refresh')
    server.use(
      http.get('/api/plans', () => HttpResponse.json(plans)),
      http.get('/api/user/profile/', () =>
        HttpResponse.json({
          id: 1,
          email: 'a@example.com',
          subscription_plan: plans[1],
          can_download_fresh_exports: true,
          preferred_language: 'en',
        }),
      ),
    )
    renderWithProviders(<PlansPage />)
    const pro = await screen.findByRole('article', { name: /pro/ })
    expect(await within(pro).findByText('Your current plan')).toBeInTheDocument()
    expect(pro).toHaveAttribute('aria-current', 'true')
    expect(within(screen.getByRole('article', { name: 'free' })).queryByText('Your current plan')).not.toBeInTheDocument()
  })

  it('price per lead is the monthly price over the monthly credits', () => {
    expect(pricePerLead({ price_per_month: '49.00', monthly_credits: 1000 })).toBeCloseTo(0.049)
    expect(pricePerLead({ price_per_month: '10', monthly_credits: 0 })).toBeNull()
  })
})
