import { describe, expect, it } from 'vitest'
import { capToSpendExpiring, profileSchema, type CreditLot } from './profile'

const base = {
  id: 7,
  email: 'a@example.com',
  first_name: 'Ada',
  last_name: 'L',
  subscription_plan: {
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
  },
  total_credits: 5000,
  remaining_credits: 1200,
  purchased_credits_available: 300,
  purchased_credits_expiring_soon: 100,
  current_period_start: 1_793_000_000,
  current_period_end: 1_795_592_000,
  can_download_fresh_exports: true,
  preferred_language: 'de',
}

describe('profileSchema (decisions.md: tolerate)', () => {
  it('reads the billing period from epoch seconds', () => {
    const p = profileSchema().parse(base)
    expect(p.current_period_start).toEqual(new Date(1_793_000_000 * 1000))
    expect(p.current_period_end?.toISOString()).toBe(new Date(1_795_592_000_000).toISOString())
  })

  it('reads the billing period from ISO strings and null', () => {
    const p = profileSchema().parse({ ...base, current_period_start: '2026-11-01T00:00:00Z', current_period_end: null })
    expect(p.current_period_start?.toISOString()).toBe('2026-11-01T00:00:00.000Z')
    expect(p.current_period_end).toBeNull()
  })

  it('treats a numeric string as epoch seconds and nonsense as no date', () => {
    const p = profileSchema().parse({ ...base, current_period_start: '1793000000', current_period_end: 'not a date' })
    expect(p.current_period_start).toEqual(new Date(1_793_000_000 * 1000))
    expect(p.current_period_end).toBeNull()
  })

  it('keeps extra fields and fills missing optional ones', () => {
    const minimal = { id: '7', email: 'a@example.com', future_field: { x: 1 } }
    const p = profileSchema().parse(minimal)
    expect(p.subscription_plan).toBeNull()
    expect(p.remaining_credits).toBe(0)
    expect(p.purchased_credits_available).toBe(0)
    expect(p.current_period_start).toBeNull()
    expect(p.preferred_language).toBe('en')
    expect((p as Record<string, unknown>).future_field).toEqual({ x: 1 })
  })

  it('accepts the plan as a bare name (login user typing)', () => {
    const p = profileSchema().parse({ ...base, subscription_plan: 'starter' })
    expect(p.subscription_plan?.plan_type).toBe('starter')
  })

  it('maps an unknown language to English and an upper-case one to its code', () => {
    expect(profileSchema().parse({ ...base, preferred_language: 'xx' }).preferred_language).toBe('en')
    expect(profileSchema().parse({ ...base, preferred_language: 'HE' }).preferred_language).toBe('he')
  })

  it('rejects a body without the always-present fields', () => {
    expect(profileSchema().safeParse({ first_name: 'x' }).success).toBe(false)
  })
})

describe('credit_lots (extension credit_order)', () => {
  it('are read in the order the service lists them; a list the dashboard cannot read leaves the profile readable', () => {
    const lots = [
      { source: 'purchased', credits: 500, expires_at: '2026-12-03T00:00:00Z' },
      { source: 'subscription', credits: 1000, expires_at: null },
    ]
    expect(profileSchema().parse({ ...base, credit_lots: lots }).credit_lots).toEqual(lots)
    expect(profileSchema().parse(base).credit_lots).toBeUndefined()
    const odd = profileSchema().parse({ ...base, credit_lots: [{ source: 'gift', credits: 'many' }] })
    expect(odd.credit_lots).toBeUndefined()
    expect(odd.email).toBe('a@example.com')
  })
})

const lot = (source: CreditLot['source'], credits: number, expires_at: string | null = null): CreditLot => ({ source, credits, expires_at })

describe('capToSpendExpiring', () => {
  it('is the expiring amount when those purchased credits come first', () => {
    expect(
      capToSpendExpiring([lot('purchased', 500, '2026-12-03T00:00:00Z'), lot('subscription', 1000, '2026-12-20T00:00:00Z')], 500),
    ).toBe(500)
  })

  it('counts what the service spends before them (subscription credits ending even sooner)', () => {
    expect(capToSpendExpiring([lot('subscription', 200, '2026-12-02T00:00:00Z'), lot('purchased', 500, '2026-12-03T00:00:00Z')], 500)).toBe(
      700,
    )
    // part of a larger lot
    expect(capToSpendExpiring([lot('subscription', 50), lot('purchased', 300), lot('purchased', 900)], 400)).toBe(450)
  })

  it('is null when there is nothing to spend or the list does not hold it', () => {
    expect(capToSpendExpiring([lot('purchased', 10)], 0)).toBeNull()
    expect(capToSpendExpiring([lot('subscription', 1000), lot('purchased', 10)], 500)).toBeNull()
  })
})
