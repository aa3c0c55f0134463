import { useQuery } from '@tanstack/react-query'
import { useMemo, useState } from 'react'
import { useTranslation } from 'react-i18next'
import { Highlight, MultiCombobox } from '@/components/ui/combobox'
import { countryName } from '@/lib/format'
import { countriesOptions } from '../api/get-countries'

interface CountryOption {
  code: string
  label: string
  english: string
}

export function CountryPicker({ value, onChange }: { value: string[]; onChange: (codes: string[]) => void }) {
  const { t, i18n } = useTranslation('search')
  const lng = i18n.language
  const [query, setQuery] = useState('')
  const { data, isPending, isError } = useQuery(countriesOptions())

  const all = useMemo<CountryOption[]>(() => {
    const collator = new Intl.Collator(lng)
    return (data ?? [])
      .map((c) => ({ code: c.code, label: countryName(lng, c.code), english: c.name ?? '' }))
      .sort((a, b) => collator.compare(a.label, b.label))
  }, [data, lng])

  const q = query.trim().toLocaleLowerCase()
  const options = q
    ? all.filter(
        (c) => c.label.toLocaleLowerCase().includes(q) || c.english.toLowerCase().includes(q) || c.code.toLowerCase() === q,
      )
    : all
  const selected = value.map((code) => all.find((c) => c.code === code) ?? { code, label: countryName(lng, code), english: '' })

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
      loading={isPending}
      loadingLabel={t('loading')}
      emptyText={isError ? t('loadError') : t('noMatch')}
    />
  )
}
