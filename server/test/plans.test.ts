import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestService, type TestService } from './helpers.ts'
import { body } from './account-helpers.ts'

let svc: TestService
beforeAll(async () => {
  svc = await startTestService()
})
afterAll(async () => {
  await svc?.close()
})

interface Plan {
  id: number
  plan_type: string
  monthly_credits: number
  price_per_month: string
  link_expiration_days: number
  product_id: string
  price_id: string
  is_active: boolean
  is_sellable: boolean
  allows_fresh_exports: boolean
  created_at: string
  updated_at: string
}

describe('GET /api/plans', () => {
  it('is public and answers with and without the trailing slash', async () => {
    for (const p of ['/api/plans', '/api/plans/']) {
      const res = await svc.request(p)
      expect(res.status).toBe(200)
      expect(res.headers.get('content-type')).toContain('application/json')
    }
  })

  it('lists at least four plans with every field of interface 2.2 within its limits', async () => {
    const plans = await body<Plan[]>(await svc.request('/api/plans/'))
    expect(plans.length).toBeGreaterThanOrEqual(4)
    for (const p of plans) {
      expect(p.plan_type.length).toBeLessThanOrEqual(20)
      expect(p.price_per_month).toMatch(/^-?\d{0,8}(?:\.\d{0,2})?$/)
      expect(Number.isInteger(p.monthly_credits)).toBe(true)
      expect(Number.isInteger(p.link_expiration_days)).toBe(true)
      expect(p.product_id.length).toBeLessThanOrEqual(100)
      expect(p.price_id.length).toBeLessThanOrEqual(100)
      expect(typeof p.is_active).toBe('boolean')
      expect(typeof p.is_sellable).toBe('boolean')
      expect(typeof p.allows_fresh_exports).toBe('boolean')
      expect(new Date(p.created_at).toISOString()).toBe(p.created_at)
      expect(new Date(p.updated_at).toISOString()).toBe(p.updated_at)
    }
  })

  it('has a free plan without fresh exports and paid plans with them, cheapest first', async () => {
    const plans = await body<Plan[]>(await svc.request('/api/plans/'))
    const free = plans.find((p) => p.plan_type === 'Free')
    expect(free).toMatchObject({
      monthly_credits: 100,
      price_per_month: '0.00',
      link_expiration_days: 3,
      allows_fresh_exports: false,
      is_sellable: false,
    })
    const paid = plans.filter((p) => Number(p.price_per_month) > 0)
    expect(paid.length).toBeGreaterThanOrEqual(3)
    expect(paid.every((p) => p.allows_fresh_exports && p.is_sellable)).toBe(true)
    expect(paid.map((p) => p.link_expiration_days)).toEqual([7, 14, 30])
    const prices = plans.map((p) => Number(p.price_per_month))
    expect([...prices].sort((a, b) => a - b)).toEqual(prices)
  })
})
