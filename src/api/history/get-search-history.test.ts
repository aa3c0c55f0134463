import { describe, expect, it } from 'vitest'
import { exportPhase } from '@/domain/export-status'
import { historyEntrySchema } from '@/api/history/get-search-history'

describe('history entries from the service', () => {
  it('statuses in any letter case; anything unknown is still running (decisions.md)', () => {
    expect(exportPhase('COMPLETED')).toBe('completed')
    expect(exportPhase('completed')).toBe('completed')
    expect(exportPhase('Failed')).toBe('failed')
    expect(exportPhase('PROCESSING')).toBe('running')
    expect(exportPhase('queued_for_review')).toBe('running')
  })

  it('tolerates ids as strings or comma lists, flags as "true", and missing optional fields', () => {
    const e = historyEntrySchema.parse({
      search_id: '17',
      filters: { countries: 'DE,FR', category: [3, '9'], level3_location: 'abc', email: 'true', website: false },
      created_at: '2026-11-01T00:00:00Z',
      status: 'completed',
    })
    expect(e.search_id).toBe('17')
    expect(e.filters.countries).toEqual(['DE', 'FR'])
    expect(e.filters.category).toEqual(['3', '9'])
    expect(e.filters.level3_location).toEqual(['abc'])
    expect(e.filters.level1_location).toEqual([])
    expect(e.filters.email).toBe(true)
    expect(e.filters.website).toBe(false)
    expect(e.lead_count).toBe(0)
    expect(e.expires_at).toBeUndefined()
  })

  it('keeps ids opaque: a UUID is an id like any other (decisions.md)', () => {
    const e = historyEntrySchema.parse({
      search_id: '3f2b9c1e-8a4d-4c7e-9b1a-2d5e6f7a8b9c',
      filters: {},
      created_at: '2026-11-01T00:00:00Z',
      status: 'COMPLETED',
      delta_of: 'a1b2',
      lead_count: '120',
    })
    expect(e.search_id).toBe('3f2b9c1e-8a4d-4c7e-9b1a-2d5e6f7a8b9c')
    expect(e.delta_of).toBe('a1b2')
    expect(e.lead_count).toBe(120)
  })

  it('an unreadable filters object still gives an entry (shown as "all leads")', () => {
    const e = historyEntrySchema.parse({ search_id: 1, filters: 'nonsense', created_at: '2026-11-01T00:00:00Z', status: 'FAILED' })
    expect(e.filters.countries).toEqual([])
    expect(exportPhase(e.status)).toBe('failed')
  })
})
