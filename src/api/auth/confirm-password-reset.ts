import { api } from '@/lib/api-client'

/** `POST /api/auth/password-reset/confirm/` (decisions.md): the token of the mailed link and the new password. */
export const confirmPasswordReset = (token: string, password: string) =>
  api('/api/auth/password-reset/confirm/', { method: 'POST', body: { token, password }, auth: false, retryThrottled: false })
