import { describe, expect, it } from 'vitest'
import { historyFiltersSchema } from '@/api/history/get-search-history'
import { searchParamsToFilters } from '@/domain/search-filters'
import { searchLinkFor } from './search-link'

const base = { countries: ['DE'], category: [], level1_location: [], level2_location: [], level3_location: [] }
const read = (link: string) => searchParamsToFilters(new URLSearchParams(link.split('?')[1]))

describe('searchLinkFor keeps the territory (extension geo)', () => {
  it('a polygon as the service stores it comes back as the drawn area', () => {
    const filters = historyFiltersSchema.parse({
      ...base,
      within: {
        type: 'Polygon',
        coordinates: [
          [
            [11.4, 48],
            [11.8, 48],
            [11.8, 48.3],
            [11.4, 48],
          ],
        ],
      },
    })
    expect(read(searchLinkFor({ filters, max_leads: undefined, export_format: 'csv' })).territory).toEqual({
      kind: 'polygon',
      rings: [
        [
          [11.4, 48],
          [11.8, 48],
          [11.8, 48.3],
        ],
      ],
    })
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
