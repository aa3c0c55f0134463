import { z } from 'zod/mini'
import { api } from '@/lib/api-client'
import type { Language } from '@/config/languages'

/** Sign-up (decisions.md): `{email, password, first_name?, last_name?, preferred_language?}` → 201 `{id, email}`. */
export const signUpResponseSchema = z.looseObject({ email: z.optional(z.string()) })

export const signUp = (input: {
  email: string
  password: string
  first_name?: string
  last_name?: string
  preferred_language?: Language
}) => api('/api/auth/sign-up/', { method: 'POST', body: input, schema: signUpResponseSchema, auth: false, retryThrottled: false })

/** 202 whether or not the account exists (no account enumeration). */
export const requestPasswordReset = (email: string) =>
  api('/api/auth/password-reset/', { method: 'POST', body: { email }, auth: false, retryThrottled: false })

export const confirmPasswordReset = (token: string, password: string) =>
  api('/api/auth/password-reset/confirm/', { method: 'POST', body: { token, password }, auth: false, retryThrottled: false })

/** Extension (issue 9): confirms a sign-up or a new address with the mailed token. */
export const confirmEmail = (token: string) =>
  api('/api/auth/confirm-email/', {
    method: 'POST',
    body: { token },
    auth: false,
    retryThrottled: false,
    schema: z.looseObject({ kind: z.optional(z.string()), email: z.optional(z.string()) }),
  })

/** Extension (issue 9): mails the sign-up confirmation link again (signed in). */
export const resendConfirmation = () => api('/api/auth/confirm-email/resend/', { method: 'POST', retryThrottled: false })
