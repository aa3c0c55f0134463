import { useId } from 'react'
import { useTranslation } from 'react-i18next'
import { formatNumber } from '@/lib/format'
import type { WeekUsage } from '@/api/account/get-credit-usage'

const W = 600
const H = 160
const PAD_TOP = 12
const PAD_BOTTOM = 2

const weekLabel = (lng: string, d: Date) => new Intl.DateTimeFormat(lng, { month: 'short', day: 'numeric' }).format(d)

/**
 * Credits spent per week as plain SVG bars (no chart library): the SVG is an image with a written
 * summary, and the same figures are available as a table.
 */
export function UsageChart({ weeks }: { weeks: WeekUsage[] }) {
  const { t, i18n } = useTranslation('account')
  const lng = i18n.language
  const rtl = i18n.dir(lng) === 'rtl'
  const titleId = useId()
  const descId = useId()
  const total = weeks.reduce((s, w) => s + w.credits, 0)
  const peak = weeks.reduce<WeekUsage | null>((best, w) => (!best || w.credits > best.credits ? w : best), null)
  const max = Math.max(1, peak?.credits ?? 0)
  const summary =
    total === 0 || !peak
      ? t('usage.summaryNone', { weeks: weeks.length })
      : t('usage.summary', {
          total: formatNumber(lng, total),
          weeks: weeks.length,
          max: formatNumber(lng, peak.credits),
          week: weekLabel(lng, peak.start),
        })

  // nothing spent (a new account): an empty 250 px frame says nothing; words do
  if (total === 0 || !peak) {
    return (
      <div className="rounded-md border border-dashed border-slate-300 px-4 py-6 text-center text-sm text-slate-700 dark:border-slate-700 dark:text-slate-300">
        <p className="font-medium">{summary}</p>
        <p className="mt-1 text-slate-600 dark:text-slate-400">{t('usage.emptyHint')}</p>
      </div>
    )
  }

  const slot = W / weeks.length
  const barW = slot * 0.6
  const ordered = rtl ? [...weeks].reverse() : weeks

  return (
    <figure>
      <svg
        viewBox={`0 0 ${W} ${H}`}
        className="h-auto w-full text-brand-600 dark:text-brand-500"
        role="img"
        aria-labelledby={titleId}
        aria-describedby={descId}
      >
        <title id={titleId}>{t('usage.title')}</title>
        <desc id={descId}>{summary}</desc>
        <line x1={0} x2={W} y1={H - PAD_BOTTOM} y2={H - PAD_BOTTOM} className="stroke-slate-300 dark:stroke-slate-700" />
        {ordered.map((w, i) => {
          const h = ((H - PAD_TOP - PAD_BOTTOM) * w.credits) / max
          const x = i * slot + (slot - barW) / 2
          return (
            <g key={w.start.toISOString()}>
              <rect x={x} y={H - PAD_BOTTOM - h} width={barW} height={Math.max(h, w.credits > 0 ? 1 : 0)} rx={2} fill="currentColor" />
            </g>
          )
        })}
      </svg>
      {/* the time axis in HTML so it stays readable at any width; flex order follows the text direction */}
      <div aria-hidden="true" className="mt-1 flex justify-between text-xs text-slate-600 dark:text-slate-400">
        <span>{weeks[0] && weekLabel(lng, weeks[0].start)}</span>
        <span>{weeks.at(-1) && weekLabel(lng, weeks.at(-1)!.start)}</span>
      </div>
      <figcaption className="mt-2 text-sm text-slate-700 dark:text-slate-300">{summary}</figcaption>
      <SpendBySource weeks={weeks} />
      <details className="mt-2 text-sm">
        <summary className="cursor-pointer font-medium">{t('usage.showTable')}</summary>
        <table className="mt-2 w-full max-w-sm">
          <thead>
            <tr>
              <th scope="col" className="py-1 text-start font-medium">
                {t('usage.week')}
              </th>
              <th scope="col" className="py-1 text-end font-medium">
                {t('usage.credits')}
              </th>
            </tr>
          </thead>
          <tbody>
            {weeks.map((w) => (
              <tr key={w.start.toISOString()} className="border-t border-slate-100 dark:border-slate-800">
                <td className="py-1">{weekLabel(lng, w.start)}</td>
                <td className="py-1 text-end tabular-nums">{formatNumber(lng, w.credits)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </details>
    </figure>
  )
}

/**
 * Where the credits went (extension scoped_api_keys: exports name the key that started them): shown
 * once any API key spent in the window, the signed-in dashboard first, then each key, most first.
 */
function SpendBySource({ weeks }: { weeks: WeekUsage[] }) {
  const { t, i18n } = useTranslation('account')
  const totals = new Map<string, number>()
  for (const w of weeks) for (const [source, credits] of Object.entries(w.bySource)) totals.set(source, (totals.get(source) ?? 0) + credits)
  if (![...totals.keys()].some((s) => s !== '')) return null
  const rows = [...totals].sort(([a, x], [b, y]) => (a === '' ? -1 : b === '' ? 1 : y - x))
  return (
    <table className="mt-3 w-full max-w-sm text-sm" data-testid="spend-by-source">
      <caption className="text-start font-medium">{t('usage.bySource')}</caption>
      <thead className="sr-only">
        <tr>
          <th scope="col">{t('usage.source')}</th>
          <th scope="col">{t('usage.credits')}</th>
        </tr>
      </thead>
      <tbody>
        {rows.map(([source, credits]) => (
          <tr key={source} className="border-t border-slate-100 dark:border-slate-800">
            <td className="py-1">
              {source === '' ? (
                t('usage.dashboard')
              ) : (
                <>
                  {t('usage.apiKey')}{' '}
                  <bdi dir="ltr" className="font-mono">
                    {source}…
                  </bdi>
                </>
              )}
            </td>
            <td className="py-1 text-end tabular-nums">{formatNumber(i18n.language, credits)}</td>
          </tr>
        ))}
      </tbody>
    </table>
  )
}
