import { useQuery } from '@tanstack/react-query'
import { useId, useState, type MouseEvent } from 'react'
import { useTranslation } from 'react-i18next'
import { ThrottleNotice, useThrottle } from '@/components/throttle-notice'
import { Alert } from '@/components/ui/alert'
import { Button } from '@/components/ui/button'
import { ApiError } from '@/lib/api-client'
import { errorMessage } from '@/lib/error-message'
import { formatDateTime } from '@/lib/format'
import { deliveriesOptions, type Delivery } from '@/api/webhooks/get-deliveries'
import type { Webhook } from '@/api/webhooks/get-webhooks'
import { useResumeWebhook } from '@/api/webhooks/resume-webhook'
import { useSendTestEvent } from '@/api/webhooks/send-test-event'
import { DeliveriesList } from './deliveries-list'
import { EventName } from './event-name'

/**
 * One endpoint: where it points, what it receives, its secret's hint, its actions, and its latest
 * deliveries. The deliveries are polled only while one is under way or waiting for a retry, and for a
 * few seconds after a test was sent (get-deliveries.ts: nextPollMs), never past the poll window.
 */
export function EndpointCard({
  webhook,
  onRotate,
  onRemove,
}: {
  webhook: Webhook
  onRotate: (w: Webhook, opener: HTMLButtonElement) => void
  onRemove: (w: Webhook, opener: HTMLButtonElement) => void
}) {
  const { t, i18n } = useTranslation('webhooks')
  const lng = i18n.language
  const headingId = useId()
  const [poll, setPoll] = useState<{ armedAt: number; testSentAt: number | null }>(() => ({ armedAt: Date.now(), testSentAt: null }))
  const deliveries = useQuery(deliveriesOptions(webhook.id, poll))
  const test = useSendTestEvent()
  const throttle = useThrottle()
  // the test event sent last (its delivery id): the line under the buttons follows how it went
  const [sentId, setSentId] = useState<number | null>(null)
  const sent = sentId === null ? undefined : deliveries.data?.find((d) => d.id === sentId)

  // the buttons stay enabled while busy (a disabled button would drop the keyboard focus): a click
  // during a request or a throttle wait does nothing
  const throttled = test.error !== null && throttle.waiting
  const sendTest = () => {
    if (test.isPending || throttled) return
    setSentId(null)
    test.mutate(webhook.id, {
      onSuccess: (queued) => {
        const now = Date.now()
        setPoll({ armedAt: now, testSentAt: now })
        setSentId(queued.delivery_id)
      },
      onError: (e) => {
        throttle.take(e)
      },
    })
  }
  const refresh = () => {
    setPoll({ armedAt: Date.now(), testSentAt: null })
    void deliveries.refetch()
  }

  return (
    <article
      aria-labelledby={headingId}
      className="rounded-lg border border-slate-200 bg-white p-4 shadow-xs sm:p-6 dark:border-slate-800 dark:bg-slate-900"
    >
      <h3 id={headingId} className="font-mono text-sm font-semibold">
        <bdi dir="ltr" className="break-all">
          {webhook.url}
        </bdi>
      </h3>
      <dl className="mt-3 grid gap-x-6 gap-y-2 text-sm sm:grid-cols-[max-content_1fr]">
        <dt className="text-slate-600 dark:text-slate-400">{t('list.events')}</dt>
        <dd>
          <ul className="flex flex-wrap gap-x-4 gap-y-1">
            {webhook.events.map((e) => (
              <li key={e}>
                <EventName type={e} />
              </li>
            ))}
          </ul>
        </dd>
        <dt className="text-slate-600 dark:text-slate-400">{t('list.secret')}</dt>
        <dd>
          <bdi dir="ltr" className="font-mono">
            {webhook.secret_hint}
          </bdi>
        </dd>
        <dt className="text-slate-600 dark:text-slate-400">{t('list.created')}</dt>
        <dd>
          <time dateTime={webhook.created_at}>{formatDateTime(lng, webhook.created_at)}</time>
        </dd>
        {webhook.secret_rotated_at && (
          <>
            <dt className="text-slate-600 dark:text-slate-400">{t('list.rotated')}</dt>
            <dd>
              <time dateTime={webhook.secret_rotated_at}>{formatDateTime(lng, webhook.secret_rotated_at)}</time>
            </dd>
          </>
        )}
      </dl>

      <Health webhook={webhook} headingId={headingId} />

      <div className="mt-4 flex flex-wrap gap-2">
        <Button
          variant="secondary"
          aria-describedby={headingId}
          aria-disabled={throttled || undefined}
          aria-busy={test.isPending || undefined}
          onClick={sendTest}
        >
          {t('list.test')}
        </Button>
        <Button
          variant="secondary"
          aria-describedby={headingId}
          onClick={(e: MouseEvent<HTMLButtonElement>) => onRotate(webhook, e.currentTarget)}
        >
          {t('list.rotate')}
        </Button>
        <Button
          variant="ghost"
          className="text-red-700 dark:text-red-400"
          aria-describedby={headingId}
          onClick={(e: MouseEvent<HTMLButtonElement>) => onRemove(webhook, e.currentTarget)}
        >
          {t('list.remove')}
        </Button>
      </div>
      <div className="mt-3 empty:hidden">
        {sentId !== null && <TestOutcome delivery={sent} />}
        {throttled && <ThrottleNotice remainingMs={throttle.remainingMs} />}
        {test.isError && !(test.error instanceof ApiError && test.error.status === 429) && (
          <Alert tone="error">{t('list.testError', { detail: errorMessage(test.error) })}</Alert>
        )}
      </div>

      <section className="mt-5" aria-labelledby={`${headingId}-deliveries`}>
        <div className="mb-2 flex flex-wrap items-center justify-between gap-2">
          <h4 id={`${headingId}-deliveries`} className="text-sm font-semibold">
            {t('deliveries.title')}
          </h4>
          <Button variant="ghost" className="min-h-8 px-2 py-1" aria-describedby={headingId} onClick={refresh}>
            {t('deliveries.refresh')}
          </Button>
        </div>
        <DeliveriesList deliveries={deliveries.data} isPending={deliveries.isPending} isError={deliveries.isError} onRetry={refresh} />
      </section>
    </article>
  )
}

/**
 * An endpoint the service paused (several deliveries in a row got no answer in time): what that means,
 * when it is tried next, and "Resume deliveries". Nothing shows while it is healthy (or at a service
 * that does not report health).
 */
function Health({ webhook, headingId }: { webhook: Webhook; headingId: string }) {
  const { t, i18n } = useTranslation('webhooks')
  const resume = useResumeWebhook()
  if (webhook.health !== 'unhealthy') {
    return resume.isSuccess ? (
      <Alert tone="success" className="mt-4">
        {t('health.resumed')}
      </Alert>
    ) : null
  }
  return (
    <Alert tone="warning" className="mt-4" title={t('health.unhealthyTitle')}>
      <p>{t('health.unhealthyBody')}</p>
      {webhook.next_retry_at && (
        <p className="mt-1">{t('deliveries.nextTry', { time: formatDateTime(i18n.language, webhook.next_retry_at) })}</p>
      )}
      <Button
        variant="secondary"
        className="mt-3"
        aria-describedby={headingId}
        aria-busy={resume.isPending || undefined}
        onClick={() => {
          if (!resume.isPending) resume.mutate(webhook.id)
        }}
      >
        {t('health.resume')}
      </Button>
      {resume.isError && (
        <p role="alert" className="mt-2 text-red-800 dark:text-red-300">
          {t('health.resumeError', { detail: errorMessage(resume.error) })}
        </p>
      )}
    </Alert>
  )
}

/** How the test event just sent went: queued (or being sent), delivered with its HTTP status, or refused. */
function TestOutcome({ delivery }: { delivery: Delivery | undefined }) {
  const { t } = useTranslation('webhooks')
  if (delivery?.status === 'succeeded') {
    return <Alert tone="success">{t('list.testDelivered', { code: delivery.last_status_code ?? '' })}</Alert>
  }
  if (delivery && (delivery.status === 'failed' || (delivery.status === 'pending' && delivery.attempts > 0))) {
    return <Alert tone="warning">{t('list.testNotDelivered')}</Alert>
  }
  return <Alert tone="info">{t('list.testSent')}</Alert>
}
