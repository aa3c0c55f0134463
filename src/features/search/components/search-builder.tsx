import { memo, startTransition, useCallback, useDeferredValue, useEffect, useMemo, useOptimistic, type ComponentProps } from 'react'
import { useTranslation } from 'react-i18next'
import { useProfile } from '@/api/account/profile'
import { Button } from '@/components/ui/button'
import { Card } from '@/components/ui/card'
import { Spinner } from '@/components/ui/spinner'
import { emptyFilters, filtersToSearchParams, withCountries, type NamedId, type SearchFilters } from '@/domain/search-filters'
import { forgetLastSearch, rememberLastSearch } from '@/lib/last-search'
import type { FiltersChange } from '../hooks/use-search-filters'
import { CategoryPicker } from './category-picker'
import { CountryPicker } from './country-picker'
import { FilterChips } from './filter-chips'
import { LevelPickers, PlaceSearch, type PlaceLevels } from './place-pickers'

const FLAGS = [
  ['email', 'hasEmail'],
  ['phone', 'hasPhone'],
  ['website', 'hasWebsite'],
  ['mainActivityOnly', 'mainActivityOnly'],
] as const

type Flag = (typeof FLAGS)[number][0]

/**
 * One "must have" checkbox. The tick is shown at once (an optimistic state, rendered on its own),
 * while the search it changes, with the page that follows it, renders as a transition in slices: the
 * frame after the click waits for this checkbox only, not for the whole page.
 */
const FlagCheckbox = memo(function FlagCheckbox({
  field,
  checked,
  label,
  onChange,
}: {
  field: Flag
  checked: boolean
  label: string
  onChange: (change: FiltersChange) => void
}) {
  const [shown, show] = useOptimistic(checked)
  return (
    <label className="flex min-h-10 items-center gap-3 text-sm">
      <input
        type="checkbox"
        className="size-5 accent-brand-600"
        checked={shown}
        onChange={(e) => {
          const on = e.target.checked
          startTransition(() => {
            show(on)
            onChange((f) => ({ ...f, [field]: on }))
          })
        }}
      />
      {label}
    </label>
  )
})

/**
 * "New search", beside the page's heading where a person looks for it: the search stays until the
 * person starts another one on purpose (an empty search is no last search).
 */
export const NewSearchButton = memo(function NewSearchButton({ onChange }: { onChange: (change: FiltersChange) => void }) {
  const { t } = useTranslation('search')
  const profileId = useProfile().data?.id
  return (
    <Button
      variant="secondary"
      onClick={() => {
        if (profileId !== undefined) forgetLastSearch(String(profileId))
        onChange(emptyFilters)
      }}
    >
      {t('newSearch')}
    </Button>
  )
})

/**
 * Every filter of the search; the state itself lives in the address bar (the caller's). While
 * `loading` (a link's ids are being named) it shows only that. `onChange` should keep its identity
 * (useSearchFilters' does): each picker then renders again only when its own filter changes.
 */
export const SearchBuilder = memo(function SearchBuilder({
  filters,
  onChange,
  loading = false,
  extraChips,
}: {
  filters: SearchFilters
  onChange: (change: FiltersChange) => void
  loading?: boolean
  /** Chips of a part of the search that loads apart (the lists left out), drawn with the chips' own chip. */
  extraChips?: ComponentProps<typeof FilterChips>['extra']
}) {
  const { t } = useTranslation('search')
  // rendered at each change of the search: its fixed texts are looked up once (t() is not free)
  const labels = useMemo(
    () => ({
      where: t('where'),
      what: t('what'),
      mustHave: t('mustHave'),
      chosen: t('chosen'),
      flags: FLAGS.map(([, label]) => t(label)),
    }),
    [t],
  )
  const { level1, level2, level3 } = filters
  const places = useMemo(() => ({ level1, level2, level3 }), [level1, level2, level3])
  // the place pickers a country brings appear in a render of their own, after the country shows as chosen
  const countries = useDeferredValue(filters.countries)
  const changeCountries = useCallback((codes: string[]) => onChange((f) => withCountries(f, codes)), [onChange])
  const changePlaces = useCallback((p: PlaceLevels) => onChange((f) => ({ ...f, ...p })), [onChange])
  const changeCategories = useCallback((categories: NamedId[]) => onChange((f) => ({ ...f, categories })), [onChange])
  // the search as the address holds it is the account's last search, which the navigation's "Search"
  // opens again; a link still being named is not a search yet
  const profileId = useProfile().data?.id
  const query = loading ? null : filtersToSearchParams(filters).toString()
  useEffect(() => {
    if (profileId !== undefined && query !== null) rememberLastSearch(String(profileId), query)
  }, [profileId, query])
  if (loading) {
    return (
      <Card>
        <div className="flex min-h-24 items-center gap-3 text-sm" role="status" aria-busy="true">
          <Spinner className="size-6" />
          {t('openingLink')}
        </div>
      </Card>
    )
  }
  const single = countries.length === 1 ? countries[0] : undefined
  return (
    <div className="space-y-4">
      <Card title={labels.where}>
        <div className="space-y-4">
          <CountryPicker value={filters.countries} onChange={changeCountries} />
          {countries.length > 0 && <PlaceSearch countries={countries} places={places} onChange={changePlaces} />}
          {single ? (
            <LevelPickers country={single} places={places} onChange={changePlaces} />
          ) : (
            countries.length > 1 && <p className="text-sm text-slate-600 dark:text-slate-400">{t('oneCountryForPlaces')}</p>
          )}
        </div>
      </Card>
      <Card title={labels.what}>
        <div className="space-y-4">
          <CategoryPicker value={filters.categories} onChange={changeCategories} />
          <fieldset>
            <legend className="mb-2 text-sm font-medium">{labels.mustHave}</legend>
            <div className="grid gap-2 sm:grid-cols-2">
              {FLAGS.map(([field], i) => (
                <FlagCheckbox key={field} field={field} checked={filters[field]} label={labels.flags[i] ?? field} onChange={onChange} />
              ))}
            </div>
          </fieldset>
        </div>
      </Card>
      <section aria-labelledby="chosen-filters-title">
        <h2 id="chosen-filters-title" className="mb-2 text-sm font-semibold">
          {labels.chosen}
        </h2>
        <FilterChips filters={filters} onChange={onChange} extra={extraChips} />
      </section>
    </div>
  )
})
