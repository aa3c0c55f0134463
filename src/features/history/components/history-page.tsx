import { useQuery } from '@tanstack/react-query'
import { useDeferredValue, useState, type FormEvent } from 'react'
import { useTranslation } from 'react-i18next'
import { Link, useLocation, useNavigationType, useSearchParams } from 'react-router'
import { Alert } from '@/components/ui/alert'
import { Button, buttonClass } from '@/components/ui/button'
import { paths } from '@/config/paths'
import { profileOptions } from '@/api/account/profile'
import { formatNumber } from '@/lib/format'
import { useWatchedNews, useWatchedSearchesInfo } from '@/api/history/watched-news'
import { useCapability } from '@/api/capabilities/get-capabilities'
import { useDebouncedValue } from '@/lib/use-debounced-value'
import { filterFromParams, isFiltering, NO_FILTER, withFilter, type HistoryFilter } from '../history-filters'
import { PAGE_SIZE, SEARCH_PAGE_SIZE, SEARCH_PAGES, useHistoryList } from '../hooks/use-history-list'
import { useHistoryView } from '../hooks/use-history-view'
import { DeltaDialog } from './delta-dialog'
import { HistoryEntryCard } from './history-entry'
import { HistoryTable } from './history-table'
import { HistoryToolbar } from './history-toolbar'

export { PAGE_SIZE }

/** A pause in typing this long sends the text to a service that searches History. */
const SEARCH_DELAY_MS = 300

function pageFrom(params: URLSearchParams): number {
  const n = Number(params.get('page'))
  return Number.isInteger(n) && n >= 1 ? n : 1
}

/**
 * The service pages the history (newest first); only one page is ever rendered, whatever the total.
 * A search or filter is the service's work when it offers it, else reads the whole list
 * (use-history-list.ts); either way the page goes through what matches.
 */
export function HistoryPage() {
  const { t, i18n } = useTranslation('history')
  const [params, setParams] = useSearchParams()
  const location = useLocation()
  const navigationType = useNavigationType()
  // extension watched_searches: `?watched=1` lists the watched searches only
  const watchInfo = useWatchedSearchesInfo()
  const watchedOnly = Boolean(watchInfo) && params.get('watched') === '1'
  const profile = useQuery(profileOptions())
  // the account names this browser's own record, read when the service keeps no list (404)
  const account = profile.data ? String(profile.data.id) : undefined
  const [view, setView] = useHistoryView()

  // The filter as typed, written to the address as it changes (replacing, not adding, history
  // entries). The address catches up a render or two later, so it is read back only when it moves
  // by itself: back and forward, or a link.
  const [filter, setFilter] = useState(() => filterFromParams(params))
  const [seenKey, setSeenKey] = useState(location.key)
  if (location.key !== seenKey) {
    setSeenKey(location.key)
    if (navigationType !== 'REPLACE') setFilter(filterFromParams(params))
  }
  const changeFilter = (next: HistoryFilter) => {
    setFilter(next)
    setParams((prev) => withFilter(prev, next), { replace: true })
  }
  // extension history_search: the service finds the matches, asked once typing pauses (each new
  // search aborts the one it replaces); otherwise typing stays quick on a long list read here, which
  // follows a beat behind
  const serviceSearch = useCapability('history_search')
  const typed = useDebouncedValue(filter.text, SEARCH_DELAY_MS)
  const deferredFilter = useDeferredValue(filter)
  const shownFilter = serviceSearch ? { ...filter, text: typed } : deferredFilter
  const filtering = isFiltering(shownFilter)

  const history = useHistoryList({
    page: pageFrom(params),
    watched: watchedOnly,
    account,
    filter: shownFilter,
    lng: i18n.language,
    serviceSearch,
  })
  const page = history.data?.page ?? pageFrom(params)
  const news = useWatchedNews()
  // `?fresh=<id>` (from the account page's plan for expiring credits) opens that export's fresh-data check
  const [freshFor, setFreshFor] = useState<string | null>(() => params.get('fresh') || null)
  const closeFresh = () => {
    setFreshFor(null)
    if (params.has('fresh')) {
      setParams(
        (prev) => {
          const next = new URLSearchParams(prev)
          next.delete('fresh')
          return next
        },
        { replace: true },
      )
    }
  }

  const goTo = (p: number) => {
    setParams((prev) => {
      const next = new URLSearchParams(prev)
      if (p <= 1) next.delete('page')
      else next.set('page', String(p))
      return next
    })
    window.scrollTo({ top: 0 })
  }

  const count = history.data?.count ?? 0
  const total = history.data?.total ?? 0
  const pages = Math.max(1, Math.ceil(count / PAGE_SIZE))
  const entries = history.data?.results ?? []
  const context = {
    freshAllowed: profile.data?.can_download_fresh_exports,
    onFresh: setFreshFor,
  }
  const watchFor = (searchId: string) => (watchInfo ? { nameMax: watchInfo.nameMax, news: news.bySearch.get(searchId) } : undefined)
  // an empty list with no filter has nothing to search: the toolbar shows once there is something
  const showToolbar = filtering || isFiltering(filter) || total > 0

  return (
    <main className="mx-auto w-full min-w-0 max-w-5xl">
      <div className="mb-6 flex flex-wrap items-end justify-between gap-2">
        <div>
          <h1 className="text-2xl font-semibold">{t('title')}</h1>
          <p className="mt-1 text-sm text-slate-600 dark:text-slate-400">{t('intro')}</p>
        </div>
        {history.data && total > 0 && (
          <p className="text-sm text-slate-600 dark:text-slate-400">
            {t('count', { count: total, n: formatNumber(i18n.language, total) })}
          </p>
        )}
      </div>

      {history.data?.source === 'browser' && (
        <Alert tone="info" className="mb-4" title={t('browserList.title')}>
          {t('browserList.body')}
        </Alert>
      )}

      {watchInfo && <WatchFilter watchedOnly={watchedOnly} watchedCount={news.watchedCount} newTotal={news.total} filter={filter} />}

      {showToolbar && (
        <HistoryToolbar
          byService={serviceSearch === true}
          filter={filter}
          onFilter={changeFilter}
          view={view}
          onView={setView}
          listedCountries={history.data?.countries ?? []}
        />
      )}

      {filtering && history.data && (
        <div className="mb-4 text-sm text-slate-700 dark:text-slate-300" aria-live="polite">
          <p>{t('filter.matches', { count, n: formatNumber(i18n.language, count), total: formatNumber(i18n.language, total) })}</p>
          {history.data.truncated && (
            <p className="mt-1 text-slate-600 dark:text-slate-400">
              {t('filter.truncated', { n: formatNumber(i18n.language, SEARCH_PAGE_SIZE * SEARCH_PAGES) })}
            </p>
          )}
        </div>
      )}

      {history.isPending && <HistorySkeleton label={filtering ? t('filter.searching') : t('loading')} />}

      {history.isError && !history.data && (
        <Alert tone="error" title={t('error.title')}>
          <div className="mt-2 flex flex-wrap gap-2">
            <Button variant="secondary" onClick={history.refetch}>
              {t('error.retry')}
            </Button>
            {/* a page past the end (the list shrank, or a typed address) answers 404 */}
            {page > 1 && (
              <Button variant="secondary" onClick={() => goTo(1)}>
                {t('error.firstPage')}
              </Button>
            )}
          </div>
        </Alert>
      )}

      {history.data && count === 0 && filtering && (
        <section className="rounded-lg border border-dashed border-slate-300 p-8 text-center dark:border-slate-700">
          <h2 className="text-lg font-semibold">{t('filter.noneTitle')}</h2>
          <p className="mt-2 text-sm text-slate-600 dark:text-slate-400">{t('filter.noneBody')}</p>
          <Button variant="secondary" className="mt-4" onClick={() => changeFilter(NO_FILTER)}>
            {t('filter.clear')}
          </Button>
        </section>
      )}

      {history.data && count === 0 && page === 1 && !filtering && watchedOnly && (
        <section className="rounded-lg border border-dashed border-slate-300 p-8 text-center dark:border-slate-700">
          <h2 className="text-lg font-semibold">{t('watch.emptyTitle')}</h2>
          <p className="mt-2 text-sm text-slate-600 dark:text-slate-400">{t('watch.emptyBody')}</p>
        </section>
      )}

      {history.data && count === 0 && page === 1 && !filtering && !watchedOnly && (
        <section className="rounded-lg border border-dashed border-slate-300 p-8 text-center dark:border-slate-700">
          <h2 className="text-lg font-semibold">{t('empty.title')}</h2>
          <p className="mt-2 text-sm text-slate-600 dark:text-slate-400">{t('empty.body')}</p>
          <Link to={paths.search} className={buttonClass('primary', 'mt-4')}>
            {t('empty.cta')}
          </Link>
        </section>
      )}

      {entries.length > 0 && view === 'table' && <HistoryTable entries={entries} busy={history.busy} {...context} watchFor={watchFor} />}

      {entries.length > 0 && view === 'cards' && (
        <ol className="space-y-4" aria-busy={history.busy || undefined}>
          {entries.map((entry) => (
            <li key={entry.search_id}>
              <HistoryEntryCard entry={entry} {...context} watch={watchFor(entry.search_id)} />
            </li>
          ))}
        </ol>
      )}

      {history.data && (pages > 1 || page > 1) && <Pagination page={page} pages={pages} onGo={goTo} busy={history.busy} />}

      {freshFor !== null && <DeltaDialog searchId={freshFor} onClose={closeFresh} />}
    </main>
  )
}

/** All exports, or the watched searches only (with what is new in them). */
function WatchFilter({
  watchedOnly,
  watchedCount,
  newTotal,
  filter,
}: {
  watchedOnly: boolean
  watchedCount: number
  newTotal: number
  /** Kept across the switch: "watched" narrows what is searched, it does not start over. */
  filter: HistoryFilter
}) {
  const { t, i18n } = useTranslation('history')
  const href = (watched: boolean) => {
    const qs = withFilter(new URLSearchParams(watched ? { watched: '1' } : {}), filter).toString()
    return qs ? `${paths.history}?${qs}` : paths.history
  }
  const tab = (active: boolean) =>
    `rounded-md px-3 py-1.5 text-sm font-medium ${
      active
        ? 'bg-brand-700 text-white dark:bg-brand-100 dark:text-slate-900'
        : 'text-slate-700 hover:bg-slate-100 dark:text-slate-200 dark:hover:bg-slate-800'
    }`
  return (
    <nav aria-label={t('watch.filterLabel')} className="mb-4 flex flex-wrap items-center gap-1">
      <Link to={href(false)} className={tab(!watchedOnly)} aria-current={watchedOnly ? undefined : 'page'}>
        {t('watch.all')}
      </Link>
      <Link to={href(true)} className={tab(watchedOnly)} aria-current={watchedOnly ? 'page' : undefined}>
        {t('watch.watchedTab', { formatted: formatNumber(i18n.language, watchedCount) })}
      </Link>
      {newTotal > 0 && (
        <span className="ms-2 text-sm text-slate-700 dark:text-slate-300">
          {t('watch.newTotal', { count: newTotal, formatted: formatNumber(i18n.language, newTotal) })}
        </span>
      )}
    </nav>
  )
}

function HistorySkeleton({ label }: { label: string }) {
  return (
    <div role="status" aria-label={label} className="space-y-4">
      {[0, 1, 2].map((i) => (
        <div key={i} className="h-44 animate-pulse rounded-lg bg-slate-200 motion-reduce:animate-none dark:bg-slate-800" />
      ))}
    </div>
  )
}

function Pagination({ page, pages, onGo, busy }: { page: number; pages: number; onGo: (p: number) => void; busy: boolean }) {
  const { t } = useTranslation('history')
  const [target, setTarget] = useState('')
  const submit = (e: FormEvent) => {
    e.preventDefault()
    const n = Number(target)
    if (Number.isInteger(n) && n >= 1 && n <= pages) onGo(n)
  }
  return (
    <nav aria-label={t('pagination.label')} className="mt-6 flex flex-wrap items-center justify-between gap-3">
      <Button variant="secondary" disabled={page <= 1 || busy} onClick={() => onGo(page - 1)}>
        <span aria-hidden="true" className="inline-block rtl:rotate-180">
          ←
        </span>
        {t('pagination.previous')}
      </Button>
      <p className="text-sm" aria-live="polite">
        {t('pagination.page', { page, pages })}
      </p>
      {pages > 2 && (
        <form onSubmit={submit} className="flex items-center gap-2">
          <label htmlFor="history-page-jump" className="text-sm">
            {t('pagination.goTo')}
          </label>
          <input
            id="history-page-jump"
            type="number"
            inputMode="numeric"
            min={1}
            max={pages}
            value={target}
            onChange={(e) => setTarget(e.target.value)}
            className="w-20 rounded-md border border-slate-300 bg-white px-2 py-2 text-sm dark:border-slate-600 dark:bg-slate-900"
          />
          <Button type="submit" variant="secondary">
            {t('pagination.go')}
          </Button>
        </form>
      )}
      <Button variant="secondary" disabled={page >= pages || busy} onClick={() => onGo(page + 1)}>
        {t('pagination.next')}
        <span aria-hidden="true" className="inline-block rtl:rotate-180">
          →
        </span>
      </Button>
    </nav>
  )
}
