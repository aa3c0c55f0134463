import type { CreditLot } from '@/api/account/profile'

/**
 * What an export will cost and who pays (interface part 1: 1 credit per lead). Which balance pays is
 * the service's choice, and the interface does not say it: only a service that declares its order
 * (extension `credit_order`, with the balances listed in spending order as `credit_lots`) lets the
 * dashboard say "from your subscription / from your purchased credits". Pure arithmetic, tested alone.
 */
export interface Balance {
  /** remaining_credits: subscription credits of this period (null or negative = none). */
  subscription: number | null
  /** purchased_credits_available (expired lots already excluded by the service). */
  purchased: number
}

export function exportCost(totalCount: number, cap: number | null): number {
  const total = Math.max(0, Math.floor(totalCount))
  return cap !== null && cap > 0 ? Math.min(total, Math.floor(cap)) : total
}

export const availableCredits = (b: Balance) => Math.max(0, b.subscription ?? 0) + Math.max(0, b.purchased)

/** Who pays, when the service says in which order it spends (`credit_lots`). */
export interface PaymentSplit {
  fromSubscription: number
  fromPurchased: number
  after: { subscription: number; purchased: number }
}

export interface PaymentPlan {
  cost: number
  available: number
  enough: boolean
  /** Credits missing when not enough (0 otherwise). */
  shortBy: number
  /** The balance left afterwards (all of it when not enough: nothing is charged). */
  afterTotal: number
  /** null when the service does not declare its order, or when nothing is charged. */
  split: PaymentSplit | null
}

/**
 * `lots`: the balances in the order the service spends them (only when it lists `credit_order`); the
 * cost is taken from them in that order. Without them no split is claimed.
 */
export function planPayment(cost: number, b: Balance, lots?: readonly CreditLot[] | null): PaymentPlan {
  const sub = Math.max(0, b.subscription ?? 0)
  const purchased = Math.max(0, b.purchased)
  const available = sub + purchased
  const enough = cost <= available
  return {
    cost,
    available,
    enough,
    shortBy: enough ? 0 : cost - available,
    afterTotal: available - (enough ? cost : 0),
    split: enough && lots ? splitByLots(cost, lots, { subscription: sub, purchased }) : null,
  }
}

function splitByLots(cost: number, lots: readonly CreditLot[], balance: { subscription: number; purchased: number }): PaymentSplit | null {
  const from = { subscription: 0, purchased: 0 }
  let left = cost
  for (const lot of lots) {
    if (left === 0) break
    const take = Math.min(left, Math.max(0, lot.credits))
    from[lot.source] += take
    left -= take
  }
  // a list that does not cover the cost (or says more than the balances) cannot be trusted for the split
  if (left > 0 || from.subscription > balance.subscription || from.purchased > balance.purchased) return null
  return {
    fromSubscription: from.subscription,
    fromPurchased: from.purchased,
    after: { subscription: balance.subscription - from.subscription, purchased: balance.purchased - from.purchased },
  }
}
