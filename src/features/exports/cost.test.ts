import { describe, expect, it } from 'vitest'
import { availableCredits, exportCost, planPayment } from './cost'

describe('exportCost', () => {
  it('is one credit per lead, or the cap when it is lower', () => {
    expect(exportCost(1234, null)).toBe(1234)
    expect(exportCost(1234, 100)).toBe(100)
    expect(exportCost(50, 100)).toBe(50)
    expect(exportCost(0, null)).toBe(0)
  })
})

describe('planPayment', () => {
  it('pays from subscription credits first', () => {
    const p = planPayment(80, { subscription: 100, purchased: 40 })
    expect(p).toMatchObject({ enough: true, fromSubscription: 80, fromPurchased: 0, shortBy: 0 })
    expect(p.after).toEqual({ subscription: 20, purchased: 40, total: 60 })
  })

  it('takes the rest from purchased credits', () => {
    const p = planPayment(130, { subscription: 100, purchased: 40 })
    expect(p).toMatchObject({ enough: true, fromSubscription: 100, fromPurchased: 30 })
    expect(p.after).toEqual({ subscription: 0, purchased: 10, total: 10 })
  })

  it('spends the balance exactly to zero', () => {
    expect(planPayment(140, { subscription: 100, purchased: 40 }).after.total).toBe(0)
  })

  it('says how much is missing and charges nothing when short', () => {
    const p = planPayment(200, { subscription: 100, purchased: 40 })
    expect(p).toMatchObject({ enough: false, available: 140, shortBy: 60, fromSubscription: 0, fromPurchased: 0 })
    expect(p.after).toEqual({ subscription: 100, purchased: 40, total: 140 })
  })

  it('treats a null or negative subscription balance as none', () => {
    expect(availableCredits({ subscription: null, purchased: 5 })).toBe(5)
    expect(availableCredits({ subscription: -10, purchased: 5 })).toBe(5)
    expect(planPayment(5, { subscription: -10, purchased: 5 })).toMatchObject({ enough: true, fromSubscription: 0, fromPurchased: 5 })
  })
})
