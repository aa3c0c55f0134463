import { useQuery } from '@tanstack/react-query'
import { useEffect, useRef, useState } from 'react'
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
import { formatBytes, formatDateTime, formatNumber, formatPercent } from '@/lib/format'
import { loadPageNamespaces } from '@/lib/i18n'
import { findLocalExport } from '@/lib/local-exports'
import { lastSearchPath } from '@/lib/last-search'
import { useProfile } from '@/api/account/profile'
import { absoluteDownloadUrl, downloadOptions, downloadSize, getDownload, type DownloadDescriptor } from '@/api/exports/get-download'
import { exportStatusOptions, type ExportStatus } from '@/api/exports/get-export-status'
import { useRetryExport } from '@/api/exports/retry-export'
import { historyEntryOptions } from '@/api/history/get-history-entry'
import { exportPhase, progressPercent } from '@/domain/export-status'
import { useReadyNotification } from '../hooks/use-ready-notification'

/** One export, at its own address: progress while it runs, the file when done, a retry when it failed. */
export function ExportJob({ searchId }: { searchId: string }) {
  const { t, i18n } = useTranslation(['exports', 'lists'])
  const status = useQuery(exportStatusOptions(searchId))
  const data = status.data
  const phase = data ? exportPhase(data.status) : 'pending'
  const percent = data ? progressPercent(data) : 0
  const name = t('pageTitle', { id: searchId })
  // the search's name, as History shows it (the reference's History; a service without it has none)
  const entry = useQuery(historyEntryOptions(searchId)).data
  // an export that fills in one of the account's lists (extension `lists`) is named after it, in the lists' words
  const list = entry?.list
  const [listWords, setListWords] = useState(false)
  useEffect(() => {
    if (list) void loadPageNamespaces(['lists']).then(() => setListWords(true))
  }, [list])
  // "Back to search" returns to the account's last search, not an empty one
  const profileId = useProfile().data?.id
  const account = profileId === undefined ? undefined : String(profileId)
  // the tab says when the file is ready (or the export failed), not a bare "100%"
  useDocumentTitle(
    !data
      ? name
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

  // Arriving here from a start (the confirmation, a retry, fresh data) removes the button that had the
  // focus, which then falls back to <body>: a keyboard user starts again from the page's top. The
  // heading takes it instead, one Tab before the page's main action.
  const heading = useRef<HTMLHeadingElement>(null)
  const focusHeading = () => heading.current?.focus()
  useEffect(() => {
    if (!document.activeElement || document.activeElement === document.body) heading.current?.focus()
  }, [])

  return (
    <>
      <h1 ref={heading} tabIndex={-1} className="mb-4 text-2xl font-bold focus:outline-none">
        {list && listWords ? (
          <>
            {/* the list's name is the person's text: isolated (FSI…PDI) within the sentence */}
            {t('lists:enrich.title', { name: `\u2068${list.name}\u2069` })}{' '}
            <span className="ms-1 inline-block whitespace-nowrap text-base font-normal text-slate-600 dark:text-slate-400">{name}</span>
          </>
        ) : entry?.name ? (
          <>
            {/* the name is the person's text: isolated, so its direction cannot reorder the number beside it */}
            <bdi>{entry.name}</bdi>{' '}
            <span className="ms-1 inline-block whitespace-nowrap text-base font-normal text-slate-600 dark:text-slate-400">{name}</span>
          </>
        ) : (
          name
        )}
      </h1>
      {status.isPending ? (
        <div className="flex items-center gap-2 p-6">
          <Spinner label={t('status_pending')} />
        </div>
      ) : status.isError && !data ? (
        <Alert tone="error">
          {status.error instanceof ApiError && status.error.status === 404 ? t('notFound') : errorMessage(status.error)}
          <div className="mt-3">
            <Link to={lastSearchPath(account)} className={buttonClass('secondary')}>
              {t('backToSearch')}
            </Link>
          </div>
        </Alert>
      ) : data ? (
        <Card>
          <div className="space-y-4">
            {phase === 'completed' ? (
              <Completed searchId={searchId} knownExpiry={entry?.expires_at} fillsList={Boolean(list)} />
            ) : phase === 'failed' ? (
              <Failure searchId={searchId} error={data.error} onRetried={focusHeading} />
            ) : (
              <>
                <p className="text-lg font-semibold" role="status">
                  {t(`status_${phase}`)}
                </p>
                <Progress data={data} percent={percent} />
              </>
            )}
            <Facts searchId={searchId} leadCount={data.lead_count} />
            {status.isError && <Alert tone="warning">{t('pollError')}</Alert>}
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
              <Link to={lastSearchPath(account)} className={buttonClass('ghost')}>
                {t('backToSearch')}
              </Link>
              {list ? (
                listWords && (
                  <Link to={paths.list(list.id)} className={buttonClass('ghost')}>
                    {t('lists:enrich.openList')}
                  </Link>
                )
              ) : (
                <Link to={paths.history} className={buttonClass('ghost')}>
                  {t('history')}
                </Link>
              )}
            </div>
          </div>
        </Card>
      ) : null}
    </>
  )
}

/**
 * The export's size, and when it was started and what it cost when this browser started it (the
 * interface's status says neither): what the confirmation promised, confirmed here once it started.
 */
function Facts({ searchId, leadCount }: { searchId: string; leadCount: number | null | undefined }) {
  const { t, i18n } = useTranslation('exports')
  const n = (v: number) => formatNumber(i18n.language, v)
  const account = useProfile().data?.id
  const started = account === undefined ? undefined : findLocalExport(String(account), searchId)
  const facts = [
    leadCount !== null && leadCount !== undefined ? t('leads', { count: leadCount, formatted: n(leadCount) }) : null,
    started ? t('started', { date: formatDateTime(i18n.language, started.created_at) }) : null,
    started?.credits_charged !== undefined
      ? t('charged', { amount: t('credits', { count: started.credits_charged, formatted: n(started.credits_charged) }) })
      : null,
  ].filter((f) => f !== null)
  if (!facts.length) return null
  return (
    <ul className="flex flex-wrap gap-x-4 gap-y-1 text-sm text-slate-600 dark:text-slate-400" data-testid="export-facts">
      {facts.map((f) => (
        <li key={f}>{f}</li>
      ))}
    </ul>
  )
}

function Progress({ data, percent }: { data: ExportStatus; percent: number }) {
  const { t, i18n } = useTranslation('exports')
  const n = (v: number) => formatNumber(i18n.language, v)
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
      {data.processed_count !== undefined && (
        <p className="mt-1 text-sm text-slate-600 tabular-nums dark:text-slate-400">
          {data.lead_count
            ? t('rowsDone', { done: n(data.processed_count), total: n(data.lead_count) })
            : t('rowsDoneNoTotal', { done: n(data.processed_count) })}
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

/**
 * A completed export: its file while the link works, then when the link expired and the way to fresh
 * data (not for a list's fill-in). `knownExpiry`: the link's end as History lists it, the date a 410 does not say.
 */
function Completed({ searchId, knownExpiry, fillsList }: { searchId: string; knownExpiry: string | undefined; fillsList: boolean }) {
  const { t, i18n } = useTranslation('exports')
  const descriptor = useQuery(downloadOptions(searchId))
  const now = useNow(30_000)
  const [clickError, setClickError] = useState<unknown>(null)
  const error = clickError ?? descriptor.error
  const gone = error instanceof ApiError && error.status === 410
  const d = descriptor.data
  const expiry = d?.expires_at ?? knownExpiry
  const expiresAt = expiry ? new Date(expiry) : null
  const expired = gone || (expiresAt !== null && expiresAt.getTime() <= now)

  if (expired) {
    return (
      <>
        <p className="text-lg font-semibold" role="status">
          {/* a 410 says no date (interface 3.3): the one the link carried when this page read it, or History's */}
          {expiresAt ? t('expired', { date: formatDateTime(i18n.language, expiresAt) }) : t('expiredNoDate')}
        </p>
        {/* a list's fill-in is no search to ask fresh data of: the page links to the list, to fill it in again */}
        {!fillsList && <FreshData searchId={searchId} />}
      </>
    )
  }
  // "ready" only once the link is known to work
  if (descriptor.isPending) return <Spinner />
  return (
    <>
      <p className="text-lg font-semibold" role="status">
        {t('status_completed')}
      </p>
      {d ? <DownloadButton searchId={searchId} descriptor={d} onError={setClickError} /> : <Alert tone="error">{t('pollError')}</Alert>}
      {expiresAt && (
        <p className="text-sm text-slate-600 dark:text-slate-400">{t('linkUntil', { date: formatDateTime(i18n.language, expiresAt) })}</p>
      )}
      {clickError !== null && <Alert tone="error">{t('pollError')}</Alert>}
    </>
  )
}

/** The history's fresh-data check (free, confirmed before anything is charged), or why the plan has none. */
function FreshData({ searchId }: { searchId: string }) {
  const { t } = useTranslation('exports')
  const allowed = useProfile().data?.can_download_fresh_exports
  if (allowed === false) {
    return (
      <p className="text-sm">
        {t('noFresh')}{' '}
        <Link to={paths.plans} className="font-medium text-brand-700 underline dark:text-brand-100">
          {t('seePlans')}
        </Link>
      </p>
    )
  }
  return (
    <div>
      <Link to={`${paths.history}?fresh=${encodeURIComponent(searchId)}`} className={buttonClass('primary')}>
        {t('getFresh')}
      </Link>
    </div>
  )
}

function DownloadButton({
  searchId,
  descriptor: d,
  onError,
}: {
  searchId: string
  descriptor: DownloadDescriptor
  onError: (error: unknown) => void
}) {
  const { t, i18n } = useTranslation('exports')
  const [fetching, setFetching] = useState(false)

  // the signed link may be near its end: fetch a fresh descriptor at the click, then let the
  // browser navigate to the file (the service names it with Content-Disposition)
  const download = async () => {
    setFetching(true)
    onError(null)
    try {
      const fresh = await getDownload(searchId)
      window.location.assign(absoluteDownloadUrl(fresh.download_url))
    } catch (e) {
      onError(e)
    } finally {
      setFetching(false)
    }
  }

  // "Download {{filename}}" around the file name, whatever the language's word order
  const [downloadBefore = '', downloadAfter = ''] = t('download', { filename: '\u0000' }).split('\u0000')
  const size = downloadSize(d)
  return (
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
  )
}

/** The one message of a failed export: what happened, and a retry at no charge. */
function Failure({ searchId, error, onRetried }: { searchId: string; error: string | null | undefined; onRetried: () => void }) {
  const { t } = useTranslation('exports')
  const retry = useRetryExport()
  const navigate = useNavigate()
  return (
    <Alert tone="error" title={t('status_failed')}>
      <p>{error ? t('failedBody', { error }) : t('failedUnknown')}</p>
      <p className="mt-1">{t('retryFree')}</p>
      <div className="mt-3">
        <Button
          onClick={() =>
            retry.mutate(searchId, {
              onSuccess: (r) => {
                if (r.search_id !== searchId) void navigate(paths.exportJob(r.search_id))
                // the button goes with the failure: the focus goes to the heading, not to <body>
                else onRetried()
              },
            })
          }
          loading={retry.isPending}
        >
          {t('retry')}
        </Button>
      </div>
      {retry.isError && <p className="mt-2">{t('retryError')}</p>}
    </Alert>
  )
}
