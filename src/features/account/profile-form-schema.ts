import { z } from 'zod'
import { LANGUAGES } from '@/config/languages'

/**
 * The profile form, with the interface's limits (part 2.1 and part 8) checked before sending:
 * email ≤ 254 and valid, names ≤ 150, language one of the 27. Messages are i18n keys under
 * `profile.errors`.
 */
export const profileFormSchema = z.object({
  first_name: z.string().max(150, 'nameTooLong'),
  last_name: z.string().max(150, 'nameTooLong'),
  email: z
    .string()
    .trim()
    .min(1, 'required')
    .max(254, 'emailTooLong')
    .pipe(z.email('email')),
  preferred_language: z.enum(LANGUAGES, 'language'),
})
export type ProfileForm = z.infer<typeof profileFormSchema>

export const PROFILE_ERROR_KEYS = ['required', 'email', 'emailTooLong', 'nameTooLong', 'language'] as const
export type ProfileErrorKey = (typeof PROFILE_ERROR_KEYS)[number]
export const isProfileErrorKey = (v: unknown): v is ProfileErrorKey =>
  typeof v === 'string' && (PROFILE_ERROR_KEYS as readonly string[]).includes(v)
