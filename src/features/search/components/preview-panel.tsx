import { memo } from 'react'
import { useTranslation } from 'react-i18next'
import { Button } from '@/components/ui/button'
import { Spinner } from '@/components/ui/spinner'
import { formatNumber } from '@/lib/format'
import type { LeadRow, Preview } from '@/api/search/get-preview'

/**
 * The live count and a sample of rows. The count area has a fixed height and keeps the previous
 * number while the next loads, so nothing jumps; screen readers hear the new number politely.
 */
export const PreviewPanel = memo(function PreviewPanel({
  data,
  updating,
  error,
  onRetry,
}: {
  data: Preview | undefined
  updating: boolean
  error: boolean
  onRetry: () => void
}) {
  const { t, i18n } = useTranslation('search')
  return (
    <div>
      <h2 className="text-base font-semibold">{t('matching')}</h2>
      <div className="mt-1 flex h-12 items-center gap-3" aria-live="polite" aria-atomic="true" aria-busy={updating}>
        {data ? (
          <p className="text-3xl font-bold tabular-nums" data-testid="lead-count" data-count={data.totalCount}>
            {t('count', { count: data.totalCount, formatted: formatNumber(i18n.language, data.totalCount) })}
          </p>
        ) : error ? null : (
          <Spinner className="size-6" label={t('loading')} />
        )}
        {updating && data && (
          <span className="inline-flex items-center gap-1 text-sm text-slate-600 dark:text-slate-400">
            <Spinner className="size-4" />
            {t('updating')}
          </span>
        )}
      </div>
      {error && (
        <div role="alert" className="mt-2 flex flex-wrap items-center gap-2 text-sm text-red-700 dark:text-red-400">
          {t('previewError')}
          <Button variant="secondary" onClick={onRetry}>
            {t('retry')}
          </Button>
        </div>
      )}
    </div>
  )
})

/** A sample of the matching leads, e-mails masked as the service returns them. */
export const SampleRows = memo(function SampleRows({ rows }: { rows: LeadRow[] }) {
  const { t } = useTranslation('search')
  if (rows.length === 0) return <p className="text-sm text-slate-600 dark:text-slate-400">{t('noRows')}</p>
  const place = (r: LeadRow) => [r.zipcode, r.city].filter(Boolean).join(' ')
  return (
    <section aria-labelledby="sample-title">
      <h2 id="sample-title" className="mb-2 text-base font-semibold">
        {t('sample')}
      </h2>
      {/* narrow screens: a list of cards; wider: a table */}
      <ul className="space-y-2 md:hidden">
        {rows.map((r, i) => (
          <li key={r.place_id || i} className="rounded-md border border-slate-200 p-3 text-sm dark:border-slate-700">
            <p className="font-medium break-words">
              <bdi>{r.name}</bdi>
            </p>
            <dl className="mt-1 grid grid-cols-[auto_1fr] gap-x-3 gap-y-0.5 text-slate-700 dark:text-slate-300">
              <dt className="text-slate-500 dark:text-slate-400">{t('colEmail')}</dt>
              <dd className="min-w-0 [overflow-wrap:anywhere]">
                <Emails list={r.email} />
              </dd>
              <dt className="text-slate-500 dark:text-slate-400">{t('colPhone')}</dt>
              <dd>
                <bdi>{r.phone || '—'}</bdi>
              </dd>
              <dt className="text-slate-500 dark:text-slate-400">{t('colCity')}</dt>
              <dd>
                <bdi>{place(r) || '—'}</bdi>
              </dd>
              <dt className="text-slate-500 dark:text-slate-400">{t('colCategories')}</dt>
              <dd>{r.categories.join(', ') || '—'}</dd>
            </dl>
          </li>
        ))}
      </ul>
      <table className="hidden w-full text-start text-sm md:table">
        <thead>
          <tr className="border-b border-slate-200 dark:border-slate-700">
            <th scope="col" className="py-2 pe-3 text-start font-medium">
              {t('colName')}
            </th>
            <th scope="col" className="py-2 pe-3 text-start font-medium">
              {t('colEmail')}
            </th>
            <th scope="col" className="py-2 pe-3 text-start font-medium">
              {t('colPhone')}
            </th>
            <th scope="col" className="py-2 text-start font-medium">
              {t('colCity')}
            </th>
          </tr>
        </thead>
        <tbody>
          {rows.map((r, i) => (
            <tr key={r.place_id || i} className="border-b border-slate-100 align-top dark:border-slate-800">
              <td className="py-2 pe-3">
                <bdi>{r.name}</bdi>
                {r.categories.length > 0 && (
                  <span className="block text-xs text-slate-600 dark:text-slate-400">{r.categories.join(', ')}</span>
                )}
              </td>
              <td className="min-w-40 py-2 pe-3 [overflow-wrap:anywhere]">
                <Emails list={r.email} />
              </td>
              <td className="py-2 pe-3 whitespace-nowrap">
                <bdi>{r.phone || '—'}</bdi>
              </td>
              <td className="py-2">
                <bdi>{place(r) || '—'}</bdi>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </section>
  )
})

function Emails({ list }: { list: string[] }) {
  if (list.length === 0) return <>—</>
  return (
    <>
      {list.map((e) => (
        <bdi key={e} className="block">
          {e}
        </bdi>
      ))}
    </>
  )
}
