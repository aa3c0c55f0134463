import { useTranslation } from 'react-i18next'
import { Link } from 'react-router'
import { Alert } from '@/components/ui/alert'
import { paths } from '@/config/paths'
import { formatDateTime, formatNumber } from '@/lib/format'
import { deltaStarted, type DeltaResult } from '@/api/history/delta-request'

/**
 * What download-delta answered, before anything is charged: the verdict for each validation_code
 * (decisions.md) and the freshness figures behind it.
 */
export function DeltaVerdict({ result }: { result: DeltaResult }) {
  const { t, i18n } = useTranslation('history')
  const lng = i18n.language
  const n = (v: number | null | undefined) => (v == null ? '—' : formatNumber(lng, v))
  const when = (v: string | null | undefined) => (v ? formatDateTime(lng, v) : '—')
  const f = result.freshness ?? {}
  const date = when(f.last_exported_at ?? f.original_exported_at)
  const plansLink = (
    <Link to={paths.plans} className="font-medium underline">
      {t('seePlans')}
    </Link>
  )

  let verdict
  if (deltaStarted(result)) {
    verdict = (
      <Alert tone="warning" title={t('delta.started.title')}>
        <p>{t('delta.started.body', { leads: n(result.lead_count), credits: n(result.required_credits) })}</p>
        <Link to={paths.exportJob(result.search_id)} className="mt-2 inline-block font-medium underline">
          {t('delta.started.open')}
        </Link>
      </Alert>
    )
  } else {
    switch (result.validation_code) {
      case 'ok':
        verdict = (
          <Alert tone="info" title={t('delta.ok.title')}>
            {f.capped
              ? t('delta.ok.capped', { date, original: n(f.original_lead_count), total: n(f.current_total) })
              : t('delta.ok.uncapped', { count: result.lead_count, date })}
          </Alert>
        )
        break
      case 'no_new_leads':
        verdict = (
          <Alert tone="info" title={t('delta.no_new_leads.title')}>
            {t('delta.no_new_leads.body', { date })}
          </Alert>
        )
        break
      case 'insufficient_credits':
        verdict = (
          <Alert tone="warning" title={t('delta.insufficient_credits.title')}>
            <p>
              {t('delta.insufficient_credits.body', {
                required: n(result.required_credits),
                available: n(result.available_credits),
              })}
            </p>
            <p className="mt-1">{plansLink}</p>
          </Alert>
        )
        break
      case 'fresh_exports_not_allowed':
        verdict = (
          <Alert tone="warning" title={t('delta.fresh_exports_not_allowed.title')}>
            <p>{t('delta.fresh_exports_not_allowed.body')}</p>
            <p className="mt-1">{plansLink}</p>
          </Alert>
        )
        break
      case 'not_completed':
        verdict = (
          <Alert tone="info" title={t('delta.not_completed.title')}>
            {t('delta.not_completed.body')}
          </Alert>
        )
        break
      default:
        verdict = (
          <Alert tone="warning" title={t('delta.unknown.title')}>
            {t('delta.unknown.body', { code: result.validation_code })}
          </Alert>
        )
    }
  }

  const figures: [string, string][] = [
    [t('delta.figures.exportedAt'), date],
    [t('delta.figures.originalLeads'), n(f.original_lead_count)],
    [t('delta.figures.currentTotal'), n(f.current_total)],
    [t('delta.figures.newSince'), n(f.new_since_export)],
    [t('delta.figures.capped'), f.capped ? t('delta.figures.yes') : t('delta.figures.no')],
    [t('delta.figures.required'), n(result.required_credits)],
    [t('delta.figures.available'), n(result.available_credits)],
    [t('delta.figures.checkedAt'), when(result.freshness_checked_at)],
  ]

  // the plan excludes fresh data: the figures (credits required 0, …) would only confuse
  if (!deltaStarted(result) && result.validation_code === 'fresh_exports_not_allowed') return verdict

  return (
    <div className="space-y-4">
      {verdict}
      <section aria-label={t('delta.figures.label')}>
        <dl className="grid grid-cols-[1fr_auto] gap-x-4 gap-y-1 text-sm">
          {figures.map(([label, value]) => (
            <div key={label} className="contents">
              <dt className="text-slate-600 dark:text-slate-400">{label}</dt>
              <dd className="text-end font-medium tabular-nums">{value}</dd>
            </div>
          ))}
        </dl>
      </section>
    </div>
  )
}
