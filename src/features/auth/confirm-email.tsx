import { useEffect, useRef, useState, type ReactNode } from 'react'
import { useTranslation } from 'react-i18next'
import { Link, useSearchParams } from 'react-router'
import { withIsolated } from '@/components/isolated'
import { Alert } from '@/components/ui/alert'
import { Spinner } from '@/components/ui/spinner'
import { paths } from '@/config/paths'
import { ApiError } from '@/lib/api-client'
import { errorMessage } from '@/lib/error-message'
import { useSession } from '@/lib/session'
import { useDocumentTitle } from '@/lib/use-document-title'
import { accountKeys } from '@/api/account/keys'
import { confirmEmail } from '@/api/auth/confirm-email'

type State =
  | { kind: 'working' }
  | { kind: 'signup' }
  | { kind: 'email_change'; email: string }
  | { kind: 'already' }
  | { kind: 'invalid' }
  | { kind: 'error'; message: string }

/** The page's heading says what happened (a link that did nothing keeps the page's name). */
const TITLES = {
  working: 'confirm.title',
  signup: 'confirm.titleDone',
  email_change: 'confirm.titleChanged',
  already: 'confirm.titleAlready',
  invalid: 'confirm.titleInvalid',
  error: 'confirm.title',
} as const satisfies Record<State['kind'], string>

/**
 * The page behind the mailed link (`/confirm-email?token=…`): the token leaves the address bar at
 * once (history and screenshots keep no copy), is sent once, and the page, heading and document
 * title too, says what changed. `frame` puts the heading and the outcome in the page's layout.
 */
export function ConfirmEmail({ frame }: { frame: (title: string, outcome: ReactNode) => ReactNode }) {
  const { t } = useTranslation('auth')
  const { signedIn } = useSession()
  const [params, setParams] = useSearchParams()
  const [token] = useState(() => params.get('token'))
  const [state, setState] = useState<State>(token ? { kind: 'working' } : { kind: 'invalid' })
  const sent = useRef(false)
  const title = t(TITLES[state.kind])
  useDocumentTitle(title)

  useEffect(() => {
    if (!token || sent.current) return
    sent.current = true
    setParams({}, { replace: true })
    confirmEmail(token)
      .then(async (res) => {
        setState(res.kind === 'email_change' ? { kind: 'email_change', email: res.email ?? '' } : { kind: 'signup' })
        // the profile (credits, banner, address) is stale in this tab and every other
        const { queryClient } = await import('@/lib/query-client')
        await queryClient.invalidateQueries({ queryKey: accountKeys.profile() })
      })
      .catch((error: unknown) => setState(outcomeOf(error)))
  }, [token, setParams])

  return frame(title, <Outcome state={state} tokenSent={token !== null} signedIn={signedIn} />)
}

function Outcome({ state, tokenSent, signedIn }: { state: State; tokenSent: boolean; signedIn: boolean }) {
  const { t } = useTranslation('auth')
  const next = (
    <p className="mt-6 text-sm">
      <Link to={signedIn ? paths.search : paths.signIn} className="font-medium text-brand-700 underline dark:text-brand-100">
        {signedIn ? t('confirm.continue') : t('signUp.signInLink')}
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
    case 'already':
      return (
        <>
          <Alert tone="success">{t('confirm.already')}</Alert>
          {next}
        </>
      )
    case 'invalid':
      return (
        <>
          <Alert tone="error">{tokenSent ? t('confirm.invalid') : t('confirm.missing')}</Alert>
          {next}
        </>
      )
    case 'error':
      return <Alert tone="error">{state.message}</Alert>
  }
}

/**
 * A link used a second time is "already confirmed" when the service says so (409 `already_confirmed`,
 * the code its resend answer uses); any other 400 means the link cannot be used (invalid, expired,
 * superseded).
 */
function outcomeOf(error: unknown): State {
  if (error instanceof ApiError && error.code === 'already_confirmed') return { kind: 'already' }
  if (error instanceof ApiError && error.status === 400) return { kind: 'invalid' }
  return { kind: 'error', message: errorMessage(error) }
}
