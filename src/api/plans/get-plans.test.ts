import { describe, expect, it } from 'vitest'
import { plansResponseSchema } from './get-plans'

const plan = {
  id: 2,
  plan_type: 'pro',
  monthly_credits: 5000,
  price_per_month: '49.00',
  link_expiration_days: 7,
  product_id: 'prod',
  price_id: 'price',
  is_active: true,
  is_sellable: true,
  allows_fresh_exports: true,
  created_at: '2026-01-01T00:00:00Z',
  updated_at: '2026-01-01T00:00:00Z',
}

describe('plansResponseSchema (the shape is "not shown": interface 4.1)', () => {
  it('accepts a list or a paginated object, numbers or strings for the price', () => {
    expect(plansResponseSchema().parse([{ ...plan, price_per_month: 49 }])[0]?.price_per_month).toBe('49')
    expect(plansResponseSchema().parse({ count: 1, results: [plan] })[0]?.plan_type).toBe('pro')
  })

  it('needs only the plan_type: missing fields get neutral values, extra ones pass', () => {
    const [minimal] = plansResponseSchema().parse([{ plan_type: 'starter', tier_color: 'blue' }])
    expect(minimal).toMatchObject({
      plan_type: 'starter',
      monthly_credits: 0,
      price_per_month: '0',
      is_active: true,
      allows_fresh_exports: false,
    })
    expect((minimal as Record<string, unknown>).tier_color).toBe('blue')
    expect(plansResponseSchema().safeParse([{ monthly_credits: 10 }]).success).toBe(false)
  })
})
