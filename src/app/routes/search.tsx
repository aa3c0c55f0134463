import {
  lazy,
  memo,
  Suspense,
  useCallback,
  useDeferredValue,
  useEffect,
  useId,
  useMemo,
  useRef,
  useState,
  type MouseEvent,
  type ReactNode,
} from 'react'
import { useTranslation } from 'react-i18next'
import { useNavigate } from 'react-router'
import { Alert } from '@/components/ui/alert'
import { Button } from '@/components/ui/button'
import { Card } from '@/components/ui/card'
import { paths } from '@/config/paths'
import { ExportOptions } from '@/features/search/components/export-options'
import { PreviewPanel, SampleRows } from '@/features/search/components/preview-panel'
import { NewSearchButton, SearchBuilder } from '@/features/search/components/search-builder'
import { usePreview } from '@/features/search/hooks/use-preview'
import { useSearchFilters, type FiltersChange } from '@/features/search/hooks/use-search-filters'
import { formatNumber } from '@/lib/format'
import { loadPageNamespaces } from '@/lib/i18n'
import { useAfterFirstLoad } from '@/lib/use-after-first-load'
import { useOnline } from '@/lib/use-online'
import type { LeaveOutListsProps, ListChipsProps } from '@/features/lists/components/leave-out-lists'
import { useDocumentTitle } from '@/lib/use-document-title'

// the confirmation (the export mutation and its strings) load when the person first asks to export
const ExportConfirmDialog = lazy(() =>
  Promise.all([import('@/features/exports/components/export-confirm-dialog'), loadPageNamespaces(['exports'])]).then(([m]) => ({
    default: m.ExportConfirmDialog,
  })),
)

// coverage bars load after the first count: not part of the search page's first load
const CoveragePanel = lazy(() => import('@/features/search/components/coverage-panel').then((m) => ({ default: m.CoveragePanel })))

// the export extensions of the service (skip owned leads, columns, file language), when it has them
const ExportExtras = lazy(() => import('@/features/exports/components/export-extras').then((m) => ({ default: memo(m.ExportExtras) })))

// "Use in the API" shows the search as code; Headless UI's tabs load only when it is asked for
const ApiSnippetsDialog = lazy(() =>
  import('@/features/search/components/api-snippets-dialog').then((m) => ({ default: m.ApiSnippetsDialog })),
)

// the map of the leads and its territory (extension `geo`): its toggle and words once the first load is over,
// the map itself when opened
// (asked for only online; should its files still not arrive, the page goes on without the map rather than
// showing its error page: the map is an extra, and a reload asks again)
const TerritoryMap = lazy(() =>
  import('@/features/map/components/territory-map').then(
    (m) => ({ default: m.TerritoryMap }),
    () => ({ default: () => null }),
  ),
)

// "Leave out businesses in my lists" (extension `lists`): its control once the first load is over, the chips of a
// search that leaves lists out when there are some; their words once something of theirs shows (an extra like
// the map: should its files not arrive, the search goes on without it)
const leaveOut = () => import('@/features/lists/components/leave-out-lists')
const LeaveOutLists = lazy(() =>
  leaveOut().then(
    (m) => ({ default: m.LeaveOutLists }),
    () => ({ default: (_: LeaveOutListsProps) => null }),
  ),
)
const ListChips = lazy(() =>
  leaveOut().then(
    (m) => ({ default: m.ListChips }),
    () => ({ default: (_: ListChipsProps): ReactNode => null }),
  ),
)

/**
 * The title (in the tab too), "New search" beside it, and the intro: rendered once, not at each change
 * of the search (`onNewSearch` keeps its identity).
 */
const Heading = memo(function Heading({ onNewSearch }: { onNewSearch: (change: FiltersChange) => void }) {
  const { t } = useTranslation('search')
  useDocumentTitle(t('title'))
  return (
    <>
      <div className="flex flex-wrap items-center justify-between gap-x-4 gap-y-2">
        <h1 className="text-2xl font-bold">{t('title')}</h1>
        <NewSearchButton onChange={onNewSearch} />
      </div>
      <p className="mt-1 text-sm text-slate-600 dark:text-slate-400">{t('intro')}</p>
    </>
  )
})

/**
 * Narrow screens: the count sits far below the filters, so it and "Export…" stay at hand in a bar at
 * the bottom; wide screens show them in the side panel.
 */
const BottomBar = memo(function BottomBar({
  totalCount,
  canExport,
  blockedBy,
  onExport,
}: {
  totalCount: number | undefined
  canExport: boolean
  /** Why "Export…" is off because of the cap field, said here too: on a phone the field is far above. */
  blockedBy: string | null
  onExport: (e: MouseEvent<HTMLButtonElement>) => void
}) {
  const { t, i18n } = useTranslation('search')
  const reasonId = useId()
  return (
    <div className="fixed inset-x-0 bottom-0 z-20 border-t border-slate-200 bg-white px-4 py-3 shadow-[0_-2px_8px_rgb(0_0_0/0.06)] lg:hidden dark:border-slate-700 dark:bg-slate-900">
      <div className="mx-auto flex max-w-7xl items-center justify-between gap-3">
        <p className="min-w-0 text-sm">
          <span className="block text-xs text-slate-600 dark:text-slate-400">{t('matching')}</span>
          <span className="font-semibold tabular-nums">
            {totalCount !== undefined ? t('count', { count: totalCount, formatted: formatNumber(i18n.language, totalCount) }) : '…'}
          </span>
          {blockedBy && (
            <span id={reasonId} className="block text-xs text-red-700 dark:text-red-400">
              {blockedBy}
            </span>
          )}
        </p>
        <Button
          className="shrink-0"
          data-testid="export-open"
          disabled={!canExport}
          aria-describedby={blockedBy ? reasonId : undefined}
          onClick={onExport}
        >
          {t('exportButton')}
        </Button>
      </div>
    </div>
  )
})

/** The search page: filters (in the address bar), the live count and sample, and the export. */
export function Component() {
  const { t } = useTranslation('search')
  const navigate = useNavigate()
  // this page renders at each change of the search, and each of i18next's t() calls costs ≈ 0.1–0.3 ms
  const labels = useMemo(() => ({ export: t('export'), exportButton: t('exportButton'), api: t('api.button') }), [t])
  const [filters, setFilters, link] = useSearchFilters()
  // the controls show a change in the same frame; the count, the sample and the coverage follow in a
  // render of their own that a next keystroke or click may interrupt
  const deferredFilters = useDeferredValue(filters)
  const opening = link.resolving || link.failed
  const { query: preview, settling } = usePreview(deferredFilters, !opening)
  const [confirming, setConfirming] = useState(false)
  const [showingApi, setShowingApi] = useState(false)
  const apiButton = useRef<HTMLButtonElement>(null)
  // Closing the confirmation (Escape, Cancel) gives focus back to the "Export…" button that opened it (the
  // side panel's, or the bottom bar's on a phone): the dialog unmounts as it closes, so the dialog library
  // has nothing left to restore focus from.
  const opener = useRef<HTMLButtonElement | null>(null)
  const [refocus, setRefocus] = useState(0)
  useEffect(() => {
    if (refocus === 0) return
    const frame = requestAnimationFrame(() => opener.current?.focus())
    return () => cancelAnimationFrame(frame)
  }, [refocus])
  const openConfirm = useCallback((e: MouseEvent<HTMLButtonElement>) => {
    opener.current = e.currentTarget
    setConfirming(true)
  }, [])
  const setCap = useCallback((cap: number) => setFilters((f) => ({ ...f, cap }), { replace: true }), [setFilters])
  const { refetch } = preview
  const retry = useCallback(() => void refetch(), [refetch])
  const data = opening ? undefined : preview.data
  // until the count has caught up with the controls, nothing can be exported (the search id would be the old one's)
  const updating = link.resolving || settling || preview.isFetching || deferredFilters !== filters
  // the cap field's text must be the cap in the address (the one the confirmation offers): while it is
  // invalid or not read yet, nothing can be exported, and the reason shows beside "Export…"
  const [capProblem, setCapProblem] = useState<string | null>(null)
  const capBlockedBy = capProblem || null
  const capBlockedId = useId()
  const canExport = data !== undefined && data.totalCount > 0 && !updating && capProblem === null
  // what sits below the count (the sample, the coverage, the export extras) follows a new answer in a
  // render of its own: the count shows first, and a click or keystroke may interrupt the rest
  const settled = useDeferredValue(data)
  const settledReady = useDeferredValue(!updating)
  const afterFirstLoad = useAfterFirstLoad()
  const online = useOnline()
  // the map's files are asked for once online after the first load; going offline later keeps an open map
  const [mapWanted, setMapWanted] = useState(false)
  if (!mapWanted && afterFirstLoad && online) setMapWanted(true)
  const leftOut = filters.excludeLists
  const listChips = useMemo(
    () =>
      leftOut.length > 0
        ? (Chip: ListChipsProps['Chip']) => (
            <Suspense fallback={null}>
              <ListChips ids={leftOut} onChange={setFilters} Chip={Chip} />
            </Suspense>
          )
        : undefined,
    [leftOut, setFilters],
  )

  return (
    // on narrow screens the bottom bar below is fixed: the padding keeps it from covering the last content
    // (a taller bar while it says why "Export…" is off)
    <main className={`mx-auto w-full max-w-7xl p-4 sm:p-6 lg:pb-6 ${capBlockedBy ? 'pb-40 sm:pb-40' : 'pb-24 sm:pb-24'}`}>
      <Heading onNewSearch={setFilters} />
      {link.dropped && (
        <Alert tone="warning" className="mt-4">
          {t('linkDropped')}
        </Alert>
      )}
      {link.failed && (
        <Alert tone="error" className="mt-4">
          <div className="flex flex-wrap items-center gap-2">
            {t('linkError')}
            <Button variant="secondary" onClick={link.retry}>
              {t('retry')}
            </Button>
          </div>
        </Alert>
      )}
      <div className="mt-6 grid gap-6 lg:grid-cols-[minmax(0,3fr)_minmax(0,2fr)]">
        <div className="min-w-0">
          <SearchBuilder filters={filters} onChange={setFilters} loading={link.resolving} extraChips={listChips} />
          {mapWanted && !link.resolving && (
            <Suspense fallback={null}>
              <LeaveOutLists filters={filters} onChange={setFilters} excluded={data?.excluded_by_lists} />
            </Suspense>
          )}
        </div>
        <div className="space-y-4 lg:sticky lg:top-4 lg:row-span-2 lg:self-start">
          <Card>
            <PreviewPanel data={data} updating={updating} error={preview.isError} onRetry={retry} />
          </Card>
          <Card title={labels.export}>
            <ExportOptions cap={filters.cap} format={filters.format} onChange={setFilters} onCapCheck={setCapProblem} />
            {settled && (
              <Suspense fallback={null}>
                <ExportExtras filters={deferredFilters} ready={settledReady} onCap={setCap} />
              </Suspense>
            )}
            <Button
              className="mt-4 w-full"
              data-testid="export-open"
              disabled={!canExport}
              aria-describedby={capBlockedBy ? capBlockedId : undefined}
              onClick={openConfirm}
            >
              {labels.exportButton}
            </Button>
            {capBlockedBy && (
              <p id={capBlockedId} className="mt-2 text-sm text-red-700 dark:text-red-400">
                {capBlockedBy}
              </p>
            )}
            <Button ref={apiButton} variant="ghost" className="mt-2 w-full" onClick={() => setShowingApi(true)}>
              {labels.api}
            </Button>
          </Card>
          {settled && settled.totalCount > 0 && (
            <Card>
              <Suspense fallback={null}>
                <CoveragePanel filters={deferredFilters} totalCount={settled.totalCount} ready={settledReady} onNarrow={setFilters} />
              </Suspense>
            </Card>
          )}
        </div>
        {/* under the builder on a laptop; on a phone after the export card, so that the map's toggle, which
            comes after the first load, does not move the count and the export controls under a finger */}
        {mapWanted && !link.resolving && (
          <div className="min-w-0 empty:hidden lg:col-start-1">
            <Suspense fallback={null}>
              <TerritoryMap filters={filters} onChange={setFilters} />
            </Suspense>
          </div>
        )}
        {settled && (
          <Card className="min-w-0 lg:col-start-1">
            <SampleRows rows={settled.results} />
          </Card>
        )}
      </div>
      <BottomBar totalCount={data?.totalCount} canExport={canExport} blockedBy={capBlockedBy} onExport={openConfirm} />
      {showingApi && (
        <Suspense fallback={null}>
          <ApiSnippetsDialog
            filters={filters}
            onClose={() => {
              setShowingApi(false)
              // the dialog unmounts as it closes: focus goes back to the button that opened it
              requestAnimationFrame(() => apiButton.current?.focus())
            }}
          />
        </Suspense>
      )}
      {data && confirming && (
        <Suspense fallback={null}>
          <ExportConfirmDialog
            open={confirming}
            onClose={() => {
              setConfirming(false)
              setRefocus((n) => n + 1)
            }}
            searchId={data.search_id}
            filters={filters}
            totalCount={data.totalCount}
            cap={filters.cap}
            format={filters.format}
            onSetCap={setCap}
            onStarted={(started) => {
              setConfirming(false)
              navigate(paths.exportJob(started.search_id))
            }}
          />
        </Suspense>
      )}
    </main>
  )
}
