import { useId, useState } from 'react'
import { useTranslation } from 'react-i18next'
import { Link } from 'react-router'
import type { HistoryEntry } from '@/api/history/get-search-history'
import { Button, buttonClass } from '@/components/ui/button'
import { paths } from '@/config/paths'
import { formatDate, formatDateTime, formatNumber } from '@/lib/format'
import { useEntryActions } from '../hooks/use-entry-actions'
import { FilterSummary } from './filter-summary'
import { EntryDetails, EntryTitle, phaseTone, type EntryContext } from './history-entry'

const COLUMNS = ['date', 'name', 'filters', 'leads', 'credits', 'status', 'actions'] as const

/**
 * The compact view: one row per export, the next step in reach, and everything else (the search in
 * full, watching, naming) one "Details" away. Wider than a phone: it scrolls inside its own frame,
 * never the page, and the details open at the frame's width wherever it is scrolled to.
 */
export function HistoryTable({
  entries,
  busy,
  watchFor,
  ...context
}: {
  entries: HistoryEntry[]
  busy: boolean
  /** Each export's watch context (see EntryContext.watch). */
  watchFor: (searchId: string) => EntryContext['watch']
} & Omit<EntryContext, 'watch'>) {
  const { t } = useTranslation('history')
  const captionId = useId()
  return (
    // `relative`: the visually hidden labels in the cells (position: absolute) are placed, and clipped, in
    // this frame; without it they sit at their place in the wide table and widen the page on a phone
    <div
      role="region"
      aria-labelledby={captionId}
      className="@container relative overflow-x-auto rounded-lg border border-slate-200 bg-white shadow-xs dark:border-slate-800 dark:bg-slate-900"
    >
      <table className="w-full min-w-[46rem] border-collapse text-sm" aria-busy={busy || undefined}>
        <caption id={captionId} className="sr-only">
          {t('table.caption')}
        </caption>
        <thead className="bg-slate-50 text-start text-xs font-medium text-slate-600 dark:bg-slate-800/60 dark:text-slate-300">
          <tr>
            {COLUMNS.map((c) => (
              <th key={c} scope="col" className={`px-3 py-2 font-medium ${c === 'leads' || c === 'credits' ? 'text-end' : 'text-start'}`}>
                {t(`table.${c}`)}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {entries.map((entry) => (
            <HistoryRow key={entry.search_id} entry={entry} {...context} watch={watchFor(entry.search_id)} />
          ))}
        </tbody>
      </table>
    </div>
  )
}

function HistoryRow({ entry, ...context }: { entry: HistoryEntry } & EntryContext) {
  const { t, i18n } = useTranslation('history')
  const lng = i18n.language
  const actions = useEntryActions(entry)
  const { phase, expired, download, retry } = actions
  const [open, setOpen] = useState(false)
  // what went wrong is told in full in the details: they open when a download or a retry fails
  const trouble = actions.downloadFailed || retry.isError
  const [seenTrouble, setSeenTrouble] = useState(trouble)
  if (trouble !== seenTrouble) {
    setSeenTrouble(trouble)
    if (trouble) setOpen(true)
  }
  const base = `export-${entry.search_id}`
  const nameId = `${base}-name`
  const freeId = `${base}-retry-free-row`
  const detailsId = `${base}-details`
  const news = context.watch && entry.watched ? context.watch.news : undefined

  return (
    <>
      <tr className="border-t border-slate-200 align-top dark:border-slate-800">
        <td className="px-3 py-2 whitespace-nowrap">
          <time dateTime={entry.created_at} title={formatDateTime(lng, entry.created_at)}>
            {formatDate(lng, entry.created_at)}
          </time>
        </td>
        <th id={nameId} scope="row" className="max-w-56 min-w-32 px-3 py-2 text-start font-medium break-words">
          <EntryTitle entry={entry} stacked />
          {news !== undefined && news > 0 && (
            <span className="block text-xs font-normal text-brand-700 dark:text-brand-100">
              {t('watch.news', { count: news, formatted: formatNumber(lng, news) })}
            </span>
          )}
        </th>
        <td className="max-w-64 min-w-40 px-3 py-2">
          <FilterSummary filters={entry.filters} inline />
        </td>
        <td className="px-3 py-2 text-end whitespace-nowrap tabular-nums">
          {formatNumber(lng, entry.lead_count)}
          {entry.capped && entry.max_leads != null && (
            <span className="block text-xs text-slate-600 dark:text-slate-400">
              {t('entry.capped', { max: formatNumber(lng, entry.max_leads) })}
            </span>
          )}
        </td>
        <td className="px-3 py-2 text-end tabular-nums">
          {formatNumber(lng, entry.credits_charged)}
          {phase === 'failed' && (
            <span id={freeId} className="block text-xs text-slate-600 dark:text-slate-400">
              {t('table.retryFree')}
            </span>
          )}
        </td>
        <td className="px-3 py-2">
          <span className={`inline-block rounded-full px-2.5 py-0.5 text-xs font-medium whitespace-nowrap ${phaseTone[phase]}`}>
            {t(`status.${phase}`)}
          </span>
          {expired && <span className="mt-1 block text-xs text-slate-600 dark:text-slate-400">{t('table.linkExpired')}</span>}
        </td>
        <td className="px-3 py-2">
          {/* the row's name tells one "Download again" from the next (aria-describedby) */}
          <div role="group" aria-label={t('actions.group', { id: entry.search_id })} className="flex gap-1">
            {phase === 'completed' && !expired && (
              <Button
                onClick={actions.onDownload}
                loading={download.isPending}
                aria-describedby={nameId}
                className="px-3 whitespace-nowrap"
              >
                {download.isPending ? t('actions.downloading') : t('actions.download')}
              </Button>
            )}
            {phase === 'completed' && expired && context.freshAllowed !== false && (
              <Button onClick={() => context.onFresh(entry.search_id)} aria-describedby={nameId} className="px-3 whitespace-nowrap">
                {t('actions.fresh')}
              </Button>
            )}
            {phase === 'failed' && (
              <Button
                onClick={actions.onRetry}
                loading={retry.isPending}
                aria-describedby={`${freeId} ${nameId}`}
                className="px-3 whitespace-nowrap"
              >
                {retry.isPending ? t('actions.retrying') : t('actions.retry')}
              </Button>
            )}
            {phase === 'running' && (
              <Link
                to={paths.exportJob(entry.search_id)}
                aria-describedby={nameId}
                className={buttonClass('secondary', 'px-3 whitespace-nowrap')}
              >
                {t('actions.follow')}
              </Link>
            )}
            <Button
              variant="ghost"
              aria-expanded={open}
              aria-controls={open ? detailsId : undefined}
              aria-describedby={nameId}
              onClick={() => setOpen(!open)}
              className="px-3 whitespace-nowrap"
            >
              {t('table.details')}
              <span
                aria-hidden="true"
                className={`inline-block transition-transform motion-reduce:transition-none ${open ? 'rotate-180' : ''}`}
              >
                ▾
              </span>
            </Button>
          </div>
        </td>
      </tr>
      {open && (
        <tr id={detailsId} className="bg-slate-50 dark:bg-slate-950/40">
          <td colSpan={COLUMNS.length} className="p-0">
            {/* as wide as the frame and held at its start edge, however far the table is scrolled */}
            <div className="sticky start-0 w-[100cqw] px-4 pt-1 pb-4">
              <EntryDetails entry={entry} actions={actions} {...context} />
            </div>
          </td>
        </tr>
      )}
    </>
  )
}
