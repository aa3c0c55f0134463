import { useMutation } from '@tanstack/react-query'
import { useTranslation } from 'react-i18next'
import { ThrottleNotice, useThrottle } from '@/components/throttle-notice'
import { withIsolated } from '@/components/isolated'
import { Alert } from '@/components/ui/alert'
import { Button } from '@/components/ui/button'
import { resendConfirmation } from '@/api/auth/resend-confirmation'
import { useProfile } from '@/api/account/profile'
import { errorMessage } from '@/lib/error-message'

/**
 * Until the sign-up address is confirmed (a service extension: `email_confirmed: false` on the
 * profile) every page says so, with a way to get the link again. A service without the extension
 * sends no such field, and nothing shows.
 */
export function ConfirmEmailBanner() {
  const { t } = useTranslation('common')
  const profile = useProfile()
  const throttle = useThrottle()
  const resend = useMutation({ mutationFn: resendConfirmation, onError: (e) => void throttle.take(e) })
  const email = profile.data?.email
  if (!profile.data || profile.data.email_confirmed !== false) return null
  return (
    <div className="mb-6 space-y-2" data-testid="confirm-banner">
      <Alert tone="warning">
        <p>{withIsolated((slot) => t('confirmBanner.text', { email: slot }), email ?? '')}</p>
        {resend.isSuccess ? (
          <p className="mt-2 font-medium">{withIsolated((slot) => t('confirmBanner.sent', { email: slot }), email ?? '')}</p>
        ) : (
          <Button
            variant="secondary"
            className="mt-2"
            loading={resend.isPending}
            disabled={throttle.waiting}
            onClick={() => resend.mutate()}
          >
            {t('confirmBanner.resend')}
          </Button>
        )}
      </Alert>
      <ThrottleNotice remainingMs={throttle.remainingMs} />
      {resend.isError && !throttle.waiting && <Alert tone="error">{errorMessage(resend.error)}</Alert>}
    </div>
  )
}
