import { keepPreviousData, useQuery } from '@tanstack/react-query'
import { memo, useState } from 'react'
import { useTranslation } from 'react-i18next'
import { MultiCombobox } from '@/components/ui/combobox'
import { Highlight } from '@/components/ui/highlight'
import { categoriesOptions, type Category } from '@/api/search/get-categories'
import type { NamedId } from '@/domain/search-filters'
import { useDebouncedValue } from '@/lib/use-debounced-value'

export const TYPEAHEAD_DEBOUNCE_MS = 300

/** Type-ahead against the service (≤ 1 request per 300 ms of typing; superseded ones aborted). */
export const CategoryPicker = memo(function CategoryPicker({ value, onChange }: { value: NamedId[]; onChange: (next: NamedId[]) => void }) {
  const { t, i18n } = useTranslation('search')
  const [query, setQuery] = useState('')
  const q = useDebouncedValue(query.trim(), TYPEAHEAD_DEBOUNCE_MS)
  const { data, isFetching, isError } = useQuery({ ...categoriesOptions(q, i18n.language), placeholderData: keepPreviousData })
  const options: Category[] = data ?? []
  const selected: Category[] = value.map(
    (v) => options.find((o) => o.id === v.id) ?? { id: v.id, name: v.name, slug: undefined, name_en: undefined },
  )

  return (
    <MultiCombobox<Category>
      label={t('categories')}
      toggleLabel={t('categoriesToggle')}
      placeholder={t('categoriesPlaceholder')}
      options={options}
      value={selected}
      onChange={(next) => onChange(next.map((c) => ({ id: c.id, name: c.name })))}
      getKey={(c) => c.id}
      getLabel={(c) => c.name}
      renderOption={(c, typed) => (
        <>
          <Highlight text={c.name} query={typed} />
          {c.name_en && c.name_en !== c.name && (
            <span className="ms-2 text-xs opacity-75">
              (<Highlight text={c.name_en} query={typed} />)
            </span>
          )}
        </>
      )}
      query={query}
      onQueryChange={setQuery}
      loading={isFetching}
      loadingLabel={t('loading')}
      emptyText={isError ? t('loadError') : t('noMatch')}
    />
  )
})
