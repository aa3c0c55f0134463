import { useEffect, useRef, useState } from 'react'
import { useTranslation } from 'react-i18next'
import { Link, useSearchParams } from 'react-router'
import { withIsolated } from '@/components/isolated'
import { Alert } from '@/components/ui/alert'
import { Spinner } from '@/components/ui/spinner'
import { paths } from '@/config/paths'
import { ApiError } from '@/lib/api-client'
import { errorMessage } from '@/lib/error-message'
import { useSession } from '@/lib/session'
import { confirmEmail } from './auth-api'

type State =
  | { kind: 'working' }
  | { kind: 'signup' }
  | { kind: 'email_change'; email: string }
  | { kind: 'invalid' }
  | { kind: 'error'; message: string }

/**
 * The page behind the mailed link (`/confirm-email?token=…`): the token leaves the address bar at
 * once (history and screenshots keep no copy), is sent once, and the page says what changed.
 */
export function ConfirmEmail() {
  const { t } = useTranslation('auth')
  const { signedIn } = useSession()
  const [params, setParams] = useSearchParams()
  const [token] = useState(() => params.get('token'))
  const [state, setState] = useState<State>(token ? { kind: 'working' } : { kind: 'invalid' })
  const sent = useRef(false)

  useEffect(() => {
    if (!token || sent.current) return
    sent.current = true
    setParams({}, { replace: true })
    confirmEmail(token)
      .then(async (res) => {
        setState(res.kind === 'email_change' ? { kind: 'email_change', email: res.email ?? '' } : { kind: 'signup' })
        // the profile (credits, banner, address) is stale in this tab and every other
        const { queryClient } = await import('@/lib/query-client')
        await queryClient.invalidateQueries({ queryKey: ['profile'] })
      })
      .catch((error: unknown) =>
        setState(error instanceof ApiError && error.status === 400 ? { kind: 'invalid' } : { kind: 'error', message: errorMessage(error) }),
      )
  }, [token, setParams])

  const next = (
    <p className="mt-6 text-sm">
      <Link to={signedIn ? paths.search : paths.signIn} className="font-medium text-brand-700 underline dark:text-brand-100">
        {t('confirm.continue')}
      </Link>
    </p>
  )
  switch (state.kind) {
    case 'working':
      return (
        <p role="status" className="flex items-center gap-2 text-sm">
          <Spinner className="size-4" />
          {t('confirm.working')}
        </p>
      )
    case 'signup':
      return (
        <>
          <Alert tone="success">{t('confirm.signupDone')}</Alert>
          {next}
        </>
      )
    case 'email_change':
      return (
        <>
          <Alert tone="success">{withIsolated((email) => t('confirm.changeDone', { email }), state.email)}</Alert>
          {next}
        </>
      )
    case 'invalid':
      return (
        <>
          <Alert tone="error">{token ? t('confirm.invalid') : t('confirm.missing')}</Alert>
          {next}
        </>
      )
    case 'error':
      return <Alert tone="error">{state.message}</Alert>
  }
}
