import { useQueries, useQuery } from '@tanstack/react-query'
import { useTranslation } from 'react-i18next'
import { Link } from 'react-router'
import { useCapabilityInfo } from '@/api/capabilities/get-capabilities'
import { listsOptions, type List } from '@/api/lists/get-lists'
import { reportOptions } from '@/api/lists/get-report'
import { Alert } from '@/components/ui/alert'
import { Button } from '@/components/ui/button'
import { Card } from '@/components/ui/card'
import { paths } from '@/config/paths'
import { formatDate, formatNumber } from '@/lib/format'
import { useDocumentTitle } from '@/lib/use-document-title'
import { ListStatus } from './list-status'
import { UploadForm, type UploadLimits } from './upload-form'

/** Extension `lists` (issue 27): a service without it gets a plain sentence, and no request is made. */
export function ListsPage() {
  const { t } = useTranslation('lists')
  useDocumentTitle(t('title'))
  const capability = useCapabilityInfo('lists')
  return (
    <main className="mx-auto w-full min-w-0 max-w-5xl space-y-6">
      <div>
        <h1 className="text-2xl font-semibold">{t('title')}</h1>
        <p className="mt-1 text-sm text-slate-600 dark:text-slate-400">{t('intro')}</p>
      </div>
      {capability === undefined && <Skeleton label={t('loading')} />}
      {capability === null && (
        <Alert tone="info" title={t('unavailable.title')}>
          {t('unavailable.body')}
        </Alert>
      )}
      {capability && <Lists limits={limitsOf(capability)} />}
    </main>
  )
}

const num = (v: unknown, fallback: number) => (typeof v === 'number' && Number.isFinite(v) ? v : fallback)
/** The capability's limits, else the interface's (decisions.md: 20 lists, 50 MB, 200,000 rows). */
const limitsOf = (c: Record<string, unknown>): UploadLimits & { lists: number } => ({
  lists: num(c.limit, 20),
  maxFileMb: num(c.max_file_mb, 50),
  maxRows: num(c.max_rows, 200_000),
})

function Lists({ limits }: { limits: UploadLimits & { lists: number } }) {
  const { t, i18n } = useTranslation('lists')
  const lists = useQuery(listsOptions())
  const n = (v: number) => formatNumber(i18n.language, v)
  const used = lists.data?.length ?? 0
  const atLimit = used >= limits.lists

  return (
    <>
      <Card title={t('upload.title')}>
        {lists.data && (
          <p className="mb-3 text-sm text-slate-600 dark:text-slate-400">{t('limit', { used: n(used), limit: n(limits.lists) })}</p>
        )}
        {atLimit ? <Alert tone="warning">{t('limitReached', { limit: n(limits.lists) })}</Alert> : <UploadForm limits={limits} />}
      </Card>

      <section className="space-y-4">
        <h2 id="lists-title" className="text-lg font-semibold">
          {t('table.label')}
        </h2>
        {lists.isPending && <Skeleton label={t('loading')} />}
        {lists.isError && !lists.data && (
          <Alert tone="error" title={t('loadError')}>
            <Button variant="secondary" className="mt-2" onClick={() => void lists.refetch()}>
              {t('retry')}
            </Button>
          </Alert>
        )}
        {lists.data?.length === 0 && (
          <div className="rounded-lg border border-dashed border-slate-300 p-8 text-center dark:border-slate-700">
            <p className="font-semibold">{t('empty.title')}</p>
            <p className="mx-auto mt-2 max-w-prose text-sm text-slate-600 dark:text-slate-400">{t('empty.body')}</p>
          </div>
        )}
        {lists.data && lists.data.length > 0 && <ListsTable lists={lists.data} />}
      </section>
    </>
  )
}

function ListsTable({ lists }: { lists: List[] }) {
  const { t, i18n } = useTranslation('lists')
  const lng = i18n.language
  // the counts by result come from each matched list's report (the index does not carry them)
  const reports = useQueries({
    queries: lists.map((l) => ({ ...reportOptions(l.id), enabled: l.status === 'matched' || l.status === 'cancelled' })),
  })
  const count = (v: number | undefined) => (v === undefined ? '–' : formatNumber(lng, v))
  return (
    // the table scrolls in its own box on a narrow screen, never the page; the box takes focus so that
    // its hidden columns can be scrolled to by keyboard
    <div
      role="region"
      aria-labelledby="lists-title"
      // eslint-disable-next-line jsx-a11y/no-noninteractive-tabindex -- a scrollable region must be reachable by keyboard
      tabIndex={0}
      className="relative overflow-x-auto rounded-lg border border-slate-200 bg-white shadow-xs focus-visible:outline-2 focus-visible:outline-sky-600 dark:border-slate-800 dark:bg-slate-900"
    >
      <table className="w-full whitespace-nowrap text-start text-sm">
        <thead>
          <tr className="border-b border-slate-200 dark:border-slate-700">
            {(['name', 'rows', 'status', 'matched', 'ambiguous', 'unmatched', 'created'] as const).map((c) => (
              <th key={c} scope="col" className={`px-3 py-2 font-medium ${c === 'name' || c === 'status' ? 'text-start' : 'text-end'}`}>
                {t(`table.${c}`)}
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {lists.map((l, i) => {
            const report = reports[i]?.data
            return (
              <tr key={l.id} className="border-b border-slate-100 last:border-0 dark:border-slate-800">
                <td className="min-w-40 max-w-72 whitespace-normal break-words px-3 py-2">
                  <Link to={paths.list(l.id)} className="font-medium text-brand-700 underline-offset-2 hover:underline dark:text-brand-100">
                    <bdi>{l.name}</bdi>
                  </Link>
                </td>
                <td className="px-3 py-2 text-end tabular-nums">{formatNumber(lng, l.total_rows)}</td>
                <td className="px-3 py-2">
                  <ListStatus list={l} />
                </td>
                <td className="px-3 py-2 text-end tabular-nums">{count(report?.matched)}</td>
                <td className="px-3 py-2 text-end tabular-nums">{count(report?.ambiguous)}</td>
                <td className="px-3 py-2 text-end tabular-nums">{count(report?.unmatched)}</td>
                <td className="px-3 py-2 text-end">{formatDate(lng, l.created_at)}</td>
              </tr>
            )
          })}
        </tbody>
      </table>
    </div>
  )
}

export function Skeleton({ label }: { label: string }) {
  return (
    <div role="status" aria-label={label} className="space-y-4">
      {[0, 1].map((i) => (
        <div key={i} className="h-24 animate-pulse rounded-lg bg-slate-200 motion-reduce:animate-none dark:bg-slate-800" />
      ))}
    </div>
  )
}
