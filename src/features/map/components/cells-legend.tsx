import { useTranslation } from 'react-i18next'
import { formatNumber } from '@/lib/format'
import { legendRanges } from '../cells'

/** The colour scale's classes with their ranges of leads per area, in the person's numbers. */
export function CellsLegend({ breaks, max }: { breaks: number[]; max: number }) {
  const { t, i18n } = useTranslation('map')
  const n = (x: number) => formatNumber(i18n.language, x)
  if (!breaks.length) return null
  return (
    <div>
      <h3 className="mb-1 text-sm font-medium">{t('legend')}</h3>
      <ul className="flex flex-wrap gap-x-3 gap-y-1 text-xs" data-testid="map-legend">
        {legendRanges(breaks, max).map((r) => (
          <li key={r.from} className="flex items-center gap-1">
            <span
              className="inline-block size-3 rounded-sm border border-slate-400/50"
              style={{ background: r.colour }}
              aria-hidden="true"
            />
            <span className="tabular-nums">{r.from === r.to ? n(r.from) : t('legendRange', { from: n(r.from), to: n(r.to) })}</span>
          </li>
        ))}
      </ul>
    </div>
  )
}
