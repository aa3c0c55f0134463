import { useQueries, useQuery } from '@tanstack/react-query'
import { useEffect, useState, type ReactNode } from 'react'
import { useTranslation } from 'react-i18next'
import { countryName, listParts } from '@/lib/format'
import { loadPageNamespaces } from '@/lib/i18n'
import type { HistoryFilters } from '@/api/history/get-search-history'
import { listsOptions } from '@/api/lists/get-lists'
import { categoriesOptions, level1ListOptions, level2Options, level3ListOptions } from '@/api/history/lookups'

/**
 * What was searched, in words: country names from Intl, place and category names from the service.
 * `inline`: one run of text for a table cell, the labels left to screen readers.
 */
export function FilterSummary({ filters, inline = false }: { filters: HistoryFilters; inline?: boolean }) {
  const { t, i18n } = useTranslation(['history', 'lists'])
  const lng = i18n.language
  // the lists the search left out (extension `lists`), named from the account's lists, with their words
  const leftOut = filters.exclude_lists
  const lists = useQuery({ ...listsOptions(), enabled: leftOut.length > 0 })
  const [listWords, setListWords] = useState(false)
  useEffect(() => {
    if (leftOut.length) void loadPageNamespaces(['lists']).then(() => setListWords(true))
  }, [leftOut.length])
  const countries = filters.countries
  const needsLevel1 = filters.level1_location.length > 0
  const needsLevel3 = filters.level3_location.length > 0

  const level1 = useQueries({
    queries: (needsLevel1 ? countries : []).map((c) => level1ListOptions(c)),
  })
  const level3 = useQueries({
    queries: (needsLevel3 ? countries : []).map((c) => level3ListOptions(c)),
  })
  const level2 = useQueries({ queries: filters.level2_location.map((id) => level2Options(id)) })
  const categories = useQuery({ ...categoriesOptions(lng, filters.category), enabled: filters.category.length > 0 })

  type Named = { id: string; name: string; level1_name?: string | null; level2_name?: string | null }
  /** "Springfield (Hampden County, Massachusetts)": places that share a name are told apart by their parent. */
  const withParent = (name: string, parent: string | null | undefined) => (parent ? t('filters.placeIn', { name, parent }) : name)
  const nameIn = (lists: { data?: Named[] | undefined }[], id: string, parentOf: (p: Named) => string | null | undefined) => {
    for (const l of lists) {
      const hit = l.data?.find((x) => x.id === id)
      if (hit) return withParent(hit.name, parentOf(hit))
    }
    return t('filters.place', { id })
  }

  const places = [
    ...filters.level1_location.map((id) => nameIn(level1, id, () => null)),
    ...filters.level2_location.map((id, i) => {
      const p = level2[i]?.data
      return p ? withParent(p.name, p.level1_name) : t('filters.place', { id })
    }),
    // both parents, as the search chips name them: two Greene Counties hold a Springfield each
    ...filters.level3_location.map((id) => nameIn(level3, id, (p) => [p.level2_name, p.level1_name].filter(Boolean).join(', ') || null)),
  ]
  const categoryNames = filters.category.map((id) => {
    const c = categories.data?.find((x) => x.id === id || x.slug === id)
    return c?.name ?? c?.name_en ?? t('filters.category', { id })
  })
  const flags = [
    filters.email && t('filters.email'),
    filters.phone_number && t('filters.phone'),
    filters.website && t('filters.website'),
  ].filter((x): x is string => Boolean(x))

  // each item in its own <bdi>: a Latin place name inside Hebrew must not pull in the list's "ו-" or commas
  const list = (items: string[]): ReactNode =>
    listParts(lng, items).map((p, i) => (p.type === 'element' ? <bdi key={i}>{p.value}</bdi> : p.value))

  // [label, value, the value in a table cell where the label is not seen (when the value alone would not say it)]
  const rows: [string, ReactNode, ReactNode?][] = []
  if (countries.length) rows.push([t('filters.countries'), list(countries.map((c) => countryName(lng, c)))])
  if (categoryNames.length) rows.push([t('filters.categories'), list(categoryNames)])
  if (places.length) rows.push([t('filters.places'), list(places)])
  if (flags.length) {
    const words = listParts(lng, flags)
      .map((p) => p.value)
      .join('')
    rows.push([t('filters.only'), list(flags), t('filters.onlyWith', { list: words })])
  }
  if (filters.main_activity_only) rows.push([t('filters.match'), t('filters.mainActivity')])
  if (leftOut.length && listWords) {
    const names = leftOut.map((id) => lists.data?.find((l) => l.id === id)?.name ?? t('lists:leaveOut.unnamed', { id }))
    const words = listParts(lng, names)
      .map((p) => p.value)
      .join('')
    rows.push([t('lists:leaveOut.summaryLabel'), list(names), t('lists:leaveOut.chip', { name: words })])
  }

  if (!rows.length) {
    return <p className="text-sm text-slate-700 dark:text-slate-300">{t('filters.all')}</p>
  }
  if (inline) {
    return (
      <p className="text-sm">
        {rows.map(([label, value, cell], i) => (
          <span key={label}>
            {i > 0 && <span aria-hidden="true"> · </span>}
            {cell ?? (
              <>
                <span className="sr-only">{label}: </span>
                {value}
              </>
            )}
          </span>
        ))}
      </p>
    )
  }
  return (
    <dl className="grid grid-cols-[auto_1fr] gap-x-3 gap-y-1 text-sm">
      {rows.map(([label, value]) => (
        <div key={label} className="contents">
          <dt className="font-medium text-slate-600 dark:text-slate-400">{label}</dt>
          <dd className="min-w-0 break-words">{value}</dd>
        </div>
      ))}
    </dl>
  )
}
