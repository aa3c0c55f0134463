import { useQuery } from '@tanstack/react-query'
import { memo, useDeferredValue, useMemo, useState } from 'react'
import { useTranslation } from 'react-i18next'
import { MultiCombobox } from '@/components/ui/combobox'
import { Highlight } from '@/components/ui/highlight'
import { compareNames, countryName } from '@/lib/format'
import { countriesOptions } from '@/api/search/get-countries'

interface CountryOption {
  code: string
  label: string
  english: string
}

const noCountries: CountryOption[] = []

export const CountryPicker = memo(function CountryPicker({ value, onChange }: { value: string[]; onChange: (codes: string[]) => void }) {
  const { t, i18n } = useTranslation('search')
  const lng = i18n.language
  const [query, setQuery] = useState('')
  const { data: answer, isPending, isError } = useQuery(countriesOptions())
  // the list arrives in a render of its own, apart from the one every query's answer is rendered in
  // (synchronous, not interruptible): naming and sorting the countries (250 on a full service) is its heaviest part
  const data = useDeferredValue(answer)

  // names and order come from Intl, whose first use on a page is not free: only once there are countries
  const all = useMemo<CountryOption[]>(() => {
    if (!data) return noCountries
    const compare = compareNames(lng)
    return data
      .map((c) => ({ code: c.code, label: countryName(lng, c.code), english: c.name ?? '' }))
      .sort((a, b) => compare(a.label, b.label))
  }, [data, lng])

  const q = query.trim().toLocaleLowerCase()
  const options = q
    ? all.filter((c) => c.label.toLocaleLowerCase().includes(q) || c.english.toLowerCase().includes(q) || c.code.toLowerCase() === q)
    : all
  const selected = useMemo(
    () => value.map((code) => all.find((c) => c.code === code) ?? { code, label: countryName(lng, code), english: '' }),
    [value, all, lng],
  )

  return (
    <MultiCombobox<CountryOption>
      label={t('countries')}
      toggleLabel={t('countriesToggle')}
      placeholder={t('countriesPlaceholder')}
      options={options}
      value={selected}
      onChange={(next) => onChange(next.map((c) => c.code))}
      getKey={(c) => c.code}
      getLabel={(c) => c.label}
      renderOption={(c, q2) => <Highlight text={c.label} query={q2} />}
      query={query}
      onQueryChange={setQuery}
      loading={isPending || data !== answer}
      loadingLabel={t('loading')}
      emptyText={isError ? t('loadError') : t('noMatch')}
    />
  )
})
