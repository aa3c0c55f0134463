import { useQuery } from '@tanstack/react-query'
import { useState, type ReactNode } from 'react'
import { useTranslation } from 'react-i18next'
import type { ListDetail } from '@/api/lists/get-list'
import { rowsOptions, type Candidate, type ListRow } from '@/api/lists/get-rows'
import type { RowStatus } from '@/api/lists/keys'
import { useSetRowMatch } from '@/api/lists/set-row-match'
import { Alert } from '@/components/ui/alert'
import { Button } from '@/components/ui/button'
import { Card } from '@/components/ui/card'
import { SelectField } from '@/components/ui/field'
import { errorMessage } from '@/lib/error-message'
import { formatNumber, formatPercent } from '@/lib/format'
import { withName } from './with-name'

const FILTERS = ['all', 'matched', 'ambiguous', 'unmatched'] as const
type Filter = (typeof FILTERS)[number]

/** What the last change was, to say so and to undo an un-match. */
type Change = { kind: 'unmatched'; rowNo: number; companyId: number } | { kind: 'picked'; rowNo: number; name: string }

const place = (c: Pick<Candidate, 'street' | 'postal_code' | 'city'>) =>
  [c.street, [c.postal_code, c.city].filter(Boolean).join(' ')].filter(Boolean).join(', ')

/** The person's own row, the name they mapped first: what they recognise it by. */
function ownRow(list: ListDetail, row: ListRow): string {
  const first = [list.mapping?.name, list.mapping?.city].filter((i): i is number => i !== undefined)
  const order = [...first, ...row.cells.keys()].filter((i, at, all) => all.indexOf(i) === at)
  return order
    .map((i) => row.cells[i]?.trim())
    .filter(Boolean)
    .join(' · ')
}

/** The rows with their match, filtered by result and paged: un-match a match, pick an unsure row's business. */
export function RowsTable({ list }: { list: ListDetail }) {
  const { t, i18n } = useTranslation('lists')
  const lng = i18n.language
  const [filter, setFilter] = useState<Filter>('all')
  const [page, setPage] = useState(1)
  const [open, setOpen] = useState<number | null>(null)
  const [change, setChange] = useState<Change | null>(null)
  const rows = useQuery(rowsOptions(list.id, filter === 'all' ? null : (filter as RowStatus), page))
  const setMatch = useSetRowMatch(list.id)
  const pages = rows.data ? Math.max(1, Math.ceil(rows.data.count / Math.max(1, rows.data.page_size))) : 1

  const unmatch = (row: ListRow) => {
    const companyId = row.match?.company_id
    if (companyId === undefined) return
    setMatch.mutate(
      { rowNo: row.row_no, companyId: null },
      { onSuccess: () => setChange({ kind: 'unmatched', rowNo: row.row_no, companyId }) },
    )
  }
  const pick = (row: ListRow, c: Candidate) =>
    setMatch.mutate(
      { rowNo: row.row_no, companyId: c.company_id },
      {
        onSuccess: () => {
          setOpen(null)
          setChange({ kind: 'picked', rowNo: row.row_no, name: c.name ?? String(c.company_id) })
        },
      },
    )
  const undo = (c: Extract<Change, { kind: 'unmatched' }>) =>
    setMatch.mutate({ rowNo: c.rowNo, companyId: c.companyId }, { onSuccess: () => setChange(null) })

  return (
    <Card title={t('rows.title')}>
      <div className="space-y-4">
        <SelectField
          label={t('rows.filter')}
          className="max-w-xs"
          value={filter}
          onChange={(e) => {
            setFilter(e.target.value as Filter)
            setPage(1)
            setOpen(null)
          }}
        >
          {FILTERS.map((f) => (
            <option key={f} value={f}>
              {f === 'all' ? t('rows.all') : t(`report.${f}`)}
            </option>
          ))}
        </SelectField>

        {change?.kind === 'unmatched' && (
          <Alert tone="success">
            <div className="flex flex-wrap items-center gap-3">
              <span>{t('rows.unmatched', { row: formatNumber(lng, change.rowNo) })}</span>
              <Button variant="secondary" loading={setMatch.isPending} onClick={() => undo(change)}>
                {t('rows.undo')}
              </Button>
            </div>
          </Alert>
        )}
        {change?.kind === 'picked' && (
          <Alert tone="success">{withName((name) => t('rows.picked', { row: formatNumber(lng, change.rowNo), name }), change.name)}</Alert>
        )}
        {setMatch.isError && <Alert tone="error">{t('rows.changeFailed', { detail: errorMessage(setMatch.error) })}</Alert>}

        {rows.isPending && <div className="h-40 animate-pulse rounded-lg bg-slate-200 motion-reduce:animate-none dark:bg-slate-800" />}
        {rows.isError && !rows.data && (
          <Alert tone="error" title={t('report.loadError')}>
            <Button variant="secondary" className="mt-2" onClick={() => void rows.refetch()}>
              {t('retry')}
            </Button>
          </Alert>
        )}
        {rows.data?.results.length === 0 && <p className="text-sm text-slate-600 dark:text-slate-400">{t('rows.none')}</p>}
        {rows.data && rows.data.results.length > 0 && (
          <ul aria-label={t('rows.label')} aria-busy={rows.isPlaceholderData} className="divide-y divide-slate-100 dark:divide-slate-800">
            {rows.data.results.map((row) => (
              <li key={row.row_no} className="py-3" data-testid="list-row">
                <div className="flex flex-wrap items-start justify-between gap-x-4 gap-y-2">
                  <div className="min-w-0 flex-1 basis-64 space-y-1">
                    <p className="text-sm">
                      <span className="me-2 text-xs text-slate-600 dark:text-slate-400">
                        {t('rows.row')} {formatNumber(lng, row.row_no)}
                      </span>
                      <bdi className="break-words font-medium">{ownRow(list, row)}</bdi>
                    </p>
                    <Outcome row={row} />
                  </div>
                  {row.status === 'matched' && (
                    <Button variant="secondary" disabled={setMatch.isPending} onClick={() => unmatch(row)}>
                      {t('rows.unmatch')}
                    </Button>
                  )}
                  {row.status === 'ambiguous' && (row.candidates?.length ?? 0) > 0 && (
                    <Button
                      variant="secondary"
                      aria-expanded={open === row.row_no}
                      aria-controls={`list-row-${row.row_no}-candidates`}
                      onClick={() => setOpen(open === row.row_no ? null : row.row_no)}
                    >
                      {t('rows.pick')}
                    </Button>
                  )}
                </div>
                {open === row.row_no && (
                  <ul
                    id={`list-row-${row.row_no}-candidates`}
                    aria-label={t('rows.candidatesOf', { row: formatNumber(lng, row.row_no) })}
                    className="mt-3 space-y-2 border-s-2 border-amber-300 ps-3 dark:border-amber-700"
                  >
                    {row.candidates?.map((c) => (
                      <li key={c.company_id} className="flex flex-wrap items-center justify-between gap-2 text-sm">
                        <span className="min-w-0">
                          <bdi className="font-medium">{c.name ?? c.company_id}</bdi>
                          {place(c) && (
                            <span className="block text-xs text-slate-600 dark:text-slate-400">
                              <bdi>{place(c)}</bdi>
                            </span>
                          )}
                          {c.website && (
                            <span className="block text-xs text-slate-600 dark:text-slate-400">
                              <bdi dir="ltr">{c.website}</bdi>
                            </span>
                          )}
                        </span>
                        <Button variant="secondary" disabled={setMatch.isPending} onClick={() => pick(row, c)}>
                          {t('rows.choose')}
                          <span className="sr-only">: {c.name}</span>
                        </Button>
                      </li>
                    ))}
                  </ul>
                )}
              </li>
            ))}
          </ul>
        )}
        {rows.data && pages > 1 && (
          <nav aria-label={t('rows.title')} className="flex flex-wrap items-center justify-between gap-2 text-sm">
            <Button variant="secondary" disabled={page <= 1} onClick={() => setPage((p) => p - 1)}>
              {t('rows.previous')}
            </Button>
            <span>{t('rows.page', { page: formatNumber(lng, page), pages: formatNumber(lng, pages) })}</span>
            <Button variant="secondary" disabled={page >= pages} onClick={() => setPage((p) => p + 1)}>
              {t('rows.next')}
            </Button>
          </nav>
        )}
      </div>
    </Card>
  )
}

function Outcome({ row }: { row: ListRow }) {
  const { t, i18n } = useTranslation('lists')
  const badge = (tone: string, text: ReactNode) => (
    <span className={`me-2 inline-block rounded-full px-2 py-0.5 text-xs font-medium ${tone}`}>{text}</span>
  )
  if (row.status === 'matched' && row.match) {
    const m = row.match
    return (
      <p className="text-sm">
        {badge('bg-emerald-100 text-emerald-900 dark:bg-emerald-950 dark:text-emerald-100', t('report.matched'))}
        <span className="text-slate-600 dark:text-slate-400">{t('rows.matchedTo')} </span>
        <bdi className="font-medium">{m.name ?? m.company_id}</bdi>
        {place(m) && (
          <span className="text-slate-600 dark:text-slate-400">
            {' · '}
            <bdi>{place(m)}</bdi>
          </span>
        )}
        <span className="block text-xs text-slate-600 dark:text-slate-400">
          {(['domain', 'phone', 'name_city', 'manual'] as const).includes(m.rule as 'manual')
            ? t(`report.rules.${m.rule as 'manual'}`)
            : m.rule}
          {m.rule !== 'manual' && ` · ${t('rows.confidence', { percent: formatPercent(i18n.language, m.confidence) })}`}
        </span>
      </p>
    )
  }
  if (row.status === 'ambiguous')
    return <p>{badge('bg-amber-100 text-amber-950 dark:bg-amber-950 dark:text-amber-100', t('report.ambiguous'))}</p>
  if (row.status === 'unmatched')
    return <p>{badge('bg-slate-200 text-slate-800 dark:bg-slate-800 dark:text-slate-200', t('report.unmatched'))}</p>
  return <p>{badge('bg-slate-200 text-slate-800 dark:bg-slate-800 dark:text-slate-200', t('rows.pending'))}</p>
}
