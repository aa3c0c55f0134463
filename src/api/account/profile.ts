import { queryOptions, useQuery } from '@tanstack/react-query'
import { z } from 'zod/mini'
import { api, lazySchema } from '@/lib/api-client'
import { isLanguage, type Language } from '@/config/languages'
import { useSession } from '@/lib/session'
import { planSchema, type Plan } from '../plans/get-plans'
import { withDefault } from '../schemas'
import { accountKeys } from './keys'

/**
 * The billing period fields are declared integer but described as ISO 8601 (interface 2.1);
 * decisions.md: accept epoch seconds, an ISO string or null, and hand the UI a Date or null.
 */
export function parsePeriodDate(v: number | string | null | undefined): Date | null {
  if (v === null || v === undefined || v === '') return null
  if (typeof v === 'number') return new Date(v * 1000)
  // a numeric string is epoch seconds too
  if (/^-?\d+$/.test(v.trim())) return new Date(Number(v) * 1000)
  const d = new Date(v)
  return Number.isNaN(d.getTime()) ? null : d
}

const periodDateSchema = () => z.pipe(z.optional(z.nullable(z.union([z.number(), z.string()]))), z.transform(parsePeriodDate))

/** A plan name string (the login `user`'s typing) becomes a minimal plan object. */
const profilePlanSchema = () =>
  z.pipe(
    z.optional(z.nullable(z.union([planSchema(), z.string()]))),
    z.transform((v): Plan | null => (typeof v === 'string' ? planSchema().parse({ plan_type: v }) : (v ?? null))),
  )

/**
 * One spendable balance (extension credit_order). The service sends its `expires_at` too (null: never);
 * the dashboard needs only the order, which is the list's.
 */
const creditLotSchema = () => z.looseObject({ source: z.enum(['subscription', 'purchased']), credits: z.number() })
export type CreditLot = z.output<ReturnType<typeof creditLotSchema>>

/**
 * The cap that spends the purchased credits about to expire (`expiring`, the interface's
 * purchased_credits_expiring_soon): they are spent once everything before them in the service's order
 * (`lots`) is, so the cap counts that too (subscription credits that expire even sooner, say). null
 * when the list does not hold that many purchased credits.
 */
export function capToSpendExpiring(lots: readonly CreditLot[], expiring: number): number | null {
  if (expiring <= 0) return null
  let spent = 0
  let purchased = 0
  for (const lot of lots) {
    const credits = Math.max(0, lot.credits)
    if (lot.source === 'purchased' && purchased + credits >= expiring) return spent + (expiring - purchased)
    spent += credits
    if (lot.source === 'purchased') purchased += credits
  }
  return null
}

/** User (interface 2.1), tolerant: extra fields pass, missing optional ones get neutral values. */
export const profileSchema = lazySchema(() =>
  z.looseObject({
    id: z.union([z.number(), z.string()]),
    email: z.string(),
    first_name: withDefault(z.string(), ''),
    last_name: withDefault(z.string(), ''),
    subscription_plan: profilePlanSchema(),
    total_credits: withDefault(z.number(), 0),
    remaining_credits: withDefault(z.number(), 0),
    purchased_credits_available: withDefault(z.number(), 0),
    purchased_credits_expiring_soon: withDefault(z.number(), 0),
    current_period_start: periodDateSchema(),
    current_period_end: periodDateSchema(),
    can_download_fresh_exports: withDefault(z.boolean(), false),
    // extensions (issue 9): absent on a service without them, and then nothing is shown
    email_confirmed: z.optional(z.boolean()),
    pending_email: z.optional(z.nullable(z.string())),
    // extension credit_order (issue 21): the spendable balances in the order an export spends them; a
    // list the dashboard cannot read is as good as none (the profile itself must still load)
    credit_lots: z.catch(z.optional(z.array(creditLotSchema())), undefined),
    // an unknown code from a newer service must not break the page: treat it as English
    preferred_language: z.pipe(
      z.optional(z.nullable(z.string())),
      z.transform((v): Language => {
        const code = v?.toLowerCase()
        return isLanguage(code) ? code : 'en'
      }),
    ),
  }),
)
export type Profile = z.output<ReturnType<typeof profileSchema>>

/** What the dashboard may PATCH: never the balance or the period (decisions.md). */
export interface ProfileUpdate {
  email?: string
  /** Extension: the service asks for it with a new email. */
  current_password?: string
  first_name?: string
  last_name?: string
  preferred_language?: Language
}

/*
 * `GET` and `PATCH /api/user/profile/` (interface 4.4), both answering the whole User. The PATCH lives
 * here, in the module the shell has loaded on every signed-in page, because the language switcher sends
 * it right before a reload: a module of its own would still be loading when the page is left.
 */
export const getProfile = (signal?: AbortSignal) => api('/api/user/profile/', { schema: profileSchema, signal })

// keepalive: the change is not cut off when the page is left
export const updateProfile = (changes: ProfileUpdate) =>
  api('/api/user/profile/', { method: 'PATCH', body: changes, schema: profileSchema, keepalive: true })

export const profileOptions = () =>
  queryOptions({
    queryKey: accountKeys.profile(),
    queryFn: ({ signal }) => getProfile(signal),
  })

/** The signed-in person's profile; idle (no request) while signed out. */
export function useProfile() {
  const { signedIn } = useSession()
  return useQuery({ ...profileOptions(), enabled: signedIn })
}
