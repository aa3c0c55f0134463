import { z } from 'zod/mini'

/**
 * Form schemas mirror the service's limits (interface part 8; decisions.md and the reference service: password 8 to 128 characters).
 * Messages are i18n keys of the `auth` namespace; the form translates them when it shows them.
 * `zod/mini`: these ship with the sign-in page, which must stay small.
 */
export const PASSWORD_MIN = 8
export const PASSWORD_MAX = 128
/** Interface part 8: an email address has at most 254 characters, a first or last name at most 150. */
export const EMAIL_MAX = 254
export const NAME_MAX = 150

const email = z.pipe(
  z.string().check(z.trim(), z.minLength(1, 'validation.emailRequired'), z.maxLength(EMAIL_MAX, 'validation.emailTooLong')),
  z.email('validation.emailInvalid'),
)

const newPassword = z
  .string()
  .check(
    z.minLength(1, 'validation.passwordRequired'),
    z.minLength(PASSWORD_MIN, 'validation.passwordTooShort'),
    z.maxLength(PASSWORD_MAX, 'validation.passwordTooLong'),
  )

export const signInSchema = z.object({
  email,
  password: z.string().check(z.minLength(1, 'validation.passwordRequired')),
})
export type SignInValues = z.infer<typeof signInSchema>

const name = z.string().check(z.trim(), z.maxLength(NAME_MAX, 'validation.nameTooLong'))
export const signUpSchema = z.object({ first_name: name, last_name: name, email, password: newPassword })
export type SignUpValues = z.infer<typeof signUpSchema>

export const forgotPasswordSchema = z.object({ email })
export type ForgotPasswordValues = z.infer<typeof forgotPasswordSchema>

export const resetPasswordSchema = z
  .object({ password: newPassword, confirm: z.string() })
  .check(z.refine((v) => v.password === v.confirm, { path: ['confirm'], message: 'validation.passwordsDiffer' }))
export type ResetPasswordValues = z.infer<typeof resetPasswordSchema>
