import { useMemo, useState } from 'react'
import { useTranslation } from 'react-i18next'
import type { Cell } from '@/api/search/get-cells'
import type { MapLabel } from '@/api/map/get-labels'
import { formatNumber } from '@/lib/format'
import { areasOf, type Area } from '../cells'

type SortKey = 'name' | 'count' | 'owned'

/** Enough rows to read; the footer's total covers every area in view. */
const MAX_ROWS = 200

/**
 * The map's numbers as a table (the accessible equivalent of the picture): the areas in view, each
 * named by its nearest place, with their leads and how many are already the account's; sortable.
 */
export function AreasTable({ cells, labels, total }: { cells: Cell[]; labels: MapLabel[]; total: number }) {
  const { t, i18n } = useTranslation('map')
  const lng = i18n.language
  const n = (x: number) => formatNumber(lng, x)
  const [sort, setSort] = useState<{ key: SortKey; desc: boolean }>({ key: 'count', desc: true })
  const areas = useMemo(() => areasOf(cells, labels), [cells, labels])
  const nameOf = (a: Area) => a.name ?? t('unnamedArea', { lat: a.lat.toFixed(2), lng: a.lng.toFixed(2) })
  const rows = useMemo(() => {
    const collator = new Intl.Collator(lng)
    const sorted = [...areas].sort((a, b) =>
      sort.key === 'name' ? collator.compare(a.name ?? '', b.name ?? '') : a[sort.key] - b[sort.key] || b.count - a.count,
    )
    if (sort.desc) sorted.reverse()
    return sorted.slice(0, MAX_ROWS)
  }, [areas, sort, lng])
  const columns: [SortKey, string][] = [
    ['name', t('colArea')],
    ['count', t('colLeads')],
    ['owned', t('colOwned')],
  ]
  return (
    <div className="max-h-80 overflow-auto rounded-md border border-slate-200 dark:border-slate-700">
      <table className="w-full text-sm" data-testid="areas-table">
        <caption className="sr-only">{t('tableTitle')}</caption>
        <thead className="sticky top-0 bg-slate-100 dark:bg-slate-800">
          <tr>
            {columns.map(([key, label]) => (
              <th
                key={key}
                scope="col"
                aria-sort={sort.key === key ? (sort.desc ? 'descending' : 'ascending') : undefined}
                className={`px-2 py-1 font-medium ${key === 'name' ? 'text-start' : 'text-end'}`}
              >
                <button
                  type="button"
                  className="inline-flex min-h-8 items-center gap-1 underline-offset-2 hover:underline"
                  aria-label={t('sortBy', { column: label })}
                  onClick={() => setSort((s) => ({ key, desc: s.key === key ? !s.desc : key !== 'name' }))}
                >
                  {label}
                  <span aria-hidden="true">{sort.key === key ? (sort.desc ? '↓' : '↑') : ''}</span>
                </button>
              </th>
            ))}
          </tr>
        </thead>
        <tbody>
          {rows.map((a) => (
            <tr key={`${a.name}:${a.lat}:${a.lng}`} className="border-t border-slate-200 dark:border-slate-700">
              <td className="px-2 py-1">{nameOf(a)}</td>
              <td className="px-2 py-1 text-end tabular-nums">{n(a.count)}</td>
              <td className="px-2 py-1 text-end tabular-nums">{n(a.owned)}</td>
            </tr>
          ))}
        </tbody>
        <tfoot className="border-t-2 border-slate-300 font-semibold dark:border-slate-600">
          <tr>
            <th scope="row" className="px-2 py-1 text-start">
              {t('total')}
            </th>
            <td className="px-2 py-1 text-end tabular-nums" data-testid="areas-total">
              {n(total)}
            </td>
            <td className="px-2 py-1 text-end tabular-nums">{n(cells.reduce((s, c) => s + c.owned, 0))}</td>
          </tr>
        </tfoot>
      </table>
    </div>
  )
}
