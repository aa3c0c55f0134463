import { useTranslation } from 'react-i18next'
import { Button } from '@/components/ui/button'
import { SelectField, TextField } from '@/components/ui/field'
import { compareNames, countryName } from '@/lib/format'
import { HISTORY_PHASES, isFiltering, NO_FILTER, type HistoryFilter, type HistoryPhase } from '../history-filters'
import type { HistoryView } from '../hooks/use-history-view'

/**
 * Search by name or number (and by place or category when the service searches), country, status, and
 * the choice of cards or table. The countries offered
 * are those of the exports listed: the page shown, or the whole list once a filter reads it (the
 * search page's country list stays out of this page's code, so the two share no chunk).
 */
export function HistoryToolbar({
  byService,
  filter,
  onFilter,
  view,
  onView,
  listedCountries,
}: {
  /** The service searches History (extension `history_search`): it finds places and categories too. */
  byService: boolean
  filter: HistoryFilter
  onFilter: (filter: HistoryFilter) => void
  view: HistoryView
  onView: (view: HistoryView) => void
  listedCountries: readonly string[]
}) {
  const { t, i18n } = useTranslation('history')
  const lng = i18n.language
  const byName = compareNames(lng)
  const countries = [...new Set([...listedCountries, ...(filter.country ? [filter.country] : [])])]
    .map((code) => ({ code, name: countryName(lng, code) }))
    .sort((a, b) => byName(a.name, b.name))

  return (
    <div className="mb-4 flex flex-wrap items-end gap-3">
      <div role="search" className="flex w-full min-w-0 flex-wrap items-end gap-3 sm:w-auto sm:flex-1" aria-label={t('filter.label')}>
        <TextField
          type="search"
          label={byService ? t('filter.textByService') : t('filter.text')}
          value={filter.text}
          onChange={(e) => onFilter({ ...filter, text: e.target.value })}
          className="w-full min-w-0 sm:w-64"
          autoComplete="off"
          enterKeyHint="search"
        />
        <SelectField
          label={t('filter.country')}
          value={filter.country}
          onChange={(e) => onFilter({ ...filter, country: e.target.value })}
          className="min-w-0 flex-1 sm:w-48 sm:flex-none"
        >
          <option value="">{t('filter.allCountries')}</option>
          {countries.map((c) => (
            <option key={c.code} value={c.code}>
              {c.name}
            </option>
          ))}
        </SelectField>
        <SelectField
          label={t('filter.status')}
          value={filter.status}
          onChange={(e) => onFilter({ ...filter, status: e.target.value as HistoryPhase | '' })}
          className="min-w-0 flex-1 sm:w-40 sm:flex-none"
        >
          <option value="">{t('filter.allStatuses')}</option>
          {HISTORY_PHASES.map((phase) => (
            <option key={phase} value={phase}>
              {t(`status.${phase}`)}
            </option>
          ))}
        </SelectField>
        {isFiltering(filter) && (
          // a line of its own on a phone: beside the two lists it would cut their choices short
          <Button variant="ghost" className="w-full sm:w-auto" onClick={() => onFilter(NO_FILTER)}>
            {t('filter.clear')}
          </Button>
        )}
      </div>
      <ViewSwitch view={view} onView={onView} />
    </div>
  )
}

/** Two buttons, the chosen one pressed: each says what it shows, so the choice reads the same to everyone. */
function ViewSwitch({ view, onView }: { view: HistoryView; onView: (view: HistoryView) => void }) {
  const { t } = useTranslation('history')
  const option = (value: HistoryView) => (
    <button
      type="button"
      aria-pressed={view === value}
      onClick={() => onView(value)}
      className={`min-h-10 rounded-md px-3 text-sm font-medium ${
        view === value
          ? 'bg-brand-700 text-white dark:bg-brand-100 dark:text-slate-900'
          : 'text-slate-700 hover:bg-slate-100 dark:text-slate-200 dark:hover:bg-slate-800'
      }`}
    >
      {t(`view.${value}`)}
    </button>
  )
  return (
    <div role="group" aria-label={t('view.label')} className="flex gap-1 rounded-lg border border-slate-300 p-0.5 dark:border-slate-600">
      {option('cards')}
      {option('table')}
    </div>
  )
}
