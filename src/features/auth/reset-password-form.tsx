import { useState } from 'react'
import { useForm } from 'react-hook-form'
import { useTranslation } from 'react-i18next'
import { Link, useNavigate, useSearchParams } from 'react-router'
import { Alert } from '@/components/ui/alert'
import { Button } from '@/components/ui/button'
import { TextField } from '@/components/ui/field'
import { paths } from '@/config/paths'
import { ApiError } from '@/lib/api-client'
import { errorMessage } from '@/lib/error-message'
import { confirmPasswordReset } from '@/api/auth/confirm-password-reset'
import type { ResetPasswordValues } from './schemas'
import { resetPasswordResolver } from './resolvers'
import { useFieldError } from './use-field-error'

export function ResetPasswordForm() {
  const { t } = useTranslation('auth')
  const fieldError = useFieldError()
  const [params] = useSearchParams()
  const navigate = useNavigate()
  const token = params.get('token')
  const [formError, setFormError] = useState<string | null>(null)
  const [tokenInvalid, setTokenInvalid] = useState(false)
  const {
    register,
    handleSubmit,
    setError,
    formState: { errors, isSubmitting },
  } = useForm<ResetPasswordValues>({ resolver: resetPasswordResolver, defaultValues: { password: '', confirm: '' } })

  const onSubmit = handleSubmit(async ({ password }) => {
    if (!token) return
    setFormError(null)
    try {
      await confirmPasswordReset(token, password)
      await navigate(`${paths.signIn}?reason=password-changed`, { replace: true })
    } catch (error) {
      if (error instanceof ApiError && error.fieldErrors.password?.[0]) {
        setError('password', { type: 'server', message: error.fieldErrors.password.join(' ') }, { shouldFocus: true })
      } else if (error instanceof ApiError && (error.status === 400 || error.status === 404 || error.status === 410)) {
        setTokenInvalid(true)
      } else {
        setFormError(errorMessage(error))
      }
    }
  })

  if (!token || tokenInvalid) {
    return (
      <>
        <Alert tone="error">{token ? t('reset.invalidToken') : t('reset.missingToken')}</Alert>
        <p className="mt-6 text-sm">
          <Link to={paths.forgotPassword} className="font-medium text-brand-700 underline dark:text-brand-100">
            {t('reset.requestNew')}
          </Link>
        </p>
      </>
    )
  }

  return (
    <form onSubmit={onSubmit} noValidate className="space-y-4">
      {formError && <Alert tone="error">{formError}</Alert>}
      <TextField
        label={t('fields.newPassword')}
        type="password"
        autoComplete="new-password"
        required
        hint={t('fields.passwordHint')}
        error={fieldError(errors.password?.message)}
        {...register('password')}
      />
      <TextField
        label={t('fields.confirmPassword')}
        type="password"
        autoComplete="new-password"
        required
        error={fieldError(errors.confirm?.message)}
        {...register('confirm')}
      />
      <Button type="submit" loading={isSubmitting} className="w-full">
        {t('reset.submit')}
      </Button>
    </form>
  )
}
