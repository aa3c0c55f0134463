import { describe, expect, it } from 'vitest'
import { historyEntrySchema } from '@/api/history/get-search-history'
import { filterFromParams, matchesFilter, NO_FILTER, withFilter } from './history-filters'

const entry = (patch: Record<string, unknown>) =>
  historyEntrySchema.parse({
    search_id: 12,
    filters: { countries: ['DE'] },
    created_at: '2026-11-01T09:00:00Z',
    status: 'COMPLETED',
    ...patch,
  })

describe('History filters', () => {
  it('finds a search by its name, whatever the case and accents', () => {
    const zurich = entry({ name: 'Zürich Bäckereien' })
    expect(matchesFilter(zurich, { ...NO_FILTER, text: 'zurich' }, 'de')).toBe(true)
    expect(matchesFilter(zurich, { ...NO_FILTER, text: 'BACKEREI' }, 'de')).toBe(true)
    expect(matchesFilter(zurich, { ...NO_FILTER, text: 'Basel' }, 'de')).toBe(false)
    // Hebrew with and without vowel points, Thai with its vowel signs
    expect(matchesFilter(entry({ name: 'בתי קָפֶה בחיפה' }), { ...NO_FILTER, text: 'קפה' }, 'he')).toBe(true)
    expect(matchesFilter(entry({ name: 'ร้านกาแฟ เชียงใหม่' }), { ...NO_FILTER, text: 'กาแฟ' }, 'th')).toBe(true)
    expect(matchesFilter(entry({ name: 'ร้านกาแฟ เชียงใหม่' }), { ...NO_FILTER, text: 'ภูเก็ต' }, 'th')).toBe(false)
  })

  it('finds an export by its number, with or without "#"; an unnamed one by nothing else', () => {
    const unnamed = entry({ search_id: 412, name: null })
    expect(matchesFilter(unnamed, { ...NO_FILTER, text: '#412' }, 'en')).toBe(true)
    expect(matchesFilter(unnamed, { ...NO_FILTER, text: '41' }, 'en')).toBe(true)
    expect(matchesFilter(unnamed, { ...NO_FILTER, text: '#99' }, 'en')).toBe(false)
    expect(matchesFilter(unnamed, { ...NO_FILTER, text: 'shops' }, 'en')).toBe(false)
  })

  it('narrows by a country the search holds and by status (waiting counts as in progress)', () => {
    const several = entry({ filters: { countries: ['de', 'FR'] }, status: 'PENDING' })
    expect(matchesFilter(several, { ...NO_FILTER, country: 'FR' }, 'en')).toBe(true)
    expect(matchesFilter(several, { ...NO_FILTER, country: 'IT' }, 'en')).toBe(false)
    expect(matchesFilter(several, { ...NO_FILTER, status: 'running' }, 'en')).toBe(true)
    expect(matchesFilter(several, { ...NO_FILTER, status: 'failed' }, 'en')).toBe(false)
    expect(matchesFilter(entry({ status: 'failed' }), { ...NO_FILTER, status: 'failed', country: 'DE' }, 'en')).toBe(true)
  })

  it('reads the address, ignores what it cannot read, and writes back without a page', () => {
    expect(filterFromParams(new URLSearchParams('q=shops&country=fr&status=failed'))).toEqual({
      text: 'shops',
      country: 'FR',
      status: 'failed',
    })
    expect(filterFromParams(new URLSearchParams('country=France&status=archived'))).toEqual(NO_FILTER)
    const written = withFilter(new URLSearchParams('watched=1&page=4&q=old'), { text: 'new', country: '', status: 'completed' })
    expect(written.toString()).toBe('watched=1&q=new&status=completed')
  })
})
