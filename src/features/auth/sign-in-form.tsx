import { useState } from 'react'
import { useForm } from 'react-hook-form'
import { useTranslation } from 'react-i18next'
import { Link, useNavigate, useSearchParams } from 'react-router'
import { ThrottleNotice, useThrottle } from '@/components/throttle-notice'
import { Alert } from '@/components/ui/alert'
import { Button } from '@/components/ui/button'
import { TextField } from '@/components/ui/field'
import { paths } from '@/config/paths'
import { ApiError } from '@/lib/api-client'
import { errorMessage } from '@/lib/error-message'
import { changeLanguage } from '@/lib/i18n'
import { signIn } from '@/lib/session'
import type { SignInValues } from './schemas'
import { lazyResolver } from './lazy-resolver'
import { safeNext } from './safe-next'
import { useFieldError } from './use-field-error'

const resolver = lazyResolver<SignInValues>(() => import('./resolvers').then((m) => m.signInResolver))

export function SignInForm() {
  const { t } = useTranslation('auth')
  const fieldError = useFieldError()
  const [params] = useSearchParams()
  const navigate = useNavigate()
  const [formError, setFormError] = useState<string | null>(null)
  const throttle = useThrottle()
  const reason = params.get('reason')
  const {
    register,
    handleSubmit,
    formState: { errors, isSubmitting },
  } = useForm<SignInValues>({ resolver, defaultValues: { email: params.get('email') ?? '', password: '' } })

  const onSubmit = handleSubmit(async ({ email, password }) => {
    setFormError(null)
    try {
      await signIn(email, password)
    } catch (error) {
      if (throttle.take(error)) return
      setFormError(error instanceof ApiError && (error.status === 401 || error.status === 400) ? t('signIn.invalid') : errorMessage(error))
      return
    }
    try {
      // the dashboard speaks the language saved in the profile from the first signed-in page on
      const [{ profileOptions }, { queryClient }] = await Promise.all([import('@/api/account/profile'), import('@/lib/query-client')])
      const profile = await queryClient.fetchQuery(profileOptions())
      await changeLanguage(profile.preferred_language)
    } catch {
      /* the shell loads the profile again and shows what is wrong */
    }
    await navigate(safeNext(params.get('next')), { replace: true })
  })

  const notice =
    reason === 'expired'
      ? t('signIn.expired')
      : reason === 'signed-out'
        ? t('signIn.signedOut')
        : reason === 'password-changed'
          ? t('signIn.passwordChanged')
          : null

  return (
    <>
      {notice && (
        <Alert tone={reason === 'password-changed' ? 'success' : 'info'} className="mb-4">
          {notice}
        </Alert>
      )}
      {/* the checks' code loads once the person starts on the form (focus or a tap), not with the page */}
      <form onSubmit={onSubmit} noValidate className="space-y-4" onFocus={resolver.preload} onPointerDown={resolver.preload}>
        {formError && <Alert tone="error">{formError}</Alert>}
        <ThrottleNotice remainingMs={throttle.remainingMs} />
        <TextField
          label={t('fields.email')}
          type="email"
          autoComplete="username"
          inputMode="email"
          required
          error={fieldError(errors.email?.message)}
          {...register('email')}
        />
        <TextField
          label={t('fields.password')}
          type="password"
          autoComplete="current-password"
          required
          error={fieldError(errors.password?.message)}
          {...register('password')}
        />
        <div className="text-sm">
          <Link to={paths.forgotPassword} className="font-medium text-brand-700 underline dark:text-brand-100">
            {t('signIn.forgot')}
          </Link>
        </div>
        <Button type="submit" loading={isSubmitting} disabled={throttle.waiting} className="w-full">
          {isSubmitting ? t('signIn.submitting') : t('signIn.submit')}
        </Button>
      </form>
      <p className="mt-6 text-sm text-slate-700 dark:text-slate-300">
        {t('signIn.noAccount')}{' '}
        <Link
          to={`${paths.signUp}${params.get('next') ? `?next=${encodeURIComponent(params.get('next') ?? '')}` : ''}`}
          className="font-medium text-brand-700 underline dark:text-brand-100"
        >
          {t('signIn.signUpLink')}
        </Link>
      </p>
    </>
  )
}
