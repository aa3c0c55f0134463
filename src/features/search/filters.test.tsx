import { screen, waitFor } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { http, HttpResponse } from 'msw'
import { describe, expect, it } from 'vitest'
import { server } from '@/testing/msw-server'
import { renderWithProviders } from '@/testing/render'
import { emptyFilters, filtersToSearchParams, searchParamsToFilters, type SearchFilters } from '@/domain/search-filters'
import { useSearchFilters } from './hooks/use-search-filters'

const full: SearchFilters = {
  countries: ['DE', 'AT'],
  categories: [
    { id: '3', name: 'Bäckerei' },
    { id: '17', name: 'Bars: cocktails & more' },
  ],
  level1: [{ id: '1', name: 'Bayern', country: 'DE' }],
  level2: [{ id: '22', name: 'Landkreis München', country: 'DE' }],
  level3: [{ id: '123', name: 'Springfield', country: 'AT' }],
  email: true,
  phone: false,
  website: true,
  mainActivityOnly: true,
  cap: 250,
  format: 'excel',
  territory: { kind: 'circle', lat: 48.13743, lng: 11.57549, radiusKm: 12.5, place: 'München: Altstadt' },
  excludeLists: ['3', '7'],
}

describe('filtersToSearchParams / searchParamsToFilters', () => {
  it('round-trips a full search exactly, names with colons and umlauts included', () => {
    const params = filtersToSearchParams(full)
    expect(searchParamsToFilters(new URLSearchParams(params.toString()))).toEqual(full)
  })

  it('round-trips the empty search to an empty query string', () => {
    expect(filtersToSearchParams(emptyFilters).toString()).toBe('')
    expect(searchParamsToFilters(new URLSearchParams(''))).toEqual(emptyFilters)
  })

  it('ignores garbage in a pasted link instead of failing', () => {
    const f = searchParamsToFilters(new URLSearchParams('country=xx1&country=de&cap=-3&format=pdf&l1=FR:9:Paris&email=yes'))
    expect(f).toEqual({ ...emptyFilters, countries: ['DE'] })
  })
})

/** The service knows every id of `full` under the same names. */
function serviceKnowsFull() {
  server.use(
    http.get('*/api/categories/', () =>
      HttpResponse.json([
        { id: 3, name: 'Bäckerei', name_en: 'Bakery' },
        { id: 17, name: 'Bars: cocktails & more', name_en: 'Bars' },
      ]),
    ),
    http.get('*/api/locations/level1/', ({ request }) =>
      HttpResponse.json(new URL(request.url).searchParams.get('country') === 'DE' ? [{ id: 1, name: 'Bayern' }] : []),
    ),
    http.get('*/api/locations/level2/:id/', () => HttpResponse.json({ id: 22, name: 'Landkreis München', level1_id: 1 })),
    http.get('*/api/locations/level3/', ({ request }) =>
      HttpResponse.json(new URL(request.url).searchParams.get('country') === 'AT' ? [{ id: '123', name: 'Springfield' }] : []),
    ),
  )
}

function Probe() {
  const [filters, setFilters] = useSearchFilters()
  return (
    <div>
      <output data-testid="state">{JSON.stringify(filters)}</output>
      <button type="button" onClick={() => setFilters({ ...filters, phone: !filters.phone })}>
        toggle phone
      </button>
    </div>
  )
}

describe('useSearchFilters (address bar)', () => {
  it('restores a pasted link exactly, and back/forward step through changes', async () => {
    serviceKnowsFull()
    const link = `/search?${filtersToSearchParams(full).toString()}`
    const { router } = renderWithProviders(<Probe />, { route: link })
    const state = () => JSON.parse(screen.getByTestId('state').textContent ?? '') as SearchFilters
    expect(state()).toEqual(full)
    // the names are checked with the service once; they match, so the address stays as pasted
    await waitFor(() => expect(router.state.location.search).toBe(`?${filtersToSearchParams(full).toString()}`))

    await userEvent.click(screen.getByRole('button', { name: 'toggle phone' }))
    await waitFor(() => expect(state()).toEqual({ ...full, phone: true }))
    expect(new URLSearchParams(router.state.location.search).get('phone')).toBe('1')

    await router.navigate(-1)
    await waitFor(() => expect(state()).toEqual(full))
    await router.navigate(1)
    await waitFor(() => expect(state()).toEqual({ ...full, phone: true }))
  })
})

describe('useSearchFilters (what a change renders)', () => {
  it('keeps setFilters and every list a change does not touch, and the address then agrees with what is shown', async () => {
    const seen: { filters: SearchFilters; setFilters: unknown }[] = []
    function Recorder() {
      const [filters, setFilters] = useSearchFilters()
      seen.push({ filters, setFilters })
      return (
        <button type="button" onClick={() => setFilters((f) => ({ ...f, website: true }))}>
          website
        </button>
      )
    }
    const { router } = renderWithProviders(<Recorder />, { route: '/search?country=DE&country=AT&email=1' })
    const first = seen.at(-1)!
    await userEvent.click(screen.getByRole('button', { name: 'website' }))
    await waitFor(() => expect(seen.at(-1)!.filters.website).toBe(true))
    expect(new URLSearchParams(router.state.location.search).get('website')).toBe('1')
    const last = seen.at(-1)!
    expect(last.filters).toEqual({ ...first.filters, website: true })
    expect(last.setFilters).toBe(first.setFilters)
    expect(last.filters.countries).toBe(first.filters.countries)
    expect(last.filters.categories).toBe(first.filters.categories)
    // the address caught up: what was shown at once stays, as the same object
    expect(seen.filter((s) => s.filters.website).every((s) => s.filters === last.filters)).toBe(true)
  })

  it('makes one history entry of changes made at once, and the search shows both', async () => {
    function Twice() {
      const [filters, setFilters] = useSearchFilters()
      return (
        <button
          type="button"
          onClick={() => {
            setFilters((f) => ({ ...f, phone: true }))
            setFilters((f) => ({ ...f, website: true }), { replace: true })
          }}
        >
          {filters.phone && filters.website ? 'both' : 'change'}
        </button>
      )
    }
    const { router } = renderWithProviders(<Twice />, { route: '/search?country=DE' })
    await userEvent.click(screen.getByRole('button', { name: 'change' }))
    expect(await screen.findByRole('button', { name: 'both' })).toBeInTheDocument()
    await waitFor(() => expect(router.state.location.search).toBe('?country=DE&phone=1&website=1'))
    await router.navigate(-1)
    await waitFor(() => expect(router.state.location.search).toBe('?country=DE'))
    expect(await screen.findByRole('button', { name: 'change' })).toBeInTheDocument()
  })
})
