import { api } from '@/lib/api-client'

/** Extension (issue 9): mails the sign-up confirmation link again (signed in). */
export const resendConfirmation = () => api('/api/auth/confirm-email/resend/', { method: 'POST', retryThrottled: false })
