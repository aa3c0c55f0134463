import { describe, expect, it } from 'vitest'
import type { CreditLot } from '@/api/account/profile'
import { availableCredits, exportCost, planPayment } from './cost'

const lot = (source: CreditLot['source'], credits: number, expires_at: string | null = null): CreditLot => ({ source, credits, expires_at })

describe('exportCost', () => {
  it('is one credit per lead, or the cap when it is lower', () => {
    expect(exportCost(1234, null)).toBe(1234)
    expect(exportCost(1234, 100)).toBe(100)
    expect(exportCost(50, 100)).toBe(50)
    expect(exportCost(0, null)).toBe(0)
  })
})

describe('planPayment', () => {
  it('without the service’s order (the interface alone) claims no split: the cost and the total afterwards only', () => {
    const p = planPayment(80, { subscription: 100, purchased: 40 })
    expect(p).toMatchObject({ enough: true, shortBy: 0, afterTotal: 60, split: null })
    expect(planPayment(80, { subscription: 100, purchased: 40 }, null).split).toBeNull()
  })

  it('follows the service’s order: purchased credits that expire first pay first', () => {
    const lots = [lot('purchased', 500, '2026-12-03T00:00:00Z'), lot('subscription', 1000, '2026-12-20T00:00:00Z')]
    const p = planPayment(500, { subscription: 1000, purchased: 500 }, lots)
    expect(p.split).toEqual({ fromSubscription: 0, fromPurchased: 500, after: { subscription: 1000, purchased: 0 } })
    expect(p.afterTotal).toBe(1000)
    expect(planPayment(700, { subscription: 1000, purchased: 500 }, lots).split).toMatchObject({
      fromSubscription: 200,
      fromPurchased: 500,
    })
  })

  it('follows the service’s order: subscription credits ending sooner pay first, then purchased ones', () => {
    const lots = [lot('subscription', 100, '2026-12-01T00:00:00Z'), lot('purchased', 40, '2027-01-01T00:00:00Z')]
    expect(planPayment(80, { subscription: 100, purchased: 40 }, lots).split).toEqual({
      fromSubscription: 80,
      fromPurchased: 0,
      after: { subscription: 20, purchased: 40 },
    })
    expect(planPayment(130, { subscription: 100, purchased: 40 }, lots).split).toEqual({
      fromSubscription: 100,
      fromPurchased: 30,
      after: { subscription: 0, purchased: 10 },
    })
    expect(planPayment(140, { subscription: 100, purchased: 40 }, lots).afterTotal).toBe(0)
  })

  it('claims no split from a list that does not match the balances', () => {
    expect(planPayment(130, { subscription: 100, purchased: 40 }, [lot('subscription', 100)]).split).toBeNull()
    expect(planPayment(50, { subscription: 0, purchased: 40 }, [lot('subscription', 60)]).split).toBeNull()
  })

  it('says how much is missing and charges nothing when short', () => {
    const p = planPayment(200, { subscription: 100, purchased: 40 }, [lot('subscription', 100), lot('purchased', 40)])
    expect(p).toMatchObject({ enough: false, available: 140, shortBy: 60, afterTotal: 140, split: null })
  })

  it('treats a null or negative subscription balance as none', () => {
    expect(availableCredits({ subscription: null, purchased: 5 })).toBe(5)
    expect(availableCredits({ subscription: -10, purchased: 5 })).toBe(5)
    expect(planPayment(5, { subscription: -10, purchased: 5 }, [lot('purchased', 5)])).toMatchObject({
      enough: true,
      split: { fromSubscription: 0, fromPurchased: 5 },
    })
  })
})
