import { useDeferredValue, useId, useMemo, useState, type FormEvent } from 'react'
import { useTranslation } from 'react-i18next'
import type { MapLabel } from '@/api/map/get-labels'
import { Button } from '@/components/ui/button'
import { MAX_RADIUS_KM, roundCoord, type SearchFilters, type Territory } from '@/domain/search-filters'
import { parseWholeNumber } from '@/lib/parse-number'

/** Case and accents left out, so "munch" finds München. */
const fold = (s: string) => s.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase()

const MAX_CHOICES = 10

/**
 * The keyboard's way to draw: a circle of a radius around a place, as the service's `near`. The places
 * are the map's own labels (every state and city with its position, named in the person's language):
 * the search's chosen ones first, then those whose name holds what was typed, the biggest first.
 */
export function RadiusForm({ filters, places, onApply }: { filters: SearchFilters; places: MapLabel[]; onApply: (t: Territory) => void }) {
  const { t, i18n } = useTranslation('map')
  const lng = i18n.language
  const ids = { radius: useId(), radiusHint: useId(), place: useId(), placeHint: useId(), title: useId() }
  const [radius, setRadius] = useState(() => (filters.territory?.kind === 'circle' ? String(Math.round(filters.territory.radiusKm)) : '10'))
  const [q, setQ] = useState('')
  const [chosen, setChosen] = useState<MapLabel | null>(null)
  const query = fold(useDeferredValue(q).trim())
  // a state's and a city's ids may be the same number: the level tells them apart
  const chosenKeys = useMemo(
    () => new Set([...filters.level1.map((p) => `1:${p.id}`), ...filters.level3.map((p) => `3:${p.id}`)]),
    [filters.level1, filters.level3],
  )
  const choices = useMemo(() => {
    const ofSearch = places.filter((p) => chosenKeys.has(`${p.level}:${p.id}`))
    const found = query.length >= 2 ? places.filter((p) => !chosenKeys.has(`${p.level}:${p.id}`) && fold(p.name).includes(query)) : []
    return [...ofSearch, ...found].slice(0, MAX_CHOICES)
  }, [places, chosenKeys, query])
  // whole kilometres, read in the person's numbers (Thai or Arabic digits too)
  const km = parseWholeNumber(radius, lng, { min: 1, max: MAX_RADIUS_KM })

  const submit = (e: FormEvent) => {
    e.preventDefault()
    if (!chosen || !km.ok) return
    onApply({ kind: 'circle', lat: roundCoord(chosen.latitude), lng: roundCoord(chosen.longitude), radiusKm: km.value, place: chosen.name })
  }

  return (
    <form onSubmit={submit} className="space-y-3" aria-labelledby={ids.title}>
      <h3 id={ids.title} className="text-sm font-medium">
        {t('radiusTitle')}
      </h3>
      <div className="flex flex-wrap items-end gap-3">
        <div>
          <label htmlFor={ids.radius} className="block text-sm">
            {t('radius')}
          </label>
          <input
            id={ids.radius}
            inputMode="numeric"
            className="mt-1 w-24 rounded-md border border-slate-300 bg-white px-2 py-1.5 text-sm dark:border-slate-600 dark:bg-slate-900"
            value={radius}
            aria-describedby={ids.radiusHint}
            aria-invalid={!km.ok}
            onChange={(e) => setRadius(e.target.value)}
          />
        </div>
        <div className="min-w-48 flex-1">
          <label htmlFor={ids.place} className="block text-sm">
            {t('place')}
          </label>
          <input
            id={ids.place}
            type="search"
            autoComplete="off"
            placeholder={t('placePlaceholder')}
            className="mt-1 w-full rounded-md border border-slate-300 bg-white px-2 py-1.5 text-sm dark:border-slate-600 dark:bg-slate-900"
            value={q}
            aria-describedby={ids.placeHint}
            onChange={(e) => setQ(e.target.value)}
          />
        </div>
      </div>
      <p id={ids.radiusHint} className="text-xs text-slate-600 dark:text-slate-400">
        {t('radiusHint')}
      </p>
      <p id={ids.placeHint} className="text-xs text-slate-600 dark:text-slate-400">
        {t('placeHint')}
      </p>
      {query.length >= 2 && choices.length === 0 && <p className="text-sm">{t('noPlace')}</p>}
      {choices.length > 0 && (
        <fieldset>
          <legend className="sr-only">{t('place')}</legend>
          <div className="max-h-40 space-y-1 overflow-y-auto">
            {choices.map((c) => (
              <label key={`${c.level}:${c.id}`} className="flex min-h-8 items-center gap-2 text-sm">
                <input
                  type="radio"
                  name="radius-place"
                  className="size-4"
                  checked={chosen?.id === c.id && chosen.level === c.level}
                  onChange={() => setChosen(c)}
                />
                {c.name}
              </label>
            ))}
          </div>
        </fieldset>
      )}
      <Button type="submit" variant="secondary" disabled={!chosen || !km.ok}>
        {t('apply')}
      </Button>
    </form>
  )
}
