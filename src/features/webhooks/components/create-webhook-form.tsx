import { zodResolver } from '@hookform/resolvers/zod'
import { useId, useMemo } from 'react'
import { Controller, useForm } from 'react-hook-form'
import { useTranslation } from 'react-i18next'
import { Alert } from '@/components/ui/alert'
import { Button } from '@/components/ui/button'
import { TextField } from '@/components/ui/field'
import { errorMessage } from '@/lib/error-message'
import { applyFieldErrors } from '@/lib/form-errors'
import { formatNumber } from '@/lib/format'
import type { WebhooksCapability } from '../capability'
import {
  createWebhookFormSchema,
  MAX_URL_LENGTH,
  useCreateWebhook,
  type CreateWebhookForm,
  type WebhookWithSecret,
} from '@/api/webhooks/create-webhook'
import { EventName } from './event-name'

/** The form's own messages (from the schema); anything else is the service's sentence, shown as sent. */
const OWN_MESSAGES = ['required', 'invalid', 'https', 'httpsOrLoopback', 'credentials', 'tooLong', 'eventsRequired'] as const
type OwnMessage = (typeof OWN_MESSAGES)[number]
const isOwn = (m: string | undefined): m is OwnMessage => (OWN_MESSAGES as readonly string[]).includes(m ?? '')

/** URL and events, checked before sending; the service's field errors land on the same fields. */
export function CreateWebhookForm({
  capability,
  atLimit,
  onCreated,
}: {
  capability: WebhooksCapability
  atLimit: boolean
  onCreated: (created: WebhookWithSecret) => void
}) {
  const { t, i18n } = useTranslation('webhooks')
  const create = useCreateWebhook()
  const schema = useMemo(
    () => createWebhookFormSchema({ allowHttpLoopback: capability.allow_http_loopback }),
    [capability.allow_http_loopback],
  )
  const eventsErrorId = useId()
  const {
    register,
    control,
    handleSubmit,
    setError,
    reset,
    formState: { errors },
  } = useForm<CreateWebhookForm>({
    resolver: zodResolver(schema),
    defaultValues: { url: '', events: [...capability.events] },
  })

  const onSubmit = (values: CreateWebhookForm) =>
    create.mutate(values, {
      onSuccess: (created) => {
        reset()
        onCreated(created)
      },
      onError: (e) => {
        if (!applyFieldErrors(e, setError, ['url', 'events'])) setError('root', { type: 'server', message: errorMessage(e) })
      },
    })

  const message = (m: string | undefined) => (isOwn(m) ? t(`create.${m}`, { max: formatNumber(i18n.language, MAX_URL_LENGTH) }) : m)
  const eventsError = message(errors.events?.message ?? errors.events?.root?.message)

  return (
    <form onSubmit={handleSubmit(onSubmit)} noValidate className="space-y-4">
      <TextField
        label={t('create.url')}
        hint={
          <>
            {t('create.urlHint')}
            {capability.allow_http_loopback && <span className="mt-0.5 block">{t('create.loopbackHint')}</span>}
          </>
        }
        error={message(errors.url?.message)}
        type="url"
        inputMode="url"
        dir="ltr"
        autoComplete="off"
        spellCheck={false}
        placeholder="https://example.com/webhooks"
        className="max-w-2xl"
        {...register('url')}
      />
      <fieldset aria-describedby={eventsError ? eventsErrorId : undefined}>
        <legend className="text-sm font-medium">{t('create.events')}</legend>
        <div className="mt-2 space-y-2">
          <Controller
            control={control}
            name="events"
            render={({ field }) => (
              <>
                {capability.events.map((event, i) => (
                  <label key={event} className="flex items-start gap-2 text-sm">
                    <input
                      ref={i === 0 ? field.ref : undefined}
                      type="checkbox"
                      name={field.name}
                      value={event}
                      checked={field.value.includes(event)}
                      onChange={(e) =>
                        field.onChange(
                          e.currentTarget.checked
                            ? capability.events.filter((x) => x === event || field.value.includes(x))
                            : field.value.filter((x) => x !== event),
                        )
                      }
                      onBlur={field.onBlur}
                      aria-invalid={eventsError ? true : undefined}
                      className="mt-0.5 size-4 shrink-0 accent-brand-600"
                    />
                    <EventName type={event} withHint />
                  </label>
                ))}
              </>
            )}
          />
        </div>
        {eventsError && (
          <p id={eventsErrorId} className="mt-1 text-sm text-red-700 dark:text-red-400">
            {eventsError}
          </p>
        )}
      </fieldset>
      {errors.root?.message && <Alert tone="error">{t('create.error', { detail: errors.root.message })}</Alert>}
      <Button type="submit" loading={create.isPending} disabled={atLimit}>
        {create.isPending ? t('create.submitting') : t('create.submit')}
      </Button>
    </form>
  )
}
