import { afterEach, describe, expect, it, vi } from 'vitest'
import { forgetLastSearch, lastSearchPath, rememberLastSearch } from './last-search'

afterEach(() => vi.restoreAllMocks())

describe('the last search', () => {
  it('is the empty search until there is one, and for no account', () => {
    expect(lastSearchPath('3')).toBe('/search')
    rememberLastSearch('3', 'country=DE')
    expect(lastSearchPath(undefined)).toBe('/search')
  })

  it('is kept per account; the search page opened empty keeps it, only New search forgets it', () => {
    rememberLastSearch('3', 'country=DE&email=1')
    rememberLastSearch('4', 'country=FR')
    expect(lastSearchPath('3')).toBe('/search?country=DE&email=1')
    expect(lastSearchPath('4')).toBe('/search?country=FR')
    // /search typed, or the landing after signing in
    rememberLastSearch('3', '')
    expect(lastSearchPath('3')).toBe('/search?country=DE&email=1')
    forgetLastSearch('3')
    expect(lastSearchPath('3')).toBe('/search')
    expect(lastSearchPath('4')).toBe('/search?country=FR')
  })

  it('falls back to the empty search when storage is blocked', () => {
    vi.spyOn(Storage.prototype, 'getItem').mockImplementation(() => {
      throw new DOMException('blocked', 'SecurityError')
    })
    vi.spyOn(Storage.prototype, 'setItem').mockImplementation(() => {
      throw new DOMException('full', 'QuotaExceededError')
    })
    expect(() => rememberLastSearch('3', 'country=DE')).not.toThrow()
    expect(lastSearchPath('3')).toBe('/search')
  })
})
