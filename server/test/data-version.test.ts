import { describe, expect, it } from 'vitest'
import { settled, VersionedCache, type DataVersion } from '../src/modules/search/data-version.ts'

/** The in-process result cache of issue 13 (modules/search/data-version.ts), on its own. */

const at = (version: number, maxCreatedAt: Date | null = null): DataVersion => ({ version: String(version), maxCreatedAt })

describe('VersionedCache', () => {
  it('computes once per key and version, however many ask at the same time', async () => {
    const cache = new VersionedCache<number>(10, 1e6, () => 8)
    let runs = 0
    const compute = async () => {
      runs++
      await new Promise((r) => setTimeout(r, 10))
      return 42
    }
    const answers = await Promise.all(Array.from({ length: 20 }, () => cache.get(at(1), 'k', compute)))
    expect(answers).toEqual(Array(20).fill(42))
    expect(runs).toBe(1)
    expect(await cache.get(at(1), 'k', compute)).toBe(42)
    expect(runs).toBe(1)
  })

  it('drops everything once a newer version is seen, and stores nothing for an older one', async () => {
    const cache = new VersionedCache<string>(10, 1e6, () => 8)
    await cache.get(at(1), 'k', async () => 'v1')
    expect(await cache.get(at(2), 'k', async () => 'v2')).toBe('v2')
    expect(cache.stats()).toMatchObject({ entries: 1, version: 2n })
    // a request that read version 1 before it moved: computed for it, never kept
    expect(await cache.get(at(1), 'k', async () => 'late v1')).toBe('late v1')
    expect(await cache.get(at(2), 'k', async () => 'never')).toBe('v2')
    expect(await cache.get(at(10), 'k', async () => 'v10')).toBe('v10') // compared as numbers, not text
  })

  it('keeps no failure: the next request computes again', async () => {
    const cache = new VersionedCache<string>(10, 1e6, () => 8)
    await expect(cache.get(at(1), 'k', async () => Promise.reject(new Error('database went away')))).rejects.toThrow('database went away')
    expect(await cache.get(at(1), 'k', async () => 'ok')).toBe('ok')
  })

  it('is bounded in entries and in bytes, evicting the least recently used first', async () => {
    const byEntries = new VersionedCache<string>(3, 1e9, () => 1)
    for (const k of ['a', 'b', 'c']) await byEntries.get(at(1), k, async () => k)
    await byEntries.get(at(1), 'a', async () => 'again') // a is now the most recently used
    await byEntries.get(at(1), 'd', async () => 'd')
    expect(byEntries.stats().entries).toBe(3)
    expect(await byEntries.get(at(1), 'a', async () => 'recomputed')).toBe('a')
    expect(await byEntries.get(at(1), 'b', async () => 'recomputed')).toBe('recomputed')

    const byBytes = new VersionedCache<string>(1_000_000, 10_000, (v) => v.length)
    for (let i = 0; i < 1000; i++) await byBytes.get(at(1), `filters-${i}`, async () => 'x'.repeat(1000))
    const held = byBytes.stats()
    expect(held.bytes).toBeLessThanOrEqual(10_000)
    expect(held.entries).toBeLessThan(10)
  })
})

describe('settled', () => {
  it('is true only when every company already existed at `now` (and the version is known)', () => {
    const now = new Date('2026-06-01T12:00:00Z')
    expect(settled(at(1, null), now)).toBe(true)
    expect(settled(at(1, new Date('2026-06-01T12:00:00Z')), now)).toBe(true)
    expect(settled(at(1, new Date('2026-06-01T12:00:00.001Z')), now)).toBe(false)
    expect(settled(null, now)).toBe(false)
  })
})
