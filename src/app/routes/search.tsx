import { lazy, Suspense, useEffect, useRef, useState } from 'react'
import { useTranslation } from 'react-i18next'
import { useNavigate } from 'react-router'
import { Alert } from '@/components/ui/alert'
import { Button } from '@/components/ui/button'
import { Card } from '@/components/ui/card'
import { paths } from '@/config/paths'
import { ExportOptions } from '@/features/search/components/export-options'
import { PreviewPanel, SampleRows } from '@/features/search/components/preview-panel'
import { SearchBuilder } from '@/features/search/components/search-builder'
import { usePreview } from '@/features/search/hooks/use-preview'
import { useSearchFilters } from '@/features/search/hooks/use-search-filters'
import { useDocumentTitle } from '@/lib/use-document-title'

// the confirmation (and the export mutation) load when the person first asks to export
const ExportConfirmDialog = lazy(() =>
  import('@/features/exports/components/export-confirm-dialog').then((m) => ({
    default: m.ExportConfirmDialog,
  })),
)

/** The search page: filters (in the address bar), the live count and sample, and the export. */
export function Component() {
  const { t } = useTranslation('search')
  const navigate = useNavigate()
  useDocumentTitle(t('title'))
  const [filters, setFilters, link] = useSearchFilters()
  const opening = link.resolving || link.failed
  const { query: preview, settling } = usePreview(filters, !opening)
  const [confirming, setConfirming] = useState(false)
  // Closing the confirmation (Escape, Cancel) gives focus back to "Export…": the dialog unmounts as it
  // closes, so the dialog library has nothing left to restore focus from.
  const exportButton = useRef<HTMLButtonElement>(null)
  const [refocus, setRefocus] = useState(0)
  useEffect(() => {
    if (refocus === 0) return
    const frame = requestAnimationFrame(() => exportButton.current?.focus())
    return () => cancelAnimationFrame(frame)
  }, [refocus])
  const data = opening ? undefined : preview.data
  const updating = link.resolving || settling || preview.isFetching

  return (
    <main className="mx-auto w-full max-w-7xl p-4 sm:p-6">
      <h1 className="text-2xl font-bold">{t('title')}</h1>
      <p className="mt-1 text-sm text-slate-600 dark:text-slate-400">{t('intro')}</p>
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
          <SearchBuilder filters={filters} onChange={setFilters} loading={link.resolving} />
        </div>
        <div className="space-y-4 lg:sticky lg:top-4 lg:row-span-2 lg:self-start">
          <Card>
            <PreviewPanel
              data={data}
              updating={updating}
              error={preview.isError}
              onRetry={() => void preview.refetch()}
            />
          </Card>
          <Card title={t('export')}>
            <ExportOptions filters={filters} onChange={setFilters} />
            <Button
              ref={exportButton}
              className="mt-4 w-full"
              disabled={!data || data.totalCount === 0 || updating}
              onClick={() => setConfirming(true)}
            >
              {t('exportButton')}
            </Button>
          </Card>
        </div>
        {data && (
          <Card className="min-w-0 lg:col-start-1">
            <SampleRows rows={data.results} />
          </Card>
        )}
      </div>
      {data && confirming && (
        <Suspense fallback={null}>
          <ExportConfirmDialog
            open={confirming}
            onClose={() => {
              setConfirming(false)
              setRefocus((n) => n + 1)
            }}
            searchId={data.search_id}
            totalCount={data.totalCount}
            cap={filters.cap}
            format={filters.format}
            onSetCap={(cap) => setFilters({ ...filters, cap }, { replace: true })}
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
