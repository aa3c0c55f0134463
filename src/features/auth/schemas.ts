import { z } from 'zod'

/**
 * Form schemas mirror the service's limits (interface part 8, decisions.md: password ≥ 8).
 * Messages are i18n keys of the `auth` namespace; the form translates them when it shows them.
 */
export const PASSWORD_MIN = 8

const email = z
  .string()
  .trim()
  .min(1, 'validation.emailRequired')
  .max(254, 'validation.emailTooLong')
  .pipe(z.email('validation.emailInvalid'))

const newPassword = z.string().min(1, 'validation.passwordRequired').min(PASSWORD_MIN, 'validation.passwordTooShort')

export const signInSchema = z.object({
  email,
  password: z.string().min(1, 'validation.passwordRequired'),
})
export type SignInValues = z.infer<typeof signInSchema>

export const signUpSchema = z.object({
  first_name: z.string().trim().max(150, 'validation.nameTooLong'),
  last_name: z.string().trim().max(150, 'validation.nameTooLong'),
  email,
  password: newPassword,
})
export type SignUpValues = z.infer<typeof signUpSchema>

export const forgotPasswordSchema = z.object({ email })
export type ForgotPasswordValues = z.infer<typeof forgotPasswordSchema>

export const resetPasswordSchema = z
  .object({ password: newPassword, confirm: z.string() })
  .refine((v) => v.password === v.confirm, { path: ['confirm'], message: 'validation.passwordsDiffer' })
export type ResetPasswordValues = z.infer<typeof resetPasswordSchema>

/** `?next=` is honoured only for same-origin relative paths (no `//evil`, no `/\evil`, no scheme). */
export function safeNext(next: string | null | undefined, fallback = '/search'): string {
  if (!next || !next.startsWith('/') || next.startsWith('//') || next.startsWith('/\\')) return fallback
  try {
    const url = new URL(next, 'http://dashboard.invalid')
    if (url.origin !== 'http://dashboard.invalid') return fallback
    if (url.pathname.startsWith('/sign-in')) return fallback
    return `${url.pathname}${url.search}${url.hash}`
  } catch {
    return fallback
  }
}
