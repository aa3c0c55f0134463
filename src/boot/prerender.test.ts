import { describe, expect, it } from 'vitest'
import { paths } from '@/config/paths'
import { routeSources } from './prerender'

const SHELL = 'src/app/routes/shell.tsx'

describe('what the build names on each page for the entry to fetch (dist/.vite/routes.json)', () => {
  it('reads every address of the dashboard off the router: its layout, its page and the English strings it loads', async () => {
    const sources = await routeSources()
    const addresses = Object.values(paths).filter((p) => typeof p === 'string')
    expect(Object.keys(sources).sort()).toEqual(addresses.sort())
    expect(sources[paths.signIn]).toEqual(['src/app/routes/sign-in.tsx'])
    // the test setup has loaded every page's strings already: each page's are seen all the same
    expect(sources[paths.search]).toEqual([SHELL, 'src/app/routes/search.tsx', 'locales/en/search.json'])
    expect(sources[paths.exportJobPattern]).toEqual([SHELL, 'src/app/routes/export-job.tsx', 'locales/en/exports.json'])
    expect(sources[paths.apiKeys]).toEqual([SHELL, 'src/app/routes/api-keys.tsx', 'locales/en/apikeys.json'])
    // the home address redirects to the search page, whose files the browser needs next
    expect(sources[paths.home]).toEqual(sources[paths.search])
  })
})
