import { useTranslation } from 'react-i18next'
import { Link } from 'react-router'
import { Alert } from '@/components/ui/alert'
import { Button, buttonClass } from '@/components/ui/button'
import { paths } from '@/config/paths'
import { ApiError } from '@/lib/api-client'
import { formatBytes, formatDateTime, formatNumber } from '@/lib/format'
import { type HistoryEntry } from '@/api/history/get-search-history'
import { useEntryActions, type EntryActions } from '../hooks/use-entry-actions'
import { searchLinkFor } from '../search-link'
import { FilterSummary } from './filter-summary'
import { WatchControls, WatchedNews } from './watch-controls'

export const phaseTone = {
  completed: 'bg-emerald-100 text-emerald-900 dark:bg-emerald-950 dark:text-emerald-100',
  failed: 'bg-red-100 text-red-900 dark:bg-red-950 dark:text-red-100',
  running: 'bg-sky-100 text-sky-900 dark:bg-sky-950 dark:text-sky-100',
} as const

export const detailOf = (e: unknown) => (e instanceof ApiError ? e.detail : e instanceof Error ? e.message : String(e))

/** What the card and the table's details share: how fresh data is offered and what watching adds. */
export interface EntryContext {
  /** The profile's can_download_fresh_exports; undefined while unknown. */
  freshAllowed: boolean | undefined
  onFresh: (searchId: string) => void
  /** Extension `watched_searches` (absent: the service lacks it): the name limit and this search's new leads (undefined while checking). */
  watch?: { nameMax: number; news: number | undefined } | undefined
}

/** The id of the line saying a retry is free, which the retry buttons point to (aria-describedby). */
export const retryFreeId = (entry: HistoryEntry) => `export-${entry.search_id}-retry-free`

/**
 * The search's name, or its number, and the export it takes fresh data from. `stacked`: the number and
 * the origin on a line of their own under the name (a narrow table cell).
 */
export function EntryTitle({ entry, stacked = false }: { entry: HistoryEntry; stacked?: boolean }) {
  const { t } = useTranslation('history')
  const aside = `text-sm font-normal text-slate-600 dark:text-slate-400 ${stacked ? 'me-2 inline-block whitespace-nowrap' : 'ms-2'}`
  const label = t('entry.label', { id: entry.search_id })
  return (
    <>
      {entry.name ? (
        <>
          {/* the name is the person's text: isolated, so its direction cannot reorder the label beside it */}
          <bdi className={stacked ? 'block' : undefined}>{entry.name}</bdi>{' '}
          {/* a real space: without it a screen reader reads "Berlin dentistsExport #3" */}
          <span className={aside}>{label}</span>
        </>
      ) : stacked ? (
        <span className="me-2 inline-block whitespace-nowrap">{label}</span>
      ) : (
        label
      )}
      {entry.delta_of != null && (
        <>
          {' '}
          <span className={aside}>{t('entry.delta', { id: entry.delta_of })}</span>
        </>
      )}
    </>
  )
}

export function HistoryEntryCard({
  entry,
  now,
  ...context
}: { entry: HistoryEntry; /** For tests; the moment of the first render otherwise. */ now?: number } & EntryContext) {
  const { t } = useTranslation('history')
  const actions = useEntryActions(entry, now)
  const titleId = `export-${entry.search_id}-title`
  return (
    <article
      aria-labelledby={titleId}
      className="rounded-lg border border-slate-200 bg-white p-4 shadow-xs dark:border-slate-800 dark:bg-slate-900"
    >
      <div className="flex flex-wrap items-start justify-between gap-2">
        <h2 id={titleId} className="text-base font-semibold">
          <EntryTitle entry={entry} />
        </h2>
        <span className={`rounded-full px-2.5 py-0.5 text-xs font-medium ${phaseTone[actions.phase]}`}>{t(`status.${actions.phase}`)}</span>
      </div>
      <EntryDetails entry={entry} actions={actions} {...context} />
    </article>
  )
}

/** Everything about one export below its title: the search in words, the figures, what went wrong, and every action. */
export function EntryDetails({
  entry,
  actions,
  freshAllowed,
  onFresh,
  watch,
}: { entry: HistoryEntry; actions: EntryActions } & EntryContext) {
  const { t, i18n } = useTranslation('history')
  const lng = i18n.language
  const { phase, expiresAt, expired, download, retry } = actions

  let linkText = t('entry.linkNone')
  if (phase === 'completed' && expiresAt) {
    linkText = expired
      ? t('entry.linkExpired', { date: formatDateTime(lng, expiresAt) })
      : t('entry.linkValid', { date: formatDateTime(lng, expiresAt) })
  }
  const format = entry.export_format ? entry.export_format.toUpperCase().replace('EXCEL', 'Excel') : null

  return (
    <>
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
          <dd className="tabular-nums">
            {formatNumber(lng, entry.credits_charged)}
            {/* a failed export keeps its charge and is retried without a new one (decisions.md, "Credits") */}
            {phase === 'failed' && (
              <span id={retryFreeId(entry)} className="block text-xs text-slate-600 dark:text-slate-400">
                {t('entry.retryFree')}
              </span>
            )}
          </dd>
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
      {actions.downloadFailed && (
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
          <Button onClick={actions.onDownload} loading={download.isPending}>
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
          <Button onClick={actions.onRetry} loading={retry.isPending} aria-describedby={retryFreeId(entry)}>
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
    </>
  )
}
