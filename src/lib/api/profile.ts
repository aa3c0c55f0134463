import { queryOptions, useQuery } from '@tanstack/react-query'
import { z } from 'zod/mini'
import { api, lazySchema } from '@/lib/api-client'
import { isLanguage, type Language } from '@/config/languages'
import { useSession } from '@/lib/session'
import { planSchema, withDefault, type Plan } from './plans'

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

export const profileKeys = {
  all: ['profile'] as const,
  me: () => [...profileKeys.all, 'me'] as const,
}

export const getProfile = (signal?: AbortSignal) => api('/api/user/profile', { schema: profileSchema, signal })

export const updateProfile = (changes: ProfileUpdate) => api('/api/user/profile', { method: 'PATCH', body: changes, schema: profileSchema })

export const profileOptions = () =>
  queryOptions({
    queryKey: profileKeys.me(),
    queryFn: ({ signal }) => getProfile(signal),
  })

/** The signed-in person's profile; idle (no request) while signed out. */
export function useProfile() {
  const { signedIn } = useSession()
  return useQuery({ ...profileOptions(), enabled: signedIn })
}
