import { useState } from 'react'
import { useForm, useWatch } from 'react-hook-form'
import { useTranslation } from 'react-i18next'
import { Link, useNavigate, useSearchParams } from 'react-router'
import { ThrottleNotice, useThrottle } from '@/components/throttle-notice'
import { Alert } from '@/components/ui/alert'
import { Button } from '@/components/ui/button'
import { TextField } from '@/components/ui/field'
import { isLanguage } from '@/config/languages'
import { paths } from '@/config/paths'
import { errorMessage } from '@/lib/error-message'
import { formatNumber } from '@/lib/format'
import { applyFieldErrors } from '@/lib/form-errors'
import { i18n } from '@/lib/i18n'
import { signIn } from '@/lib/session'
import { signUp } from '@/api/auth/sign-up'
import { EMAIL_MAX, NAME_MAX, type SignUpValues } from './schemas'
import { signUpResolver } from './resolvers'
import { safeNext } from './safe-next'
import { useFieldError } from './use-field-error'

export function SignUpForm() {
  const { t } = useTranslation('auth')
  const { t: tc } = useTranslation('common')
  const fieldError = useFieldError()
  const [params] = useSearchParams()
  const navigate = useNavigate()
  const [formError, setFormError] = useState<string | null>(null)
  const throttle = useThrottle()
  const {
    register,
    handleSubmit,
    setError,
    control,
    formState: { errors, isSubmitting },
  } = useForm<SignUpValues>({
    resolver: signUpResolver,
    defaultValues: { first_name: '', last_name: '', email: '', password: '' },
  })
  // the interface's limits (part 8): the input stops at them, and the count shows as a value nears one
  const [firstName, lastName, emailValue] = useWatch({ control, name: ['first_name', 'last_name', 'email'] })
  const lengthHint = (value: string | undefined, max: number) => {
    const used = value?.length ?? 0
    if (used < max * 0.8) return undefined
    const n = (v: number) => formatNumber(i18n.language, v)
    return tc('field.length', { used: n(used), max: n(max) })
  }

  const onSubmit = handleSubmit(async (values) => {
    setFormError(null)
    const language = i18n.resolvedLanguage
    try {
      await signUp({ ...values, ...(isLanguage(language) ? { preferred_language: language } : {}) })
    } catch (error) {
      if (throttle.take(error)) return
      if (!applyFieldErrors(error, setError, ['email', 'password', 'first_name', 'last_name'])) setFormError(errorMessage(error))
      return
    }
    try {
      await signIn(values.email, values.password)
      await navigate(safeNext(params.get('next')), { replace: true })
    } catch {
      await navigate(`${paths.signIn}?email=${encodeURIComponent(values.email)}`)
    }
  })

  return (
    <>
      <form onSubmit={onSubmit} noValidate className="space-y-4">
        {formError && <Alert tone="error">{formError}</Alert>}
        <ThrottleNotice remainingMs={throttle.remainingMs} />
        <div className="grid gap-4 sm:grid-cols-2">
          <TextField
            label={t('fields.firstName')}
            autoComplete="given-name"
            maxLength={NAME_MAX}
            hint={lengthHint(firstName, NAME_MAX)}
            error={fieldError(errors.first_name?.message)}
            {...register('first_name')}
          />
          <TextField
            label={t('fields.lastName')}
            autoComplete="family-name"
            maxLength={NAME_MAX}
            hint={lengthHint(lastName, NAME_MAX)}
            error={fieldError(errors.last_name?.message)}
            {...register('last_name')}
          />
        </div>
        <TextField
          label={t('fields.email')}
          type="email"
          autoComplete="email"
          inputMode="email"
          required
          maxLength={EMAIL_MAX}
          hint={lengthHint(emailValue, EMAIL_MAX)}
          error={fieldError(errors.email?.message)}
          {...register('email')}
        />
        <TextField
          label={t('fields.password')}
          type="password"
          autoComplete="new-password"
          required
          hint={t('fields.passwordHint')}
          error={fieldError(errors.password?.message)}
          {...register('password')}
        />
        <Button type="submit" loading={isSubmitting} disabled={throttle.waiting} className="w-full">
          {isSubmitting ? t('signUp.submitting') : t('signUp.submit')}
        </Button>
      </form>
      <p className="mt-6 text-sm text-slate-700 dark:text-slate-300">
        {t('signUp.haveAccount')}{' '}
        <Link to={paths.signIn} className="font-medium text-brand-700 underline dark:text-brand-100">
          {t('signUp.signInLink')}
        </Link>
      </p>
    </>
  )
}
