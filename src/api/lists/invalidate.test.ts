import { QueryClient } from '@tanstack/react-query'
import { describe, expect, it } from 'vitest'
import { exportKeys } from '@/api/exports/keys'
import { searchKeys } from '@/api/search/keys'
import { invalidateList } from './invalidate'

describe('invalidateList', () => {
  it('makes stale the search answers that leave the list out, and only those', async () => {
    const qc = new QueryClient()
    const withList = { countries: ['DE'], exclude_lists: ['3', '7'] }
    const withOther = { countries: ['DE'], exclude_lists: ['4'] }
    const without = { countries: ['DE'] }
    const keys = {
      preview: searchKeys.preview(withList as never, 'en'),
      facets: searchKeys.facets(withList as never, 'en'),
      owned: exportKeys.owned(withList),
      other: searchKeys.preview(withOther as never, 'en'),
      plain: searchKeys.preview(without as never, 'en'),
    }
    for (const key of Object.values(keys)) qc.setQueryData(key, { totalCount: 1 })

    await invalidateList(qc, '7')

    const stale = (key: readonly unknown[]) => qc.getQueryState(key)?.isInvalidated
    expect(stale(keys.preview)).toBe(true)
    expect(stale(keys.facets)).toBe(true)
    expect(stale(keys.owned)).toBe(true)
    expect(stale(keys.other)).toBe(false)
    expect(stale(keys.plain)).toBe(false)
  })
})
