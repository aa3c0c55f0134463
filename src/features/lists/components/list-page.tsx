import { useQuery } from '@tanstack/react-query'
import { useState } from 'react'
import { useTranslation } from 'react-i18next'
import { Link, useNavigate } from 'react-router'
import { isMatching } from '@/api/lists/get-lists'
import { listOptions } from '@/api/lists/get-list'
import { Alert } from '@/components/ui/alert'
import { Button } from '@/components/ui/button'
import { paths } from '@/config/paths'
import { ApiError } from '@/lib/api-client'
import { formatDate, formatNumber } from '@/lib/format'
import { useDocumentTitle } from '@/lib/use-document-title'
import { DeleteListDialog } from './delete-list-dialog'
import { EnrichDialog } from './enrich-dialog'
import { ListStatus } from './list-status'
import { Skeleton } from './lists-page'
import { MappingStep } from './mapping-step'
import { MatchProgress } from './match-progress'
import { MatchReport } from './match-report'

/** One list through its steps: the columns to confirm, the match's progress, then its report. */
export function ListPage({ listId }: { listId: string }) {
  const { t, i18n } = useTranslation('lists')
  const lng = i18n.language
  const navigate = useNavigate()
  const list = useQuery(listOptions(listId))
  const [deleting, setDeleting] = useState(false)
  const [enriching, setEnriching] = useState(false)
  useDocumentTitle(list.data?.name ?? t('title'))

  const back = (
    <Link to={paths.lists} className="text-sm font-medium text-brand-700 underline-offset-2 hover:underline dark:text-brand-100">
      <span aria-hidden="true" className="inline-block rtl:-scale-x-100">
        ←
      </span>{' '}
      {t('back')}
    </Link>
  )
  if (list.isPending) {
    return (
      <main className="mx-auto w-full min-w-0 max-w-5xl space-y-6">
        {back}
        <Skeleton label={t('loading')} />
      </main>
    )
  }
  if (list.isError) {
    const gone = list.error instanceof ApiError && list.error.status === 404
    return (
      <main className="mx-auto w-full min-w-0 max-w-5xl space-y-6">
        {back}
        <h1 className="text-2xl font-semibold">{t('title')}</h1>
        <Alert tone="error" title={gone ? t('notFound') : t('loadError')}>
          {!gone && (
            <Button variant="secondary" className="mt-2" onClick={() => void list.refetch()}>
              {t('retry')}
            </Button>
          )}
        </Alert>
      </main>
    )
  }

  const l = list.data
  const stopped = l.status === 'cancelled' || l.status === 'failed'
  return (
    <main className="mx-auto w-full min-w-0 max-w-5xl space-y-6">
      {back}
      <div className="flex flex-wrap items-start justify-between gap-3">
        <div className="min-w-0">
          <h1 className="break-words text-2xl font-semibold">
            <bdi>{l.name}</bdi>
          </h1>
          <p className="mt-1 flex flex-wrap items-center gap-2 text-sm text-slate-600 dark:text-slate-400">
            <ListStatus list={l} />
            {t('meta', { rows: formatNumber(lng, l.total_rows), date: formatDate(lng, l.created_at) })}
          </p>
        </div>
        <div className="flex flex-wrap gap-2">
          {l.status === 'matched' && <Button onClick={() => setEnriching(true)}>{t('enrich.start')}</Button>}
          <Button variant="secondary" onClick={() => setDeleting(true)}>
            {t('delete.button')}
          </Button>
        </div>
      </div>

      {stopped && (
        <Alert tone="warning">{l.status === 'failed' ? t('stopped.failed', { detail: l.error ?? '' }) : t('stopped.cancelled')}</Alert>
      )}
      {isMatching(l.status) && <MatchProgress list={l} />}
      {(l.status === 'uploaded' || stopped) && <MappingStep list={l} />}
      {l.status === 'matched' && <MatchReport list={l} />}

      <EnrichDialog listId={l.id} listName={l.name} open={enriching} onClose={() => setEnriching(false)} />
      {deleting && <DeleteListDialog list={l} onClose={() => setDeleting(false)} onDeleted={() => void navigate(paths.lists)} />}
    </main>
  )
}
