import { describe, expect, it } from 'vitest'
import { historyFiltersSchema } from '@/api/history/get-search-history'
import { searchParamsToFilters } from '@/domain/search-filters'
import { searchLinkFor } from './search-link'

const base = { countries: ['DE'], category: [], level1_location: [], level2_location: [], level3_location: [] }
const read = (link: string) => searchParamsToFilters(new URLSearchParams(link.split('?')[1]))

describe('searchLinkFor keeps the territory (extension geo)', () => {
  it('a polygon as the service stores it goes into the link as the service takes it', () => {
    const within = {
      type: 'Polygon',
      coordinates: [
        [
          [11.4, 48],
          [11.8, 48],
          [11.8, 48.3],
          [11.4, 48],
        ],
      ],
    }
    const filters = historyFiltersSchema.parse({ ...base, within })
    const link = searchLinkFor({ filters, max_leads: undefined, export_format: 'csv' })
    // the search page reads an API-style `within` through its link resolver (link-resolver.test.tsx:
    // the same polygon comes back as the drawn area), outside the address codec of its first load
    expect(JSON.parse(new URLSearchParams(link.split('?')[1]).get('within') ?? 'null')).toEqual(within)
  })

  it('a point and radius comes back as the circle', () => {
    const filters = historyFiltersSchema.parse({ ...base, near: { lat: 48.137, lng: 11.575, radius_km: 10 } })
    expect(read(searchLinkFor({ filters, max_leads: undefined, export_format: 'csv' })).territory).toEqual({
      kind: 'circle',
      lat: 48.137,
      lng: 11.575,
      radiusKm: 10,
      place: undefined,
    })
  })

  it('an entry without one, or with one that does not parse, links without it', () => {
    const filters = historyFiltersSchema.parse({ ...base, within: 'not a shape', near: { lat: 'x' } })
    const link = searchLinkFor({ filters, max_leads: undefined, export_format: 'csv' })
    expect(link).not.toMatch(/within|near/)
    expect(link).toBe('/search?countries=DE&format=csv')
  })
})

describe('searchLinkFor keeps the lists left out (extension lists)', () => {
  it('as the service stores them, a list or comma-separated, they come back as the search’s lists', () => {
    for (const exclude_lists of [[3, 7], '3,7']) {
      const filters = historyFiltersSchema.parse({ ...base, exclude_lists })
      expect(
        new URLSearchParams(searchLinkFor({ filters, max_leads: undefined, export_format: 'csv' }).split('?')[1]).getAll('exclude_lists'),
      ).toEqual(['3', '7'])
    }
  })

  it('an entry without lists links to a search without them', () => {
    const filters = historyFiltersSchema.parse(base)
    expect(searchLinkFor({ filters, max_leads: undefined, export_format: 'csv' })).not.toMatch(/exclude_lists/)
  })
})
