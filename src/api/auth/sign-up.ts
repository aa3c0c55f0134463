import { z } from 'zod/mini'
import { api } from '@/lib/api-client'
import type { Language } from '@/config/languages'

export interface SignUpInput {
  email: string
  password: string
  first_name?: string
  last_name?: string
  preferred_language?: Language
}

/**
 * `POST /api/auth/sign-up/`: the interface shows neither body nor answer (4.1); the reference takes
 * `{email, password, first_name?, last_name?, preferred_language?}` and answers 201 `{id, email}`
 * (decisions.md). Any 2xx means registered: nothing of the answer is needed, so nothing in it can fail.
 */
const signedUpSchema = z.catch(z.looseObject({ email: z.optional(z.string()) }), {})

export const signUp = (input: SignUpInput) =>
  api('/api/auth/sign-up/', { method: 'POST', body: input, schema: signedUpSchema, auth: false, retryThrottled: false })
