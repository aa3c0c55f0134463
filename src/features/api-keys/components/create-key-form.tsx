import { zodResolver } from '@hookform/resolvers/zod'
import { lazy, Suspense, useMemo } from 'react'
import { Controller, useForm, useWatch } from 'react-hook-form'
import { useTranslation } from 'react-i18next'
import { Alert } from '@/components/ui/alert'
import { Button } from '@/components/ui/button'
import { TextField } from '@/components/ui/field'
import { ApiError } from '@/lib/api-client'
import { useCapabilityInfo } from '@/lib/api/capabilities'
import { formatNumber } from '@/lib/format'
import { errorMessage } from '@/lib/error-message'
import { createApiKeyFormSchema, MAX_CAP, useCreateApiKey, type CreateApiKeyForm, type CreatedApiKey } from '../api/create-api-key'

// React Aria's date picker (≈ 50 KB gz with its 30 languages' strings) loads beside the page, so the
// key list does not wait for it; its box is held meanwhile so nothing moves when it arrives
const ExpiryDateField = lazy(() => import('./expiry-date-field').then((m) => ({ default: m.ExpiryDateField })))

/** "2026-12-31" from the date field, as that local day; null when empty or not a date. */
const parseLocalDay = (v: string | undefined) => {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(v ?? '')
  if (!m) return null
  const d = new Date(Number(m[1]), Number(m[2]) - 1, Number(m[3]))
  return Number.isNaN(d.getTime()) ? null : d
}

/** `atLimit`: the account holds the most active keys the service allows (the button stays off, the reason shows). */
export function CreateKeyForm({ onCreated, atLimit = false }: { onCreated: (created: CreatedApiKey) => void; atLimit?: boolean }) {
  const { t, i18n } = useTranslation('apikeys')
  const create = useCreateApiKey()
  const schema = useMemo(() => createApiKeyFormSchema(), [])
  // extension scoped_api_keys: read-only or export keys, with an optional monthly credit cap
  const scoped = useCapabilityInfo('scoped_api_keys') !== null
  const {
    handleSubmit,
    setError,
    reset,
    control,
    register,
    formState: { errors },
  } = useForm<CreateApiKeyForm>({
    resolver: zodResolver(schema),
    // least privilege: a key spends credits only when its maker chooses so
    defaultValues: { expiry: '', scope: 'read', cap: '' },
  })

  const onSubmit = (values: CreateApiKeyForm) =>
    create.mutate(
      { form: values, scoped },
      {
        onSuccess: (created) => {
          reset()
          onCreated(created)
        },
        onError: (e) => {
          if (!(e instanceof ApiError)) return
          const fields = [
            ['expiry', 'expiry'],
            ['scope', 'scope'],
            ['monthly_credit_cap', 'cap'],
          ] as const
          for (const [from, to] of fields) {
            const msg = e.fieldErrors[from]?.[0]
            if (msg) setError(to, { type: 'server', message: msg })
          }
        },
      },
    )
  const capText =
    errors.cap?.message === 'capInvalid' ? t('create.capInvalid', { max: formatNumber(i18n.language, MAX_CAP) }) : errors.cap?.message

  const expiryError = errors.expiry?.message
  const expiryText = expiryError === 'past' ? t('create.past') : expiryError === 'invalid' ? t('create.invalid') : expiryError
  // the hint echoes the chosen day with the month in words, so day and month cannot be swapped unnoticed
  const longDate = (d: Date) => new Intl.DateTimeFormat(i18n.language, { dateStyle: 'long' }).format(d)
  const chosen = parseLocalDay(useWatch({ control, name: 'expiry' }))
  const dateHint = chosen
    ? t('create.chosen', { date: longDate(chosen) })
    : t('create.example', {
        date: longDate(new Date(new Date().getFullYear() + 1, 11, 31)),
      })
  const failure = create.error
  const fieldError = failure instanceof ApiError && ['expiry', 'scope', 'monthly_credit_cap'].some((f) => failure.fieldErrors[f])
  const scope = useWatch({ control, name: 'scope' })
  const otherError = create.isError && !fieldError

  return (
    <form onSubmit={handleSubmit(onSubmit)} noValidate className="space-y-4">
      <Controller
        control={control}
        name="expiry"
        render={({ field }) => (
          <Suspense fallback={<div className="h-24 max-w-xs" aria-busy="true" />}>
            <ExpiryDateField
              value={field.value ?? ''}
              onChange={field.onChange}
              onBlur={field.onBlur}
              language={i18n.language}
              label={t('create.expiry')}
              hint={
                <>
                  {t('create.expiryHint')}
                  <span className="mt-0.5 block" data-testid="expiry-format">
                    {dateHint}
                  </span>
                </>
              }
              error={expiryText}
            />
          </Suspense>
        )}
      />
      {scoped && (
        <>
          <fieldset>
            <legend className="text-sm font-medium">{t('create.scope.legend')}</legend>
            <div className="mt-2 space-y-2">
              {(['read', 'export'] as const).map((scope) => (
                <label key={scope} className="flex items-start gap-2 text-sm">
                  <input
                    type="radio"
                    value={scope}
                    {...register('scope')}
                    className="mt-0.5 size-4 accent-brand-600"
                    aria-describedby={`scope-${scope}-hint`}
                  />
                  <span>
                    <span className="font-medium">{t(`create.scope.${scope}`)}</span>
                    <span id={`scope-${scope}-hint`} className="block text-slate-600 dark:text-slate-400">
                      {t(`create.scope.${scope}Hint`)}
                    </span>
                  </span>
                </label>
              ))}
            </div>
          </fieldset>
          {scope === 'export' && (
            <TextField
              label={t('create.cap')}
              hint={t('create.capHint')}
              error={capText}
              inputMode="numeric"
              autoComplete="off"
              className="max-w-xs"
              {...register('cap')}
            />
          )}
        </>
      )}
      {otherError && <Alert tone="error">{t('create.error', { detail: errorMessage(create.error) })}</Alert>}
      <Button type="submit" loading={create.isPending} disabled={atLimit}>
        {create.isPending ? t('create.submitting') : t('create.submit')}
      </Button>
    </form>
  )
}
