import { api } from '@/lib/api-client'

/** `POST /api/auth/password-reset/` (decisions.md): 202 whether or not the account exists (no account enumeration). */
export const requestPasswordReset = (email: string) =>
  api('/api/auth/password-reset/', { method: 'POST', body: { email }, auth: false, retryThrottled: false })
