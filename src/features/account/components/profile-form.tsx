import { zodResolver } from '@hookform/resolvers/zod'
import { useState } from 'react'
import { useForm } from 'react-hook-form'
import { useTranslation } from 'react-i18next'
import { Alert } from '@/components/ui/alert'
import { Button } from '@/components/ui/button'
import { SelectField, TextField } from '@/components/ui/field'
import { LANGUAGES } from '@/config/languages'
import { useUpdateProfile, type Profile, type ProfileUpdate } from '@/lib/api/profile'
import { ApiError } from '@/lib/api-client'
import { ownLanguageName } from '@/lib/format'
import { changeLanguage } from '@/lib/i18n'
import { isProfileErrorKey, profileFormSchema, type ProfileForm as ProfileFormValues } from '../profile-form-schema'

const FIELDS = ['first_name', 'last_name', 'email', 'preferred_language'] as const

/** Languages by their own names ("Deutsch", "עברית"), so each person finds theirs. */
const languageOptions = LANGUAGES.map((code) => ({ code, name: ownLanguageName(code) })).sort((a, b) =>
  a.name.localeCompare(b.name, 'en'),
)

/** Rendered once the profile is loaded; takes it as the form's default values. */
export function ProfileForm({ profile }: { profile: Profile }) {
  const { t } = useTranslation('account')
  const update = useUpdateProfile()
  const [status, setStatus] = useState<'idle' | 'saved' | 'unchanged'>('idle')
  const {
    register,
    handleSubmit,
    setError,
    reset,
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

  const message = (field: (typeof FIELDS)[number]) => {
    const m = errors[field]?.message
    if (!m) return undefined
    return isProfileErrorKey(m) ? t(`profile.errors.${m}`) : m
  }

  const onSubmit = (values: ProfileFormValues) => {
    const changes: ProfileUpdate = {}
    for (const f of FIELDS) if (dirtyFields[f]) Object.assign(changes, { [f]: values[f] })
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
        })
        setStatus('saved')
        if (changes.preferred_language) await changeLanguage(saved.preferred_language)
      },
      onError: (e) => {
        if (!(e instanceof ApiError)) return
        for (const f of FIELDS) {
          const msg = e.fieldErrors[f]?.[0]
          if (msg) setError(f, { type: 'server', message: msg }, { shouldFocus: true })
        }
      },
    })
  }

  const serverFieldErrors = update.error instanceof ApiError && FIELDS.some((f) => update.error instanceof ApiError && update.error.fieldErrors[f])

  return (
    <form onSubmit={handleSubmit(onSubmit)} noValidate className="space-y-4">
      <div className="grid gap-4 sm:grid-cols-2">
        <TextField label={t('profile.firstName')} dir="auto" autoComplete="given-name" error={message('first_name')} {...register('first_name')} />
        <TextField label={t('profile.lastName')} dir="auto" autoComplete="family-name" error={message('last_name')} {...register('last_name')} />
      </div>
      <TextField label={t('profile.email')} type="email" dir="ltr" autoComplete="email" error={message('email')} {...register('email')} />
      <SelectField
        label={t('profile.language')}
        hint={t('profile.languageHint')}
        error={message('preferred_language')}
        {...register('preferred_language')}
      >
        {languageOptions.map((l) => (
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
