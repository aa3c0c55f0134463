import { z } from 'zod/mini'
import { api } from '@/lib/api-client'

const confirmedSchema = z.looseObject({ kind: z.optional(z.string()), email: z.optional(z.string()) })

/** Extension (issue 9): confirms a sign-up or a new address with the mailed token. */
export const confirmEmail = (token: string) =>
  api('/api/auth/confirm-email/', { method: 'POST', body: { token }, auth: false, retryThrottled: false, schema: confirmedSchema })
