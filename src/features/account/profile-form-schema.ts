import { z } from 'zod/mini'
import { LANGUAGES } from '@/config/languages'

/**
 * The profile form, with the interface's limits (part 2.1 and part 8) checked before sending:
 * email ≤ 254 and valid, names ≤ 150, language one of the 27. Messages are i18n keys under
 * `profile.errors`.
 */
export const NAME_MAX = 150
export const EMAIL_MAX = 254

export const profileFormSchema = z.object({
  first_name: z.string().check(z.maxLength(NAME_MAX, 'nameTooLong')),
  last_name: z.string().check(z.maxLength(NAME_MAX, 'nameTooLong')),
  // trimmed first; the length rules see the trimmed value, and only a string that passes them is checked as an address
  email: z.pipe(z.string().check(z.trim(), z.minLength(1, 'required'), z.maxLength(EMAIL_MAX, 'emailTooLong')), z.email('email')),
  preferred_language: z.enum(LANGUAGES, 'language'),
  // asked for only when the email changes (the form checks that it is filled then)
  current_password: z.optional(z.string().check(z.maxLength(1024, 'required'))),
})
export type ProfileForm = z.infer<typeof profileFormSchema>

export const PROFILE_ERROR_KEYS = ['required', 'email', 'emailTooLong', 'nameTooLong', 'language', 'currentPasswordRequired'] as const
export type ProfileErrorKey = (typeof PROFILE_ERROR_KEYS)[number]
export const isProfileErrorKey = (v: unknown): v is ProfileErrorKey =>
  typeof v === 'string' && (PROFILE_ERROR_KEYS as readonly string[]).includes(v)
