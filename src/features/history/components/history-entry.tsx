import { useMutation } from '@tanstack/react-query'
import { useState } from 'react'
import { useTranslation } from 'react-i18next'
import { Link, useNavigate } from 'react-router'
import { Alert } from '@/components/ui/alert'
import { Button, buttonClass } from '@/components/ui/button'
import { paths } from '@/config/paths'
import { ApiError } from '@/lib/api-client'
import { formatBytes, formatDateTime, formatNumber } from '@/lib/format'
import { getDownload, startBrowserDownload } from '@/api/exports/get-download'
import { useRetryExport } from '@/api/exports/retry-export'
import { exportPhase } from '@/domain/export-status'
import { type HistoryEntry } from '@/api/history/get-search-history'
import { searchLinkFor } from '../search-link'
import { FilterSummary } from './filter-summary'
import { WatchControls, WatchedNews } from './watch-controls'

const phaseTone = {
  completed: 'bg-emerald-100 text-emerald-900 dark:bg-emerald-950 dark:text-emerald-100',
  failed: 'bg-red-100 text-red-900 dark:bg-red-950 dark:text-red-100',
  running: 'bg-sky-100 text-sky-900 dark:bg-sky-950 dark:text-sky-100',
} as const

const detailOf = (e: unknown) => (e instanceof ApiError ? e.detail : e instanceof Error ? e.message : String(e))

export function HistoryEntryCard({
  entry,
  freshAllowed,
  onFresh,
  now,
  watch,
}: {
  entry: HistoryEntry
  /** The profile's can_download_fresh_exports; undefined while unknown. */
  freshAllowed: boolean | undefined
  onFresh: (searchId: string) => void
  /** For tests; the moment of the first render otherwise. */
  now?: number
  /** Extension `watched_searches` (absent: the service lacks it): the name limit and this search's new leads (undefined while checking). */
  watch?: { nameMax: number; news: number | undefined } | undefined
}) {
  const { t, i18n } = useTranslation('history')
  const lng = i18n.language
  const navigate = useNavigate()
  // asked at the moment of the click, never cached: the signed URL is time-limited (interface 3.3)
  const download = useMutation({ mutationFn: (searchId: string) => getDownload(searchId) })
  const retry = useRetryExport()
  // the service is the judge of expiry (its clock may differ from ours): a 410 counts as expired
  const [gone, setGone] = useState(false)
  const [renderedAt] = useState(() => now ?? Date.now())

  // History shows three states: waiting and running read the same here
  const exportState = exportPhase(entry.status)
  const phase = exportState === 'pending' ? 'running' : exportState
  const expiresAt = entry.expires_at ? new Date(entry.expires_at) : null
  const expired = phase === 'completed' && (gone || (expiresAt !== null && expiresAt.getTime() <= renderedAt))
  const titleId = `export-${entry.search_id}-title`

  const onDownload = () =>
    download.mutate(entry.search_id, {
      onSuccess: (d) => startBrowserDownload(d, entry.search_id),
      onError: (e) => {
        if (e instanceof ApiError && e.status === 410) setGone(true)
      },
    })

  const onRetry = () => retry.mutate(entry.search_id, { onSuccess: (r) => navigate(paths.exportJob(r.search_id)) })

  let linkText = t('entry.linkNone')
  if (phase === 'completed' && expiresAt) {
    linkText = expired
      ? t('entry.linkExpired', { date: formatDateTime(lng, expiresAt) })
      : t('entry.linkValid', { date: formatDateTime(lng, expiresAt) })
  }
  const format = entry.export_format ? entry.export_format.toUpperCase().replace('EXCEL', 'Excel') : null

  return (
    <article
      aria-labelledby={titleId}
      className="rounded-lg border border-slate-200 bg-white p-4 shadow-xs dark:border-slate-800 dark:bg-slate-900"
    >
      <div className="flex flex-wrap items-start justify-between gap-2">
        <h2 id={titleId} className="text-base font-semibold">
          {entry.name ? (
            <>
              {/* the name is the person's text: isolated, so its direction cannot reorder the label beside it */}
              <bdi>{entry.name}</bdi>
              <span className="ms-2 text-sm font-normal text-slate-600 dark:text-slate-400">
                {t('entry.label', { id: entry.search_id })}
              </span>
            </>
          ) : (
            t('entry.label', { id: entry.search_id })
          )}
          {entry.delta_of != null && (
            <span className="ms-2 text-sm font-normal text-slate-600 dark:text-slate-400">{t('entry.delta', { id: entry.delta_of })}</span>
          )}
        </h2>
        <span className={`rounded-full px-2.5 py-0.5 text-xs font-medium ${phaseTone[phase]}`}>{t(`status.${phase}`)}</span>
      </div>

      <div className="mt-3">
        <FilterSummary filters={entry.filters} />
      </div>

      <dl className="mt-3 grid grid-cols-2 gap-x-4 gap-y-2 text-sm sm:grid-cols-4">
        <div>
          <dt className="text-slate-600 dark:text-slate-400">{t('entry.created')}</dt>
          <dd>
            <time dateTime={entry.created_at}>{formatDateTime(lng, entry.created_at)}</time>
          </dd>
        </div>
        <div>
          <dt className="text-slate-600 dark:text-slate-400">{t('entry.leads')}</dt>
          <dd className="tabular-nums">
            {formatNumber(lng, entry.lead_count)}
            {entry.capped && entry.max_leads != null && (
              <span className="block text-xs text-slate-600 dark:text-slate-400">
                {t('entry.capped', { max: formatNumber(lng, entry.max_leads) })}
              </span>
            )}
          </dd>
        </div>
        <div>
          <dt className="text-slate-600 dark:text-slate-400">{t('entry.credits')}</dt>
          <dd className="tabular-nums">{formatNumber(lng, entry.credits_charged)}</dd>
        </div>
        <div>
          <dt className="text-slate-600 dark:text-slate-400">{t('entry.link')}</dt>
          <dd>
            {linkText}
            {format && (
              <span className="block text-xs text-slate-600 dark:text-slate-400">
                {format}
                {entry.file_size_bytes != null && ` · ${formatBytes(lng, entry.file_size_bytes)}`}
              </span>
            )}
          </dd>
        </div>
      </dl>

      {expired && (
        <Alert tone="warning" className="mt-3" title={t('expired.title')}>
          {t('expired.body', { date: expiresAt ? formatDateTime(lng, expiresAt) : '—' })}
        </Alert>
      )}
      {phase === 'completed' && freshAllowed === false && (
        <p className="mt-3 text-sm text-slate-700 dark:text-slate-300">
          {t('noFresh')}{' '}
          <Link to={paths.plans} className="font-medium text-brand-700 underline dark:text-brand-100">
            {t('seePlans')}
          </Link>
        </p>
      )}
      {watch && freshAllowed !== false && phase === 'completed' && <WatchedNews entry={entry} news={watch.news} onFresh={onFresh} />}
      {download.isError && !(download.error instanceof ApiError && download.error.status === 410) && (
        <Alert tone="error" className="mt-3">
          {t('downloadError', { detail: detailOf(download.error) })}
        </Alert>
      )}
      {retry.isError && (
        <Alert tone="error" className="mt-3">
          {t('retryError', { detail: detailOf(retry.error) })}
        </Alert>
      )}

      <div role="group" aria-label={t('actions.group', { id: entry.search_id })} className="mt-4 flex flex-wrap gap-2">
        {phase === 'completed' && !expired && (
          <Button onClick={onDownload} loading={download.isPending}>
            {download.isPending ? t('actions.downloading') : t('actions.download')}
          </Button>
        )}
        {/* when the plan excludes fresh data, the explanation and the Plans link above replace the button:
            asking the service would only earn a 403 */}
        {phase === 'completed' && freshAllowed !== false && (
          <Button variant={expired ? 'primary' : 'secondary'} onClick={() => onFresh(entry.search_id)}>
            {t('actions.fresh')}
          </Button>
        )}
        {phase === 'failed' && (
          <Button onClick={onRetry} loading={retry.isPending}>
            {retry.isPending ? t('actions.retrying') : t('actions.retry')}
          </Button>
        )}
        {phase === 'running' && (
          <Link to={paths.exportJob(entry.search_id)} className={buttonClass('secondary')}>
            {t('actions.follow')}
          </Link>
        )}
        <Link to={searchLinkFor(entry)} className={buttonClass('ghost')}>
          {t('actions.edit')}
        </Link>
        {watch && <WatchControls entry={entry} nameMax={watch.nameMax} />}
      </div>
    </article>
  )
}
