import { describe, expect, it } from 'vitest'
import {
  emptyFilters,
  filtersToApiParams,
  filtersToSearchParams,
  isApiStyleLink,
  previewQuery,
  searchParamsToFilters,
  type SearchFilters,
  type Territory,
} from './search-filters'

const square: Territory = {
  kind: 'polygon',
  rings: [
    [
      [11.4, 48.1],
      [11.7, 48.1],
      [11.7, 48.25],
      [11.4, 48.25],
    ],
  ],
}
const withHole: Territory = {
  kind: 'polygon',
  rings: [
    ...square.rings,
    [
      [11.5, 48.15],
      [11.6, 48.15],
      [11.55, 48.2],
    ],
  ],
}
const around: Territory = { kind: 'circle', lat: 48.13743, lng: -11.57549, radiusKm: 10, place: 'München: Altstadt' }

const roundTrip = (f: SearchFilters) => searchParamsToFilters(new URLSearchParams(filtersToSearchParams(f).toString()))
const territoryOf = (query: string) => searchParamsToFilters(new URLSearchParams(query)).territory

describe('the territory in the address', () => {
  it('round-trips a polygon (with a hole), a circle with and without its place, exactly', () => {
    for (const territory of [square, withHole, around, { kind: 'circle', lat: -33.5, lng: 151.2, radiusKm: 200 } as const]) {
      expect(roundTrip({ ...emptyFilters, countries: ['DE'], territory })).toEqual({ ...emptyFilters, countries: ['DE'], territory })
    }
  })

  it('keeps the address short and readable: plain decimals joined by "_", left unescaped', () => {
    const query = filtersToSearchParams({ ...emptyFilters, territory: square }).toString()
    expect(query).toBe('area=11.4_48.1_11.7_48.1_11.7_48.25_11.4_48.25')
  })

  // an API-style link's `within` (GeoJSON) is read by the link resolver (features/search/link-resolver.test.tsx)
  it('reads an API-style link’s `near` as the same circle, and leaves its `within` to the link resolver', () => {
    const api = filtersToApiParams({ ...emptyFilters, territory: square })
    expect(isApiStyleLink(api)).toBe(true)
    expect(searchParamsToFilters(api).territory).toBeNull()
    expect(territoryOf('near=48.13743,-11.57549,10')).toEqual({ ...around, place: undefined })
  })

  it('gives the preview (and so the count, coverage, sample, export) the service’s `within` and `near`', () => {
    expect(previewQuery({ ...emptyFilters, territory: around })).toMatchObject({ near: '48.13743,-11.57549,10', within: undefined })
    const q = previewQuery({ ...emptyFilters, territory: withHole })
    expect(JSON.parse(q.within!).coordinates).toHaveLength(2)
    expect(previewQuery(emptyFilters)).toMatchObject({ within: undefined, near: undefined })
  })

  it.each([
    ['a ring of two points', 'area=11.4_48.1_11.7_48.1'],
    ['an odd number of values', 'area=11.4_48.1_11.7_48.1_11.7'],
    ['a latitude off the globe', 'area=11.4_91_11.7_48.1_11.7_48.25'],
    ['text for a number', 'area=11.4_48.1_x_48.1_11.7_48.25'],
    ['an empty value', 'area=11.4__11.7_48.1_11.7_48.25_1_1'],
    ['one good ring and one bad', 'area=11.4_48.1_11.7_48.1_11.7_48.25&area=1_2'],
    ['more than 1,000 vertices', `area=${Array.from({ length: 1001 }, (_, i) => `${i / 100}_${i / 1000}`).join('_')}`],
    ['a radius of 0', 'near=48.1,11.5,0'],
    ['a radius over 200 km', 'near=48.1,11.5,5000'],
    ['a circle without a radius', 'near=48.1,11.5'],
    ['a circle with a fourth number', 'near=48.1,11.5,10,4'],
    ['a centre off the globe', 'near=48.1,200,10'],
  ])('drops %s: no territory, the rest of the search stays', (_, query) => {
    const f = searchParamsToFilters(new URLSearchParams(`country=DE&${query}`))
    expect(f.territory).toBeNull()
    expect(f.countries).toEqual(['DE'])
  })
})

describe('the lists left out in the address (extension `lists`)', () => {
  it('keeps them compact as `xl=3.7`, round-trips them and sends them as `exclude_lists`', () => {
    const f: SearchFilters = { ...emptyFilters, countries: ['DE'], excludeLists: ['3', '7'] }
    expect(filtersToSearchParams(f).get('xl')).toBe('3.7')
    expect(roundTrip(f)).toEqual(f)
    expect(previewQuery(f).exclude_lists).toEqual(['3', '7'])
    // without lists the query holds no `exclude_lists` at all
    expect(previewQuery(emptyFilters).exclude_lists).toBeUndefined()
  })

  it('reads the API-style `exclude_lists` as an API-style link, and writes it back in that form', () => {
    const api = filtersToApiParams({ ...emptyFilters, excludeLists: ['12'] })
    expect(api.getAll('exclude_lists')).toEqual(['12'])
    expect(isApiStyleLink(api)).toBe(true)
  })

  it('drops malformed and repeated ids, and keeps at most 20', () => {
    expect(searchParamsToFilters(new URLSearchParams('xl=3..3.a%20b.7')).excludeLists).toEqual(['3', '7'])
    const many = Array.from({ length: 25 }, (_, i) => String(i + 1))
    expect(searchParamsToFilters(new URLSearchParams(`xl=${many.join('.')}`)).excludeLists).toEqual(many.slice(0, 20))
  })
})
