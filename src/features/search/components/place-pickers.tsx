import { keepPreviousData, useQuery } from '@tanstack/react-query'
import { Fragment, memo, useCallback, useMemo, useState } from 'react'
import { useTranslation } from 'react-i18next'
import { MultiCombobox } from '@/components/ui/combobox'
import { Highlight } from '@/components/ui/highlight'
import { countryName } from '@/lib/format'
import { useCapability } from '@/api/capabilities/get-capabilities'
import { level1Options } from '@/api/search/get-level1'
import { level2Options } from '@/api/search/get-level2'
import { level3Options } from '@/api/search/get-level3'
import { placeSearchOptions, type PlaceHit } from '@/api/search/search-places'
import { placeName, type Place, type SearchFilters } from '@/domain/search-filters'
import { useDebouncedValue } from '@/lib/use-debounced-value'
import { TYPEAHEAD_DEBOUNCE_MS } from './category-picker'

/** Long lists (counties, cities) show this many matches; typing narrows them. */
const MAX_SHOWN = 100

export type PlaceLevels = Pick<SearchFilters, 'level1' | 'level2' | 'level3'>

interface ListItem {
  id: string
  name: string
  parents: string[]
}

function localFilter(items: ListItem[], query: string) {
  const q = query.trim().toLocaleLowerCase()
  const matching = q ? items.filter((i) => i.name.toLocaleLowerCase().includes(q)) : items
  return { shown: matching.slice(0, MAX_SHOWN), total: matching.length }
}

const ListPicker = memo(function ListPicker({
  label,
  toggleLabel,
  items,
  chosen,
  country,
  onChange,
  loading,
  error,
  disabled,
  hint,
}: {
  label: string
  toggleLabel: string
  items: ListItem[]
  chosen: Place[]
  country: string
  onChange: (next: Place[]) => void
  loading: boolean
  error: boolean
  disabled?: boolean
  hint?: string
}) {
  const { t } = useTranslation('search')
  const [query, setQuery] = useState('')
  const { shown, total } = localFilter(items, query)
  const selected = chosen.map((p) => items.find((i) => i.id === p.id) ?? { id: p.id, name: p.name, parents: [] })
  return (
    <MultiCombobox<ListItem>
      label={label}
      toggleLabel={toggleLabel}
      placeholder={t('filterPlaceholder')}
      options={shown}
      value={selected}
      onChange={(next) => onChange(next.map((i) => ({ id: i.id, name: placeName(i.name, i.parents), country })))}
      getKey={(i) => i.id}
      getLabel={(i) => i.name}
      renderOption={(i, q) => (
        <>
          <bdi>
            <Highlight text={i.name} query={q} />
          </bdi>
          {i.parents.length > 0 && (
            <span className="block text-xs opacity-75 group-data-focus:opacity-100">{t('inParent', { parent: i.parents.join(', ') })}</span>
          )}
        </>
      )}
      query={query}
      onQueryChange={setQuery}
      loading={loading}
      loadingLabel={t('loading')}
      emptyText={error ? t('loadError') : t('noMatch')}
      footer={total > shown.length ? t('moreOptions', { shown: shown.length, total }) : undefined}
      disabled={disabled}
      hint={hint}
    />
  )
})

/** States/regions, then counties narrowed by the chosen states, then cities of the chosen states and counties. */
export const LevelPickers = memo(function LevelPickers({
  country,
  places,
  onChange,
}: {
  country: string
  places: PlaceLevels
  onChange: (next: PlaceLevels) => void
}) {
  const { t } = useTranslation('search')
  const states = useMemo(() => places.level1.map((p) => p.id), [places.level1])
  const counties = useMemo(() => places.level2.map((p) => p.id), [places.level2])
  const l1 = useQuery(level1Options(country))
  const l2 = useQuery({ ...level2Options(country, states), placeholderData: keepPreviousData })
  const citiesEnabled = states.length + counties.length > 0
  const l3 = useQuery({ ...level3Options(country, states, counties), enabled: citiesEnabled, placeholderData: keepPreviousData })
  const stateItems = useMemo(() => (l1.data ?? []).map((s) => ({ id: s.id, name: s.name, parents: [] })), [l1.data])
  const countyItems = useMemo(
    () => (l2.data ?? []).map((c) => ({ id: c.id, name: c.name, parents: c.level1_name ? [c.level1_name] : [] })),
    [l2.data],
  )
  const cityItems = useMemo(
    () =>
      (citiesEnabled ? (l3.data ?? []) : []).map((c) => ({
        id: c.id,
        name: c.name,
        parents: [c.level2_name, c.level1_name].filter((n): n is string => Boolean(n)),
      })),
    [citiesEnabled, l3.data],
  )
  const changeStates = useCallback((level1: Place[]) => onChange({ ...places, level1 }), [onChange, places])
  const changeCounties = useCallback((level2: Place[]) => onChange({ ...places, level2 }), [onChange, places])
  const changeCities = useCallback((level3: Place[]) => onChange({ ...places, level3 }), [onChange, places])

  return (
    <div className="grid gap-4 sm:grid-cols-3">
      <ListPicker
        label={t('states')}
        toggleLabel={t('statesToggle')}
        items={stateItems}
        chosen={places.level1}
        country={country}
        onChange={changeStates}
        loading={l1.isFetching}
        error={l1.isError}
      />
      <ListPicker
        label={t('counties')}
        toggleLabel={t('countiesToggle')}
        items={countyItems}
        chosen={places.level2}
        country={country}
        onChange={changeCounties}
        loading={l2.isFetching}
        error={l2.isError}
      />
      <ListPicker
        label={t('cities')}
        toggleLabel={t('citiesToggle')}
        items={cityItems}
        chosen={places.level3}
        country={country}
        onChange={changeCities}
        loading={citiesEnabled && l3.isFetching}
        error={l3.isError}
        disabled={!citiesEnabled && places.level3.length === 0}
        hint={citiesEnabled ? undefined : t('citiesNeedParent')}
      />
    </div>
  )
})

interface HitOption {
  key: string
  level: 1 | 2 | 3
  id: string
  name: string
  /** The place's name in another language that the query matched (extension `place_names`). */
  matchedName?: string
  country: string
  parents: string[]
}

const levelField = { 1: 'level1', 2: 'level2', 3: 'level3' } as const

function toOption(hit: PlaceHit, fallbackCountry: string, level: 1 | 2 | 3, withMatchedName: boolean): HitOption {
  return {
    key: `${level}:${hit.id}`,
    level,
    id: hit.id,
    name: hit.name,
    matchedName: withMatchedName && hit.matched_name !== hit.name ? hit.matched_name : undefined,
    country: (hit.country ?? fallbackCountry).toUpperCase(),
    parents: [hit.level2_name, hit.level1_name].filter((n): n is string => Boolean(n)),
  }
}

const toPlace = (h: HitOption): Place => ({ id: h.id, name: placeName(h.name, h.parents), country: h.country })

/** Case- and accent-insensitive words, as the service matches names ("Mü" finds München). */
const fold = (s: string) =>
  s
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/ł/gi, 'l')
    .replace(/ß/g, 'ss')
    .toLowerCase()
    .replace(/[’'`]/g, '')
    .replace(/[^\p{L}\p{M}\p{N}]+/gu, ' ')
    .trim()

/** 0 the whole name, 1 its start, 2 a later word's start, 3 anywhere else (or matched otherwise by the service). */
function matchRank(h: HitOption, query: string): number {
  const name = fold(h.matchedName ?? h.name)
  if (name === query) return 0
  if (name.startsWith(query)) return 1
  return name.includes(` ${query}`) ? 2 : 3
}

/**
 * The service answers each level apart, each best first; one list shows them all, so they are merged
 * by how well each name matches: "Mü" lists München (city and county) before Dortmund County, which
 * only contains it. Within a rank the service's order stands, the levels taking turns.
 */
function byMatch(levels: HitOption[][], q: string): HitOption[] {
  const query = fold(q)
  return levels
    .flatMap((hits) => hits.map((h, index) => ({ h, index, rank: matchRank(h, query) })))
    .sort((a, b) => a.rank - b.rank || a.index - b.index || a.h.level - b.h.level)
    .map(({ h }) => h)
}

/** A place's name, and the other language's name that found it: "München (Munich)". Names are isolated (bidi). */
function HitName({ hit, query }: { hit: HitOption; query: string }) {
  return (
    <>
      <bdi>
        <Highlight text={hit.name} query={query} />
      </bdi>
      {hit.matchedName && (
        <>
          {' ('}
          <bdi>
            <Highlight text={hit.matchedName} query={query} />
          </bdi>
          {')'}
        </>
      )}
    </>
  )
}

/** One box that finds a place on any level by name; parents tell apart places that share a name. */
export const PlaceSearch = memo(function PlaceSearch({
  countries,
  places,
  onChange,
}: {
  countries: string[]
  places: PlaceLevels
  onChange: (next: PlaceLevels) => void
}) {
  const { t, i18n } = useTranslation('search')
  const [query, setQuery] = useState('')
  const q = useDebouncedValue(query.trim(), TYPEAHEAD_DEBOUNCE_MS)
  // nothing of an extension shows while the capabilities are asked for, nor without it
  const withMatchedName = useCapability('place_names') === true
  const single = countries.length === 1 ? countries[0] : undefined
  const { data, isFetching, isError } = useQuery({
    ...placeSearchOptions({
      q,
      country: single,
      states: places.level1.map((p) => p.id),
      counties: places.level2.map((p) => p.id),
      lng: withMatchedName ? i18n.language : undefined,
    }),
    placeholderData: keepPreviousData,
  })
  const fallback = single ?? countries[0] ?? ''
  const hits: HitOption[] =
    q.length >= 2 && data
      ? byMatch(
          ([1, 2, 3] as const).map((level) =>
            data[levelField[level]].map((h) => toOption(h, fallback, level, withMatchedName)).filter((h) => countries.includes(h.country)),
          ),
          q,
        )
      : []
  const levelName = { 1: t('levelStates'), 2: t('levelCounties'), 3: t('levelCities') }
  const selected: HitOption[] = ([1, 2, 3] as const).flatMap((level) =>
    places[levelField[level]].map((p) => ({ key: `${level}:${p.id}`, level, id: p.id, name: p.name, country: p.country, parents: [] })),
  )

  return (
    <MultiCombobox<HitOption>
      label={t('placeSearch')}
      toggleLabel={t('placeSearchToggle')}
      placeholder={t('placeSearchPlaceholder')}
      hint={t('placeSearchHint')}
      options={hits}
      value={selected}
      onChange={(next) =>
        onChange({
          level1: next.filter((h) => h.level === 1).map(toPlace),
          level2: next.filter((h) => h.level === 2).map(toPlace),
          level3: next.filter((h) => h.level === 3).map(toPlace),
        })
      }
      getKey={(h) => h.key}
      getLabel={(h) => (h.matchedName ? `${h.name} (${h.matchedName})` : h.name)}
      renderOption={(h, typed) => (
        <>
          <HitName hit={h} query={typed} />
          {/* faded white on the active option's brand colour would fall below 4.5:1: full white there */}
          <span className="block text-xs opacity-75 group-data-focus:opacity-100">
            {levelName[h.level]}
            {h.parents.map((parent, i) => (
              <Fragment key={i}>
                {' · '}
                <bdi>{parent}</bdi>
              </Fragment>
            ))}
            {countries.length > 1 && ` · ${countryName(i18n.language, h.country)}`}
          </span>
        </>
      )}
      query={query}
      onQueryChange={setQuery}
      loading={isFetching}
      loadingLabel={t('loading')}
      emptyText={q.length >= 2 ? (isError ? t('loadError') : data === null ? t('placeSearchUnavailable') : t('noMatch')) : undefined}
    />
  )
})
