import type { ReactNode } from 'react'
import { useTranslation } from 'react-i18next'
import { countryName, formatNumber } from '@/lib/format'
import { emptyFilters, withCountries, type SearchFilters } from '@/domain/search-filters'

interface Chip {
  key: string
  label: string
  remove: () => SearchFilters
}

/** One chip: its label and its own labelled remove button. */
export function ChipItem({ label, removeLabel, onRemove }: { label: string; removeLabel: string; onRemove: () => void }) {
  return (
    <li className="inline-flex items-center gap-1 rounded-full border border-brand-600/30 bg-brand-600/10 py-1 ps-3 pe-1 text-sm">
      <span>{label}</span>
      <button
        type="button"
        aria-label={removeLabel}
        className="inline-flex size-7 items-center justify-center rounded-full hover:bg-brand-600/20"
        onClick={onRemove}
      >
        <svg viewBox="0 0 20 20" className="size-4" aria-hidden="true" fill="currentColor">
          <path d="M6.28 5.22a.75.75 0 0 0-1.06 1.06L8.94 10l-3.72 3.72a.75.75 0 1 0 1.06 1.06L10 11.06l3.72 3.72a.75.75 0 0 0 1.06-1.06L11.06 10l3.72-3.72a.75.75 0 0 0-1.06-1.06L10 8.94 6.28 5.22Z" />
        </svg>
      </button>
    </li>
  )
}

/**
 * Every chosen filter as a chip with its own labelled remove button. `extra`: chips of a part of the search that
 * loads apart from the page's first load (the lists left out, extension `lists`), drawn with the same chip.
 */
export function FilterChips({
  filters,
  onChange,
  extra,
}: {
  filters: SearchFilters
  onChange: (next: SearchFilters) => void
  extra?: ((chip: typeof ChipItem) => ReactNode) | undefined
}) {
  const { t, i18n } = useTranslation('search')
  const lng = i18n.language
  const f = filters
  const t9y = f.territory
  const chips: Chip[] = [
    ...f.countries.map((c) => ({
      key: `country:${c}`,
      label: t('chipCountry', { name: countryName(lng, c) }),
      remove: () =>
        withCountries(
          f,
          f.countries.filter((x) => x !== c),
        ),
    })),
    ...f.categories.map((c) => ({
      key: `cat:${c.id}`,
      label: t('chipCategory', { name: c.name }),
      remove: () => ({ ...f, categories: f.categories.filter((x) => x.id !== c.id) }),
    })),
    ...(['level1', 'level2', 'level3'] as const).flatMap((level) =>
      f[level].map((p) => ({
        key: `${level}:${p.id}`,
        label: t(level === 'level1' ? 'chipLevel1' : level === 'level2' ? 'chipLevel2' : 'chipLevel3', { name: p.name }),
        remove: () => ({ ...f, [level]: f[level].filter((x) => x.id !== p.id) }),
      })),
    ),
    ...(
      [
        ['email', 'hasEmail'],
        ['phone', 'hasPhone'],
        ['website', 'hasWebsite'],
        ['mainActivityOnly', 'mainActivityOnly'],
      ] as const
    )
      .filter(([field]) => f[field])
      .map(([field, label]) => ({ key: field, label: t(label), remove: () => ({ ...f, [field]: false }) })),
    ...(f.cap !== null
      ? [{ key: 'cap', label: t('chipCap', { count: f.cap, formatted: formatNumber(lng, f.cap) }), remove: () => ({ ...f, cap: null }) }]
      : []),
    ...(t9y
      ? [
          {
            key: 'territory',
            label:
              t9y.kind === 'polygon'
                ? t('chipArea')
                : t(t9y.place ? 'chipNear' : 'chipCircle', { km: formatNumber(lng, t9y.radiusKm), place: t9y.place }),
            remove: () => ({ ...f, territory: null }),
          },
        ]
      : []),
  ]

  if (chips.length === 0 && !extra) return <p className="text-sm text-slate-600 dark:text-slate-400">{t('noFilters')}</p>

  return (
    <div className="flex flex-wrap items-center gap-2">
      <ul aria-label={t('chosen')} className="flex flex-wrap gap-2">
        {chips.map((chip) => (
          <ChipItem
            key={chip.key}
            label={chip.label}
            removeLabel={t('remove', { name: chip.label })}
            onRemove={() => onChange(chip.remove())}
          />
        ))}
        {extra?.(ChipItem)}
      </ul>
      <button
        type="button"
        className="text-sm font-medium text-brand-700 underline underline-offset-2 dark:text-brand-100"
        onClick={() => onChange({ ...emptyFilters, format: f.format })}
      >
        {t('clearAll')}
      </button>
    </div>
  )
}
