import { zodResolver } from '@hookform/resolvers/zod'
import { useState } from 'react'
import { useForm, useWatch } from 'react-hook-form'
import { useTranslation } from 'react-i18next'
import { withIsolated } from '@/components/isolated'
import { Alert } from '@/components/ui/alert'
import { Button } from '@/components/ui/button'
import { SelectField, TextField } from '@/components/ui/field'
import { type Profile, type ProfileUpdate } from '@/api/account/profile'
import { useUpdateProfile } from '@/api/account/update-profile'
import { ApiError } from '@/lib/api-client'
import { formatNumber, languagesByOwnName } from '@/lib/format'
import { changeLanguage } from '@/lib/i18n'
import { EMAIL_MAX, isProfileErrorKey, NAME_MAX, profileFormSchema, type ProfileForm as ProfileFormValues } from '../profile-form-schema'

const FIELDS = ['first_name', 'last_name', 'email', 'preferred_language'] as const
/** Fields the service may name in a 400: the form's own plus the password an email change needs. */
const ERROR_FIELDS = [...FIELDS, 'current_password'] as const

/** Languages by their own names ("Deutsch", "עברית"), so each person finds theirs. */

/** Rendered once the profile is loaded; takes it as the form's default values. */
export function ProfileForm({ profile }: { profile: Profile }) {
  const { t, i18n } = useTranslation('account')
  const { t: tc } = useTranslation('common')
  const update = useUpdateProfile()
  const [status, setStatus] = useState<'idle' | 'saved' | 'unchanged'>('idle')
  const {
    register,
    handleSubmit,
    setError,
    reset,
    control,
    formState: { errors, dirtyFields },
  } = useForm<ProfileFormValues>({
    resolver: zodResolver(profileFormSchema),
    defaultValues: {
      first_name: profile.first_name,
      last_name: profile.last_name,
      email: profile.email,
      preferred_language: profile.preferred_language,
    },
  })

  const [firstName, lastName, email] = useWatch({ control, name: ['first_name', 'last_name', 'email'] })
  // a new sign-in address needs the current password (a service extension; harmless without it)
  const emailChanging = (email ?? '').trim().toLowerCase() !== profile.email.toLowerCase()
  // the interface's limits (part 8): the input stops at them, and the count shows as a value nears one
  const lengthHint = (value: string | undefined, max: number) => {
    const used = value?.length ?? 0
    if (used < max * 0.8) return undefined
    const n = (v: number) => formatNumber(i18n.language, v)
    return tc('field.length', { used: n(used), max: n(max) })
  }

  const message = (field: (typeof ERROR_FIELDS)[number]) => {
    const m = errors[field]?.message
    if (!m) return undefined
    return isProfileErrorKey(m) ? t(`profile.errors.${m}`) : m
  }

  const onSubmit = (values: ProfileFormValues) => {
    const changes: ProfileUpdate = {}
    for (const f of FIELDS) if (dirtyFields[f]) Object.assign(changes, { [f]: values[f] })
    if (changes.email !== undefined && changes.email.toLowerCase() === profile.email.toLowerCase()) delete changes.email
    if (changes.email !== undefined) {
      if (!values.current_password) {
        setError('current_password', { type: 'required', message: 'currentPasswordRequired' }, { shouldFocus: true })
        return
      }
      changes.current_password = values.current_password
    }
    if (Object.keys(changes).length === 0) {
      setStatus('unchanged')
      return
    }
    setStatus('idle')
    update.mutate(changes, {
      onSuccess: async (saved) => {
        reset({
          first_name: saved.first_name,
          last_name: saved.last_name,
          email: saved.email,
          preferred_language: saved.preferred_language,
          current_password: '',
        })
        setStatus('saved')
        if (changes.preferred_language) await changeLanguage(saved.preferred_language)
      },
      onError: (e) => {
        if (!(e instanceof ApiError)) return
        for (const f of ERROR_FIELDS) {
          const msg = e.fieldErrors[f]?.[0]
          if (msg) setError(f, { type: 'server', message: msg }, { shouldFocus: true })
        }
      },
    })
  }

  const serverFieldErrors =
    update.error instanceof ApiError && ERROR_FIELDS.some((f) => update.error instanceof ApiError && update.error.fieldErrors[f])

  return (
    <form onSubmit={handleSubmit(onSubmit)} noValidate className="space-y-4">
      <div className="grid gap-4 sm:grid-cols-2">
        <TextField
          label={t('profile.firstName')}
          dir="auto"
          autoComplete="given-name"
          maxLength={NAME_MAX}
          hint={lengthHint(firstName, NAME_MAX)}
          error={message('first_name')}
          {...register('first_name')}
        />
        <TextField
          label={t('profile.lastName')}
          dir="auto"
          autoComplete="family-name"
          maxLength={NAME_MAX}
          hint={lengthHint(lastName, NAME_MAX)}
          error={message('last_name')}
          {...register('last_name')}
        />
      </div>
      <TextField
        label={t('profile.email')}
        type="email"
        dir="ltr"
        autoComplete="email"
        maxLength={EMAIL_MAX}
        hint={lengthHint(email, EMAIL_MAX)}
        error={message('email')}
        {...register('email')}
      />
      {profile.pending_email && !emailChanging && (
        <Alert tone="info">{withIsolated((email) => t('profile.pending', { email }), profile.pending_email)}</Alert>
      )}
      {emailChanging && (
        <TextField
          label={t('profile.currentPassword')}
          type="password"
          autoComplete="current-password"
          hint={t('profile.currentPasswordHint')}
          error={message('current_password')}
          {...register('current_password')}
        />
      )}
      <SelectField
        label={t('profile.language')}
        hint={t('profile.languageHint')}
        error={message('preferred_language')}
        {...register('preferred_language')}
      >
        {languagesByOwnName().map((l) => (
          <option key={l.code} value={l.code} lang={l.code}>
            {l.name}
          </option>
        ))}
      </SelectField>
      {update.isError && !serverFieldErrors && (
        <Alert tone="error">
          {t('profile.error', { detail: update.error instanceof ApiError ? update.error.detail : String(update.error) })}
        </Alert>
      )}
      {status === 'saved' && <Alert tone="success">{t('profile.saved')}</Alert>}
      {status === 'unchanged' && <Alert tone="info">{t('profile.noChanges')}</Alert>}
      <Button type="submit" loading={update.isPending}>
        {update.isPending ? t('profile.saving') : t('profile.save')}
      </Button>
    </form>
  )
}
