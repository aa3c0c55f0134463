import { useState } from 'react'
import { useForm } from 'react-hook-form'
import { useTranslation } from 'react-i18next'
import { Link } from 'react-router'
import { ThrottleNotice, useThrottle } from '@/components/throttle-notice'
import { Alert } from '@/components/ui/alert'
import { Button } from '@/components/ui/button'
import { TextField } from '@/components/ui/field'
import { paths } from '@/config/paths'
import { errorMessage } from '@/lib/error-message'
import { applyFieldErrors } from '@/lib/form-errors'
import { requestPasswordReset } from '@/api/auth/request-password-reset'
import type { ForgotPasswordValues } from './schemas'
import { forgotPasswordResolver } from './resolvers'
import { useFieldError } from './use-field-error'

export function ForgotPasswordForm() {
  const { t } = useTranslation('auth')
  const fieldError = useFieldError()
  const [sentTo, setSentTo] = useState<string | null>(null)
  const [formError, setFormError] = useState<string | null>(null)
  const throttle = useThrottle()
  const {
    register,
    handleSubmit,
    setError,
    formState: { errors, isSubmitting },
  } = useForm<ForgotPasswordValues>({ resolver: forgotPasswordResolver, defaultValues: { email: '' } })

  const onSubmit = handleSubmit(async ({ email }) => {
    setFormError(null)
    try {
      await requestPasswordReset(email)
      setSentTo(email)
    } catch (error) {
      if (throttle.take(error)) return
      if (!applyFieldErrors(error, setError, ['email'])) setFormError(errorMessage(error))
    }
  })

  return (
    <>
      {sentTo ? (
        <Alert tone="success">{t('forgot.sent', { email: sentTo })}</Alert>
      ) : (
        <form onSubmit={onSubmit} noValidate className="space-y-4">
          {formError && <Alert tone="error">{formError}</Alert>}
          <ThrottleNotice remainingMs={throttle.remainingMs} />
          <TextField
            label={t('fields.email')}
            type="email"
            autoComplete="email"
            inputMode="email"
            required
            error={fieldError(errors.email?.message)}
            {...register('email')}
          />
          <Button type="submit" loading={isSubmitting} disabled={throttle.waiting} className="w-full">
            {t('forgot.submit')}
          </Button>
        </form>
      )}
      <p className="mt-6 text-sm">
        <Link to={paths.signIn} className="font-medium text-brand-700 underline dark:text-brand-100">
          {t('forgot.backToSignIn')}
        </Link>
      </p>
    </>
  )
}
