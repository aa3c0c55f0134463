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

  it('reads an API-style link’s `within` (GeoJSON, ring closed) and `near` as the same territory', () => {
    const api = filtersToApiParams({ ...emptyFilters, territory: square })
    expect(isApiStyleLink(api)).toBe(true)
    expect(JSON.parse(api.get('within')!)).toEqual({ type: 'Polygon', coordinates: [[...square.rings[0]!, square.rings[0]![0]]] })
    expect(searchParamsToFilters(api).territory).toEqual(square)
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
    ['broken JSON', 'within=%7B%22type%22'],
    ['coordinates as text', `within=${encodeURIComponent('{"type":"Polygon","coordinates":[[["11","48"],["12","48"],["12","49"]]]}')}`],
    ['JSON that is no polygon', 'within=%7B%22type%22%3A%22Point%22%2C%22coordinates%22%3A%5B1%2C2%5D%7D'],
  ])('drops %s: no territory, the rest of the search stays', (_, query) => {
    const f = searchParamsToFilters(new URLSearchParams(`country=DE&${query}`))
    expect(f.territory).toBeNull()
    expect(f.countries).toEqual(['DE'])
  })

  it('reads a MultiPolygon’s first polygon', () => {
    const multi = JSON.stringify({ type: 'MultiPolygon', coordinates: [[[...square.rings[0]!, square.rings[0]![0]]], [[[0, 0]]]] })
    expect(territoryOf(`within=${encodeURIComponent(multi)}`)).toEqual(square)
  })
})
