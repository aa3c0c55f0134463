import { z } from 'zod/mini'
import { api } from '@/lib/api-client'
import type { Language } from '@/config/languages'

/** Sign-up (decisions.md): `{email, password, first_name?, last_name?, preferred_language?}` → 201 `{id, email}`. */
export const signUpResponseSchema = z.looseObject({ email: z.optional(z.string()) })

export const signUp = (input: { email: string; password: string; first_name?: string; last_name?: string; preferred_language?: Language }) =>
  api('/api/auth/sign-up', { method: 'POST', body: input, schema: signUpResponseSchema, auth: false })

/** 202 whether or not the account exists (no account enumeration). */
export const requestPasswordReset = (email: string) =>
  api('/api/auth/password-reset', { method: 'POST', body: { email }, auth: false })

export const confirmPasswordReset = (token: string, password: string) =>
  api('/api/auth/password-reset/confirm', { method: 'POST', body: { token, password }, auth: false })
