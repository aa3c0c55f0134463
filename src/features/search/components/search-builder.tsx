import { useTranslation } from 'react-i18next'
import { Card } from '@/components/ui/card'
import { Spinner } from '@/components/ui/spinner'
import { withCountries, type SearchFilters } from '../filters'
import { CategoryPicker } from './category-picker'
import { CountryPicker } from './country-picker'
import { FilterChips } from './filter-chips'
import { LevelPickers, PlaceSearch } from './place-pickers'

const FLAGS = [
  ['email', 'hasEmail'],
  ['phone', 'hasPhone'],
  ['website', 'hasWebsite'],
  ['mainActivityOnly', 'mainActivityOnly'],
] as const

/**
 * Every filter of the search; the state itself lives in the address bar (the caller's). While
 * `loading` (a link's ids are being named) it shows only that.
 */
export function SearchBuilder({
  filters,
  onChange,
  loading = false,
}: {
  filters: SearchFilters
  onChange: (next: SearchFilters) => void
  loading?: boolean
}) {
  const { t } = useTranslation('search')
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
  const places = { level1: filters.level1, level2: filters.level2, level3: filters.level3 }
  const single = filters.countries.length === 1 ? filters.countries[0] : undefined
  return (
    <div className="space-y-4">
      <Card title={t('where')}>
        <div className="space-y-4">
          <CountryPicker value={filters.countries} onChange={(codes) => onChange(withCountries(filters, codes))} />
          {filters.countries.length > 0 && (
            <PlaceSearch countries={filters.countries} places={places} onChange={(p) => onChange({ ...filters, ...p })} />
          )}
          {single ? (
            <LevelPickers country={single} places={places} onChange={(p) => onChange({ ...filters, ...p })} />
          ) : (
            filters.countries.length > 1 && <p className="text-sm text-slate-600 dark:text-slate-400">{t('oneCountryForPlaces')}</p>
          )}
        </div>
      </Card>
      <Card title={t('what')}>
        <div className="space-y-4">
          <CategoryPicker value={filters.categories} onChange={(categories) => onChange({ ...filters, categories })} />
          <fieldset>
            <legend className="mb-2 text-sm font-medium">{t('mustHave')}</legend>
            <div className="grid gap-2 sm:grid-cols-2">
              {FLAGS.map(([field, label]) => (
                <label key={field} className="flex min-h-10 items-center gap-3 text-sm">
                  <input
                    type="checkbox"
                    className="size-5 accent-brand-600"
                    checked={filters[field]}
                    onChange={(e) => onChange({ ...filters, [field]: e.target.checked })}
                  />
                  {t(label)}
                </label>
              ))}
            </div>
          </fieldset>
        </div>
      </Card>
      <section aria-labelledby="chosen-filters-title">
        <h2 id="chosen-filters-title" className="mb-2 text-sm font-semibold">
          {t('chosen')}
        </h2>
        <FilterChips filters={filters} onChange={onChange} />
      </section>
    </div>
  )
}
