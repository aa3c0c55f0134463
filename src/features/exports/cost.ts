/**
 * What an export will cost and who pays (interface part 1: 1 credit per lead; decisions.md:
 * subscription credits first, then purchased credits). Pure arithmetic, so it is tested alone.
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

export interface PaymentPlan {
  cost: number
  available: number
  enough: boolean
  /** Credits missing when not enough (0 otherwise). */
  shortBy: number
  fromSubscription: number
  fromPurchased: number
  after: { subscription: number; purchased: number; total: number }
}

export function planPayment(cost: number, b: Balance): PaymentPlan {
  const sub = Math.max(0, b.subscription ?? 0)
  const purchased = Math.max(0, b.purchased)
  const available = sub + purchased
  const enough = cost <= available
  const fromSubscription = enough ? Math.min(cost, sub) : 0
  const fromPurchased = enough ? cost - fromSubscription : 0
  return {
    cost,
    available,
    enough,
    shortBy: enough ? 0 : cost - available,
    fromSubscription,
    fromPurchased,
    after: {
      subscription: sub - fromSubscription,
      purchased: purchased - fromPurchased,
      total: available - (enough ? cost : 0),
    },
  }
}
