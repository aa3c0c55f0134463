import { useQueries, useQuery } from '@tanstack/react-query'
import { memo } from 'react'
import { useTranslation } from 'react-i18next'
import { Button } from '@/components/ui/button'
import { Spinner } from '@/components/ui/spinner'
import { useCapability } from '@/api/capabilities/get-capabilities'
import { formatNumber, formatPercent } from '@/lib/format'
import { facetsOptions } from '@/api/search/get-facets'
import { previewOptions } from '@/api/search/get-preview'
import { previewQuery, type SearchFilters } from '@/domain/search-filters'

type Flag = 'email' | 'phone' | 'website'
const FLAGS: { flag: Flag; param: 'email' | 'phone_number' | 'website'; label: 'hasEmail' | 'hasPhone' | 'hasWebsite' }[] = [
  { flag: 'email', param: 'email', label: 'hasEmail' },
  { flag: 'phone', param: 'phone_number', label: 'hasPhone' },
  { flag: 'website', param: 'website', label: 'hasWebsite' },
]

interface Bar {
  key: string
  name: string
  count: number
  /** What choosing the bar makes of the search; none when the search is that already. */
  narrow?: SearchFilters
}

/**
 * Coverage before paying: how many of the matching leads have an email, a phone, a website, and (with the
 * service's `facets` extension) how they spread over the top regions and categories. Asked once the count has
 * settled, cached per filter set; a click on a bar narrows the search to it. Without the extension the three
 * contact bars come from the free count endpoint (at most three requests per search, shared with the count
 * the search shows once narrowed).
 */
export const CoveragePanel = memo(function CoveragePanel({
  filters,
  totalCount,
  ready,
  onNarrow,
}: {
  filters: SearchFilters
  totalCount: number
  ready: boolean
  onNarrow: (next: SearchFilters) => void
}) {
  const { t, i18n } = useTranslation('search')
  const lang = i18n.language
  const query = previewQuery(filters)
  const withFacets = useCapability('facets')
  const facets = useQuery({ ...facetsOptions(query, lang), enabled: ready && withFacets === true })
  const counts = useQueries({
    queries: FLAGS.map(({ flag, param }) => ({
      ...previewOptions({ ...query, [param]: true }, lang),
      placeholderData: undefined,
      enabled: ready && withFacets === false && !filters[flag],
    })),
  })

  const contact: Bar[] = FLAGS.map(({ flag, label }, i) => {
    const count = filters[flag] ? totalCount : withFacets ? facets.data?.[`with_${flag}`] : counts[i]!.data?.totalCount
    return { key: flag, name: t(label), count: count ?? -1, narrow: filters[flag] ? undefined : { ...filters, [flag]: true } }
  })
  const regions: Bar[] = (facets.data?.level1 ?? []).map((r) => ({
    key: `l1-${r.id}`,
    name: r.name,
    count: r.count,
    narrow:
      filters.level1.length === 1 && filters.level1[0]!.id === r.id
        ? undefined
        : { ...filters, level1: [{ id: r.id, name: r.name, country: r.country }] },
  }))
  const categories: Bar[] = (facets.data?.categories ?? []).map((c) => ({
    key: `cat-${c.id}`,
    name: c.name,
    count: c.count,
    narrow:
      filters.categories.length === 1 && filters.categories[0]!.id === c.id
        ? undefined
        : { ...filters, categories: [{ id: c.id, name: c.name }] },
  }))

  const loading = !ready || withFacets === undefined || contact.some((b) => b.count < 0)
  const failed = withFacets ? facets.isError : counts.some((c) => c.isError)
  const retry = () => (withFacets ? void facets.refetch() : counts.forEach((c) => c.isError && void c.refetch()))

  return (
    <section aria-labelledby="coverage-title" aria-busy={loading}>
      <h2 id="coverage-title" className="text-base font-semibold">
        {t('coverage.title')}
      </h2>
      <p className="mt-1 text-sm text-slate-600 dark:text-slate-400">{t('coverage.intro')}</p>
      {failed ? (
        <div role="alert" className="mt-3 flex flex-wrap items-center gap-2 text-sm text-red-700 dark:text-red-400">
          {t('coverage.error')}
          <Button variant="secondary" onClick={retry}>
            {t('retry')}
          </Button>
        </div>
      ) : loading ? (
        <p className="mt-3 flex items-center gap-2 text-sm text-slate-600 dark:text-slate-400">
          <Spinner className="size-4" />
          {t('coverage.loading')}
        </p>
      ) : (
        <div className="mt-3 space-y-4">
          <Bars title={t('coverage.contact')} bars={contact} total={totalCount} onNarrow={onNarrow} />
          {regions.length > 1 && <Bars title={t('coverage.regions')} bars={regions} total={totalCount} onNarrow={onNarrow} />}
          {categories.length > 0 && <Bars title={t('coverage.categories')} bars={categories} total={totalCount} onNarrow={onNarrow} />}
        </div>
      )}
    </section>
  )
})

function Bars({ title, bars, total, onNarrow }: { title: string; bars: Bar[]; total: number; onNarrow: (next: SearchFilters) => void }) {
  const { t, i18n } = useTranslation('search')
  return (
    <div>
      <h3 className="mb-1 text-sm font-medium">{title}</h3>
      <ul className="space-y-1">
        {bars.map((bar) => {
          const share = total > 0 ? Math.min(1, bar.count / total) : 0
          const figures = t('coverage.figures', {
            formatted: formatNumber(i18n.language, bar.count),
            percent: formatPercent(i18n.language, share),
          })
          const content = (
            <>
              <span className="flex items-baseline justify-between gap-2 text-sm">
                <bdi className="min-w-0 truncate">{bar.name}</bdi>
                <span className="shrink-0 tabular-nums text-slate-700 dark:text-slate-300">{figures}</span>
              </span>
              <span aria-hidden="true" className="mt-0.5 block h-1.5 rounded-full bg-slate-200 dark:bg-slate-700">
                <span className="block h-full rounded-full bg-brand-600" style={{ width: `${(share * 100).toFixed(1)}%` }} />
              </span>
            </>
          )
          return (
            <li key={bar.key}>
              {bar.narrow ? (
                <button
                  type="button"
                  className="block w-full rounded-md px-1 py-1 text-start hover:bg-slate-100 focus-visible:outline-2 focus-visible:outline-brand-600 dark:hover:bg-slate-800"
                  onClick={() => onNarrow(bar.narrow!)}
                >
                  {content}
                  <span className="sr-only">{t('coverage.narrow', { name: bar.name })}</span>
                </button>
              ) : (
                <div className="px-1 py-1">{content}</div>
              )}
            </li>
          )
        })}
      </ul>
    </div>
  )
}
