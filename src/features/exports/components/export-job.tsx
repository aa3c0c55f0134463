import { useQuery } from '@tanstack/react-query'
import { useEffect, useState } from 'react'
import { useTranslation } from 'react-i18next'
import { Link, useNavigate } from 'react-router'
import { Alert } from '@/components/ui/alert'
import { Button, buttonClass } from '@/components/ui/button'
import { Card } from '@/components/ui/card'
import { Spinner } from '@/components/ui/spinner'
import { paths } from '@/config/paths'
import { ApiError } from '@/lib/api-client'
import { useDocumentTitle } from '@/lib/use-document-title'
import { errorMessage } from '@/lib/error-message'
import { formatBytes, formatDateTime, formatNumber, formatPercent, formatRelative } from '@/lib/format'
import { absoluteDownloadUrl, downloadOptions, downloadSize, getDownload } from '@/api/exports/get-download'
import { exportStatusOptions, type ExportStatus } from '@/api/exports/get-export-status'
import { useRetryExport } from '@/api/exports/retry-export'
import { exportPhase, progressPercent } from '@/domain/export-status'
import { useReadyNotification } from '../hooks/use-ready-notification'

/** One export, at its own address: progress while it runs, the file when done, a retry when it failed. */
export function ExportJob({ searchId }: { searchId: string }) {
  const { t, i18n } = useTranslation('exports')
  const status = useQuery(exportStatusOptions(searchId))
  const data = status.data
  const phase = data ? exportPhase(data.status) : 'pending'
  const percent = data ? progressPercent(data) : 0
  // the tab says when the file is ready (or the export failed), not a bare "100%"
  useDocumentTitle(
    !data
      ? t('pageTitle', { id: searchId })
      : phase === 'completed'
        ? t('tabTitleReady', { id: searchId })
        : phase === 'failed'
          ? t('tabTitleFailed', { id: searchId })
          : t('tabTitle', { percent: formatPercent(i18n.language, percent / 100), id: searchId }),
  )
  const notify = useReadyNotification(searchId, phase === 'completed', {
    title: t('notificationTitle'),
    body: t('notificationBody', { count: data?.lead_count ?? 0, formatted: formatNumber(i18n.language, data?.lead_count ?? 0) }),
  })

  if (status.isPending) {
    return (
      <div className="flex items-center gap-2 p-6">
        <Spinner label={t('status_pending')} />
      </div>
    )
  }
  if (status.isError && !data) {
    const notFound = status.error instanceof ApiError && status.error.status === 404
    return (
      <Alert tone="error">
        {notFound ? t('notFound') : errorMessage(status.error)}
        <div className="mt-3">
          <Link to={paths.search} className={buttonClass('secondary')}>
            {t('backToSearch')}
          </Link>
        </div>
      </Alert>
    )
  }
  if (!data) return null

  return (
    <Card>
      <div className="space-y-4">
        <p className="text-lg font-semibold" role="status">
          {t(`status_${phase}`)}
        </p>
        {data.lead_count !== null && data.lead_count !== undefined && (
          <p className="text-sm text-slate-600 dark:text-slate-400">
            {t('leads', { count: data.lead_count, formatted: formatNumber(i18n.language, data.lead_count) })}
          </p>
        )}
        {phase !== 'failed' && <Progress data={data} percent={percent} />}
        {status.isError && <Alert tone="warning">{t('pollError')}</Alert>}
        {phase === 'completed' && <DownloadButton searchId={searchId} />}
        {phase === 'failed' && <Failure searchId={searchId} error={data.error} />}
        {(phase === 'pending' || phase === 'running') && notify.permission !== 'unsupported' && (
          <div>
            {notify.wanted ? (
              <p className="text-sm">{t('notifyOn')}</p>
            ) : notify.permission === 'denied' ? (
              <p className="text-sm text-slate-600 dark:text-slate-400">{t('notifyDenied')}</p>
            ) : (
              <Button variant="secondary" onClick={() => void notify.request()}>
                {t('notifyMe')}
              </Button>
            )}
          </div>
        )}
        <div className="flex flex-wrap gap-3 border-t border-slate-200 pt-4 dark:border-slate-800">
          <Link to={paths.search} className={buttonClass('ghost')}>
            {t('backToSearch')}
          </Link>
          <Link to={paths.history} className={buttonClass('ghost')}>
            {t('history')}
          </Link>
        </div>
      </div>
    </Card>
  )
}

function Progress({ data, percent }: { data: ExportStatus; percent: number }) {
  const { t, i18n } = useTranslation('exports')
  const n = (v: number) => formatNumber(i18n.language, v)
  const done = data.processed_count ?? (exportPhase(data.status) === 'completed' ? data.lead_count : undefined)
  return (
    <div>
      <div className="flex items-center justify-between gap-3 text-sm">
        <span id="export-progress-label">{t('progressLabel')}</span>
        <span className="tabular-nums">{formatPercent(i18n.language, percent / 100)}</span>
      </div>
      <progress
        aria-labelledby="export-progress-label"
        className="mt-1 h-3 w-full overflow-hidden rounded-full accent-brand-600 [&::-moz-progress-bar]:bg-brand-600 [&::-webkit-progress-bar]:bg-slate-200 [&::-webkit-progress-value]:bg-brand-600 dark:[&::-webkit-progress-bar]:bg-slate-700"
        max={100}
        value={percent}
      />
      {/* the interface promises only `status`: rows are counted only when the service says them */}
      {done !== undefined && (
        <p className="mt-1 text-sm text-slate-600 tabular-nums dark:text-slate-400">
          {data.lead_count ? t('rowsDone', { done: n(done), total: n(data.lead_count) }) : t('rowsDoneNoTotal', { done: n(done) })}
        </p>
      )}
    </div>
  )
}

function useNow(intervalMs: number) {
  const [now, setNow] = useState(() => Date.now())
  useEffect(() => {
    const id = setInterval(() => setNow(Date.now()), intervalMs)
    return () => clearInterval(id)
  }, [intervalMs])
  return now
}

function DownloadButton({ searchId }: { searchId: string }) {
  const { t, i18n } = useTranslation('exports')
  const descriptor = useQuery(downloadOptions(searchId))
  const now = useNow(30_000)
  const [fetching, setFetching] = useState(false)
  const [clickError, setClickError] = useState<unknown>(null)
  const error = clickError ?? descriptor.error
  const gone = error instanceof ApiError && error.status === 410
  const d = descriptor.data
  const expiresAt = d?.expires_at ? new Date(d.expires_at) : null
  const expired = gone || (expiresAt !== null && expiresAt.getTime() <= now)

  if (descriptor.isPending) return <Spinner label={t('status_completed')} />
  if (expired) {
    return (
      <Alert tone="warning">
        {expiresAt ? t('expired', { date: formatDateTime(i18n.language, expiresAt) }) : t('expiredHelp')}
        {expiresAt && <p className="mt-1">{t('expiredHelp')}</p>}
      </Alert>
    )
  }
  if (!d) return <Alert tone="error">{t('pollError')}</Alert>

  // the signed link may be near its end: fetch a fresh descriptor at the click, then let the
  // browser navigate to the file (the service names it with Content-Disposition)
  const download = async () => {
    setFetching(true)
    setClickError(null)
    try {
      const fresh = await getDownload(searchId)
      window.location.assign(absoluteDownloadUrl(fresh.download_url))
    } catch (e) {
      setClickError(e)
    } finally {
      setFetching(false)
    }
  }

  // "Download {{filename}}" around the file name, whatever the language's word order
  const [downloadBefore = '', downloadAfter = ''] = t('download', { filename: '\u0000' }).split('\u0000')
  const size = downloadSize(d)
  return (
    <div className="space-y-2">
      <Button onClick={() => void download()} loading={fetching} className="w-full sm:w-auto">
        <svg viewBox="0 0 20 20" className="size-5" aria-hidden="true" fill="currentColor">
          <path d="M10.75 2.75a.75.75 0 0 0-1.5 0v8.61L6.3 8.2a.75.75 0 1 0-1.1 1.02l4.25 4.5a.75.75 0 0 0 1.1 0l4.25-4.5a.75.75 0 0 0-1.1-1.02l-2.95 3.16V2.75Z" />
          <path d="M3.5 12.75a.75.75 0 0 0-1.5 0v2.5A2.75 2.75 0 0 0 4.75 18h10.5A2.75 2.75 0 0 0 18 15.25v-2.5a.75.75 0 0 0-1.5 0v2.5c0 .69-.56 1.25-1.25 1.25H4.75c-.69 0-1.25-.56-1.25-1.25v-2.5Z" />
        </svg>
        <span className="flex flex-col items-start text-start">
          {/* the (Latin) file name is isolated from the RTL sentence around it, and long names wrap
              anywhere rather than overflow, so the extension stays in view at 360 px */}
          <span className="[overflow-wrap:anywhere]">
            {downloadBefore}
            <bdi>{d.filename ?? ''}</bdi>
            {downloadAfter}
          </span>
          {size !== null && (
            <span className="text-xs font-normal opacity-90">
              <bdi>{formatBytes(i18n.language, size)}</bdi>
            </span>
          )}
        </span>
      </Button>
      {expiresAt && (
        <p className="text-sm text-slate-600 dark:text-slate-400">
          <time dateTime={expiresAt.toISOString()} title={formatDateTime(i18n.language, expiresAt)}>
            {t('expiresIn', { when: formatRelative(i18n.language, expiresAt, now) })}
          </time>
        </p>
      )}
      {clickError !== null && !gone && <Alert tone="error">{t('pollError')}</Alert>}
    </div>
  )
}

function Failure({ searchId, error }: { searchId: string; error: string | null | undefined }) {
  const { t } = useTranslation('exports')
  const retry = useRetryExport()
  const navigate = useNavigate()
  return (
    <Alert tone="error" title={t('status_failed')}>
      <p>{error ? t('failedBody', { error }) : t('failedUnknown')}</p>
      <p className="mt-1">{t('retryFree')}</p>
      <div className="mt-3">
        <Button
          onClick={() => retry.mutate(searchId, { onSuccess: (r) => r.search_id !== searchId && navigate(paths.exportJob(r.search_id)) })}
          loading={retry.isPending}
        >
          {t('retry')}
        </Button>
      </div>
      {retry.isError && <p className="mt-2">{t('retryError')}</p>}
    </Alert>
  )
}
