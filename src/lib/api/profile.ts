import { queryOptions, useMutation, useQuery, useQueryClient } from '@tanstack/react-query'
import { z } from 'zod'
import { api } from '@/lib/api-client'
import { LANGUAGES, type Language } from '@/config/languages'
import { useSession } from '@/lib/session'
import { planSchema } from './plans'

/**
 * The billing period fields are declared integer but described as ISO 8601 (interface 2.1);
 * decisions.md: accept epoch seconds, an ISO string or null, and hand the UI a Date or null.
 */
export const periodDateSchema = z
  .union([z.number(), z.string(), z.null()])
  .optional()
  .transform((v): Date | null => {
    if (v === null || v === undefined || v === '') return null
    if (typeof v === 'number') return new Date(v * 1000)
    // a numeric string is epoch seconds too
    if (/^-?\d+$/.test(v.trim())) return new Date(Number(v) * 1000)
    const d = new Date(v)
    return Number.isNaN(d.getTime()) ? null : d
  })

const int = z.number().int()

/** Plan name string (the login `user`'s typing) is turned into a minimal plan object. */
const profilePlanSchema = z
  .union([planSchema, z.string().transform((name) => planSchema.parse({ plan_type: name, monthly_credits: 0, price_per_month: '0', link_expiration_days: 0 })), z.null()])
  .optional()
  .transform((v) => v ?? null)

export const languageSchema = z.enum(LANGUAGES)

/** User (interface 2.1), tolerant: extra fields pass, missing optional ones get neutral values. */
export const profileSchema = z.looseObject({
  id: z.union([int, z.string()]),
  email: z.string(),
  first_name: z.string().nullish().transform((v) => v ?? ''),
  last_name: z.string().nullish().transform((v) => v ?? ''),
  subscription_plan: profilePlanSchema,
  total_credits: int.nullish().transform((v) => v ?? 0),
  remaining_credits: int.nullish().transform((v) => v ?? 0),
  purchased_credits_available: int.nullish().transform((v) => v ?? 0),
  purchased_credits_expiring_soon: int.nullish().transform((v) => v ?? 0),
  current_period_start: periodDateSchema,
  current_period_end: periodDateSchema,
  can_download_fresh_exports: z.boolean().nullish().transform((v) => v ?? false),
  // an unknown code from a newer service must not break the page: treat it as English
  preferred_language: z
    .string()
    .nullish()
    .transform((v): Language => (languageSchema.safeParse(v?.toLowerCase()).success ? (v!.toLowerCase() as Language) : 'en')),
})
export type Profile = z.infer<typeof profileSchema>

/** What the dashboard may PATCH: never the balance or the period (decisions.md). */
export const profileUpdateSchema = z.object({
  email: z.string().trim().email().max(254).optional(),
  first_name: z.string().max(150).optional(),
  last_name: z.string().max(150).optional(),
  preferred_language: languageSchema.optional(),
})
export type ProfileUpdate = z.infer<typeof profileUpdateSchema>

export const profileKeys = {
  all: ['profile'] as const,
  me: () => [...profileKeys.all, 'me'] as const,
}

export const getProfile = (signal?: AbortSignal) => api('/api/user/profile', { schema: profileSchema, signal })

export const updateProfile = (changes: ProfileUpdate) =>
  api('/api/user/profile', { method: 'PATCH', body: changes, schema: profileSchema })

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

export function useUpdateProfile() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: updateProfile,
    onSuccess: (profile) => {
      queryClient.setQueryData(profileOptions().queryKey, profile)
    },
  })
}
