import { zodResolver } from '@hookform/resolvers/zod'
import { lazy, Suspense, useCallback, useMemo } from 'react'
import { Controller, useForm, useWatch } from 'react-hook-form'
import { useTranslation } from 'react-i18next'
import { z } from 'zod/mini'
import { Alert } from '@/components/ui/alert'
import { Button } from '@/components/ui/button'
import { TextField } from '@/components/ui/field'
import { ApiError } from '@/lib/api-client'
import { useCapabilityInfo } from '@/api/capabilities/get-capabilities'
import { formatNumber } from '@/lib/format'
import { errorMessage } from '@/lib/error-message'
import { parseWholeNumber, type WholeNumber } from '@/lib/parse-number'
import {
  createApiKeyFormSchema,
  KEY_NAME_MAX_LENGTH,
  MAX_CAP,
  useCreateApiKey,
  type CreateApiKeyForm,
  type CreatedApiKey,
} from '@/api/api-keys/create-api-key'

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
  const lng = i18n.language
  const create = useCreateApiKey()
  // the credit cap is read as the person wrote it, in their language (lib/parse-number.ts: "1.000" is a
  // thousand in German, "2.5" is refused rather than saved as 25), and only for a key that exports
  const readCap = useCallback((text: string) => parseWholeNumber(text, lng, { max: MAX_CAP }), [lng])
  // extension api_key_names: a name for the key, as long as the service allows; like every extension,
  // nothing of it shows or is sent while the capabilities are still being asked (undefined)
  const naming = useCapabilityInfo('api_key_names')
  const named = Boolean(naming)
  const nameMax = typeof naming?.max_length === 'number' ? naming.max_length : KEY_NAME_MAX_LENGTH
  const schema = useMemo(
    () =>
      z.extend(createApiKeyFormSchema(undefined, nameMax), { cap: z.string() }).check(
        z.superRefine((v, ctx) => {
          if (v.scope !== 'export') return
          const cap = readCap(v.cap)
          if (!cap.ok && cap.reason !== 'empty') ctx.addIssue({ code: 'custom', path: ['cap'], message: cap.reason, input: v.cap })
        }),
      ),
    [readCap, nameMax],
  )
  // extension scoped_api_keys: read-only or export keys, with an optional monthly credit cap
  // nothing of it shows or is sent while the capabilities are still being asked (undefined)
  const scoped = Boolean(useCapabilityInfo('scoped_api_keys'))
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
    defaultValues: { name: '', expiry: '', scope: 'read', cap: '' },
  })

  const onSubmit = (values: CreateApiKeyForm) => {
    // sent as the number it was read as (plain digits), and no cap for a read-only key
    const cap = readCap(values.cap)
    const form = { ...values, cap: values.scope === 'export' && cap.ok ? String(cap.value) : '' }
    create.mutate(
      { form, scoped, named },
      {
        onSuccess: (created) => {
          reset()
          onCreated(created)
        },
        onError: (e) => {
          if (!(e instanceof ApiError)) return
          const fields = [
            ['name', 'name'],
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
  }
  const scope = useWatch({ control, name: 'scope' })
  // the cap as it is read while it is typed: the number understood, or why none is
  const capVerdict: WholeNumber = readCap(useWatch({ control, name: 'cap' }) ?? '')
  const capShown = scoped && scope === 'export'
  const capProblem = capShown && !capVerdict.ok && capVerdict.reason !== 'empty' ? capVerdict.reason : null
  const problemText = (problem: string) =>
    problem === 'tooSmall' || problem === 'tooLarge'
      ? t('create.capInvalid', { max: formatNumber(lng, MAX_CAP) })
      : problem === 'decimal'
        ? t('create.capDecimal', { example: formatNumber(lng, 10_000) })
        : problem === 'grouping'
          ? t('create.capGrouping', { example: formatNumber(lng, 10_000) })
          : problem === 'notANumber'
            ? t('create.capNotANumber', { example: formatNumber(lng, 10_000) })
            : problem
  // what is wrong while typing; else what the last check or the service said (a service's words as sent)
  const capError = capProblem ?? errors.cap?.message
  const capText = capError ? problemText(capError) : undefined
  const capHint = (
    <>
      {t('create.capHint')}
      {capVerdict.ok && (
        <span className="mt-0.5 block font-medium" data-testid="cap-understood">
          {t('create.capUnderstood', { count: capVerdict.value, formatted: formatNumber(lng, capVerdict.value) })}
        </span>
      )}
    </>
  )

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
  const fieldError = failure instanceof ApiError && ['name', 'expiry', 'scope', 'monthly_credit_cap'].some((f) => failure.fieldErrors[f])
  const nameError = errors.name?.message
  const nameText = nameError === 'tooLong' ? t('create.nameTooLong', { count: nameMax, max: formatNumber(lng, nameMax) }) : nameError
  const otherError = create.isError && !fieldError

  return (
    <form onSubmit={handleSubmit(onSubmit)} noValidate className="space-y-4">
      {named && (
        <TextField
          label={t('create.name')}
          hint={t('create.nameHint')}
          error={nameText}
          autoComplete="off"
          className="max-w-md"
          {...register('name')}
        />
      )}
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
              hint={capHint}
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
      {/* a cap that cannot be read keeps the key from being made: its reason shows on the field above */}
      <Button type="submit" loading={create.isPending} disabled={atLimit || capProblem !== null}>
        {create.isPending ? t('create.submitting') : t('create.submit')}
      </Button>
    </form>
  )
}
