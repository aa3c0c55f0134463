import { useQueries, useQuery } from '@tanstack/react-query'
import { useEffect, useRef } from 'react'
import { useTranslation } from 'react-i18next'
import { Link, useLocation } from 'react-router'
import { buttonClass } from '@/components/ui/button'
import { Spinner } from '@/components/ui/spinner'
import { paths } from '@/config/paths'
import { requestDelta } from '@/api/history/delta-request'
import { searchHistoryOptions } from '@/api/history/get-search-history'
import { historyKeys } from '@/api/history/keys'
import { formatDate, formatNumber } from '@/lib/format'

/** At most this many recent exports are asked for a free fresh-data dry run (bounded in requests). */
export const FRESH_CANDIDATES = 5

/**
 * A plan for purchased credits that expire within 7 days (issue 11): concrete ways to use exactly them.
 * Fresh-data exports of recent searches whose free dry run costs no more than the expiring amount, and
 * a search capped to it. Each way leads to the usual confirmation; nothing here charges anything.
 */
export function ExpiringCreditsPlan({ expiring, capTo }: { expiring: number; capTo: number }) {
  const { t, i18n } = useTranslation('account')
  const n = (v: number) => formatNumber(i18n.language, v)
  const location = useLocation()
  const root = useRef<HTMLDivElement>(null)
  // the header's "expiring soon" link lands here
  useEffect(() => {
    if (location.hash === '#expiring') root.current?.scrollIntoView({ block: 'start' })
  }, [location.hash])
  // `capTo`: the cap that spends them, in the service's order (more than `expiring` when credits that expire
  // even sooner are spent before them). A fresh-data export cannot be capped, so it uses exactly them only
  // when they are spent first: only then are recent exports asked for one.
  const purchasedFirst = capTo === expiring
  const history = useQuery({ ...searchHistoryOptions(1, 20), enabled: purchasedFirst })
  const candidates = purchasedFirst
    ? (history.data?.results ?? []).filter((e) => e.status.toUpperCase() === 'COMPLETED').slice(0, FRESH_CANDIDATES)
    : []
  const checks = useQueries({
    queries: candidates.map((e) => ({
      queryKey: historyKeys.freshDryRun(e.search_id),
      // dry_run: validates only, charges nothing (decisions.md)
      queryFn: () => requestDelta(e.search_id, true),
      staleTime: 60_000,
      retry: false,
    })),
  })
  const checking = purchasedFirst && (history.isPending || checks.some((c) => c.isPending))
  const fits = candidates
    .map((entry, i) => ({ entry, verdict: checks[i]?.data }))
    .filter(
      ({ verdict }) => verdict && verdict.validation_code === 'ok' && verdict.required_credits > 0 && verdict.required_credits <= expiring,
    )

  return (
    <div ref={root} className="scroll-mt-4 space-y-3 text-sm" data-testid="expiring-plan">
      <p>{t('expiring.intro', { formatted: n(expiring) })}</p>
      <ul className="space-y-2">
        {fits.map(({ entry, verdict }) => (
          <li
            key={entry.search_id}
            className="flex flex-wrap items-center justify-between gap-2 rounded-md border border-slate-200 p-2 dark:border-slate-700"
          >
            <span>
              <span className="block">
                {t('expiring.fresh', { id: entry.search_id, date: formatDate(i18n.language, entry.created_at) })}
              </span>
              <span className="block text-xs text-slate-600 dark:text-slate-400">
                {t('expiring.freshCost', { formatted: n(verdict!.required_credits) })}
              </span>
            </span>
            <Link to={`${paths.history}?fresh=${encodeURIComponent(entry.search_id)}`} className={buttonClass('secondary')}>
              {t('expiring.freshButton')}
            </Link>
          </li>
        ))}
        <li>
          <Link to={`${paths.search}?cap=${capTo}`} className={buttonClass('secondary')}>
            {t('expiring.search', { formatted: n(capTo) })}
          </Link>
        </li>
      </ul>
      {checking && (
        <p className="flex items-center gap-2 text-slate-600 dark:text-slate-400">
          <Spinner className="size-4" />
          {t('expiring.checking')}
        </p>
      )}
      {!checking && fits.length === 0 && candidates.length > 0 && (
        <p className="text-slate-600 dark:text-slate-400">{t('expiring.noFresh')}</p>
      )}
    </div>
  )
}
