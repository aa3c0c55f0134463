import { useTranslation } from 'react-i18next'
import { Button } from '@/components/ui/button'
import { Alert } from '@/components/ui/alert'
import { formatDateTime, formatNumber } from '@/lib/format'
import type { Delivery } from '@/api/webhooks/get-deliveries'
import { EventName } from './event-name'

type Shown = 'queued' | 'retrying' | 'delivering' | 'succeeded' | 'failed'

const shownStatus = (d: Delivery): Shown => (d.status === 'pending' ? (d.attempts > 0 ? 'retrying' : 'queued') : d.status)

const BADGE: Record<Shown, string> = {
  queued: 'bg-slate-200 text-slate-800 dark:bg-slate-800 dark:text-slate-200',
  retrying: 'bg-amber-100 text-amber-900 dark:bg-amber-950 dark:text-amber-100',
  delivering: 'bg-sky-100 text-sky-900 dark:bg-sky-950 dark:text-sky-100',
  succeeded: 'bg-emerald-100 text-emerald-900 dark:bg-emerald-950 dark:text-emerald-100',
  failed: 'bg-red-100 text-red-900 dark:bg-red-950 dark:text-red-100',
}

/**
 * What went wrong, in the person's language: the service logs a category (`error_code`) beside its
 * English; an unknown category, or a service that sends only text, shows that text as it came.
 */
function ErrorText({ code, text }: { code: string | null | undefined; text: string }) {
  const { t, i18n } = useTranslation('webhooks')
  const key = `deliveries.errors.${code ?? ''}`
  if (code && i18n.exists(key, { ns: 'webhooks' })) return <span>{t(key as never)}</span>
  return (
    <bdi dir="ltr" className="break-all font-mono text-xs">
      {text}
    </bdi>
  )
}

/** "45 ms", "1.2 s" in the person's language. */
function duration(lng: string, ms: number): string {
  const seconds = ms >= 1000
  return new Intl.NumberFormat(lng, {
    style: 'unit',
    unit: seconds ? 'second' : 'millisecond',
    unitDisplay: 'short',
    maximumFractionDigits: seconds ? 1 : 0,
  }).format(seconds ? ms / 1000 : ms)
}

/** The endpoint's latest deliveries, newest first: what was sent, how it went, what happens next. */
export function DeliveriesList({
  deliveries,
  isPending,
  isError,
  onRetry,
}: {
  deliveries: Delivery[] | undefined
  isPending: boolean
  isError: boolean
  onRetry: () => void
}) {
  const { t } = useTranslation('webhooks')
  if (isPending) {
    return (
      <div role="status" aria-label={t('deliveries.loading')} className="space-y-2">
        {[0, 1].map((i) => (
          <div key={i} className="h-14 animate-pulse rounded-md bg-slate-100 motion-reduce:animate-none dark:bg-slate-800" />
        ))}
      </div>
    )
  }
  if (isError && !deliveries) {
    return (
      <Alert tone="error" title={t('deliveries.error')}>
        <Button variant="secondary" className="mt-2" onClick={onRetry}>
          {t('deliveries.retry')}
        </Button>
      </Alert>
    )
  }
  if (!deliveries?.length) return <p className="text-sm text-slate-600 dark:text-slate-400">{t('deliveries.empty')}</p>
  return (
    <ol className="space-y-2">
      {deliveries.map((d) => (
        <DeliveryItem key={d.id} delivery={d} />
      ))}
    </ol>
  )
}

function DeliveryItem({ delivery: d }: { delivery: Delivery }) {
  const { t, i18n } = useTranslation('webhooks')
  const lng = i18n.language
  const status = shownStatus(d)
  const when = d.last_attempt_at ?? d.created_at
  return (
    <li className="rounded-md border border-slate-200 p-3 text-sm dark:border-slate-700" data-testid="delivery">
      <div className="flex flex-wrap items-center gap-x-3 gap-y-1">
        <span className={`rounded-full px-2 py-0.5 text-xs font-medium ${BADGE[status]}`}>{t(`deliveries.status.${status}`)}</span>
        <EventName type={d.event_type} />
        <time dateTime={when} className="text-slate-600 sm:ms-auto dark:text-slate-400">
          {formatDateTime(lng, when)}
        </time>
      </div>
      <p className="mt-1 flex flex-wrap gap-x-3 text-slate-700 dark:text-slate-300">
        {d.attempts > 0 && (
          <span>{d.last_status_code !== null ? t('deliveries.httpStatus', { code: d.last_status_code }) : t('deliveries.noAnswer')}</span>
        )}
        <span>{t('deliveries.attempts', { n: formatNumber(lng, d.attempts) })}</span>
        {d.status === 'pending' && d.next_attempt_at && (
          <span>{t('deliveries.nextTry', { time: formatDateTime(lng, d.next_attempt_at) })}</span>
        )}
      </p>
      {d.last_error && d.status !== 'succeeded' && (
        <p className={`mt-1 ${d.status === 'failed' ? 'text-red-700 dark:text-red-400' : 'text-slate-700 dark:text-slate-300'}`}>
          {t('deliveries.lastError')} <ErrorText code={d.last_error_code} text={d.last_error} />
        </p>
      )}
      {d.attempt_log.length > 0 && (
        <details className="mt-2">
          <summary className="cursor-pointer text-slate-700 dark:text-slate-300">{t('deliveries.log')}</summary>
          <ol className="mt-1 space-y-1 ps-4">
            {d.attempt_log.map((a) => (
              <li key={a.attempt} className="flex flex-wrap gap-x-3 text-xs text-slate-700 dark:text-slate-300">
                <span className="font-medium">{t('deliveries.attemptNumber', { n: formatNumber(lng, a.attempt) })}</span>
                <time dateTime={a.at}>{formatDateTime(lng, a.at)}</time>
                <span>{a.status_code !== null ? t('deliveries.httpStatus', { code: a.status_code }) : t('deliveries.noAnswer')}</span>
                <span>{duration(lng, a.duration_ms)}</span>
                {a.error && <ErrorText code={a.error_code} text={a.error} />}
              </li>
            ))}
          </ol>
        </details>
      )}
    </li>
  )
}
