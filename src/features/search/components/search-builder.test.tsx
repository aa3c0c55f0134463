import { screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { http, HttpResponse } from 'msw'
import { describe, expect, it } from 'vitest'
import { lastSearchPath } from '@/lib/last-search'
import { withBalance } from '@/testing/fixtures'
import { server } from '@/testing/msw-server'
import { renderWithProviders } from '@/testing/render'
import { useSearchFilters } from '../hooks/use-search-filters'
import { NewSearchButton, SearchBuilder } from './search-builder'

function Page() {
  const [filters, setFilters] = useSearchFilters()
  return (
    <>
      <NewSearchButton onChange={setFilters} />
      <SearchBuilder filters={filters} onChange={setFilters} />
    </>
  )
}

const seen: URL[] = []

function geoHandlers() {
  seen.length = 0
  server.use(
    http.get('*/api/locations/countries/', () =>
      HttpResponse.json([
        { code: 'DE', name: 'Germany', language: 'de', company_count: 10 },
        { code: 'FR', name: 'France', language: 'fr', company_count: 5 },
      ]),
    ),
    http.get('*/api/locations/level1/', ({ request }) => {
      seen.push(new URL(request.url))
      return HttpResponse.json([
        { id: 1, name: 'Hessen', code: 'DE-HE', country: 'DE' },
        { id: 2, name: 'Brandenburg', code: 'DE-BB', country: 'DE' },
      ])
    }),
    http.get('*/api/locations/level2/', ({ request }) => {
      const url = new URL(request.url)
      seen.push(url)
      const states = url.searchParams.getAll('states')
      const all = [
        { id: 11, name: 'Frankfurt am Main', code: '06412', level1_id: 1, level1_name: 'Hessen' },
        { id: 21, name: 'Frankfurt (Oder)', code: '12053', level1_id: 2, level1_name: 'Brandenburg' },
      ]
      return HttpResponse.json(states.length ? all.filter((c) => states.includes(String(c.level1_id))) : all)
    }),
    http.get('*/api/locations/level3/', ({ request }) => {
      seen.push(new URL(request.url))
      return HttpResponse.json([
        {
          id: '111',
          name: 'Frankfurt am Main',
          code: 'x',
          level2_id: 11,
          level2_name: 'Frankfurt am Main',
          level1_id: 1,
          level1_name: 'Hessen',
        },
      ])
    }),
    http.get('*/api/locations/search/', ({ request }) => {
      seen.push(new URL(request.url))
      return HttpResponse.json({
        level1: [],
        level2: [
          { id: 11, name: 'Frankfurt am Main', level: 2, country: 'DE', level1_id: 1, level1_name: 'Hessen' },
          { id: 21, name: 'Frankfurt (Oder)', level: 2, country: 'DE', level1_id: 2, level1_name: 'Brandenburg' },
        ],
        level3: [
          {
            id: '500',
            name: 'Frankfurt',
            level: 3,
            country: 'DE',
            level1_id: 1,
            level1_name: 'Hessen',
            level2_id: 11,
            level2_name: 'Frankfurt am Main',
          },
          {
            id: '501',
            name: 'Frankfurt',
            level: 3,
            country: 'DE',
            level1_id: 2,
            level1_name: 'Brandenburg',
            level2_id: 21,
            level2_name: 'Frankfurt (Oder)',
          },
        ],
      })
    }),
    http.get('*/api/categories/', () => HttpResponse.json([])),
  )
}

describe('search builder: places on three levels', () => {
  it('narrows counties by the chosen state and cities by both, and tells same-named places apart', async () => {
    geoHandlers()
    const user = userEvent.setup()
    const { router } = renderWithProviders(<Page />, { route: '/search?country=DE' })

    // states → counties narrowed by the chosen state
    await user.click(screen.getByRole('combobox', { name: 'States and regions' }))
    await user.click(await screen.findByRole('option', { name: 'Hessen' }))
    await user.keyboard('{Escape}')
    await waitFor(() => expect(new URLSearchParams(router.state.location.search).getAll('l1')).toEqual(['DE:1:Hessen']))
    await waitFor(() =>
      expect(seen.some((u) => u.pathname.endsWith('/level2/') && u.searchParams.getAll('states').join() === '1')).toBe(true),
    )
    await user.click(screen.getByRole('combobox', { name: 'Counties' }))
    const counties = await screen.findAllByRole('option')
    expect(counties.map((o) => o.textContent)).toEqual(['Frankfurt am Mainin Hessen'])
    await user.click(counties[0]!)
    await user.keyboard('{Escape}')

    // cities asked for with both the state and the county
    await user.click(screen.getByRole('combobox', { name: 'Cities' }))
    expect(await screen.findByRole('option', { name: /Frankfurt am Main/ })).toBeInTheDocument()
    const l3 = seen.filter((u) => u.pathname.endsWith('/level3/')).at(-1)!
    expect([l3.searchParams.getAll('states'), l3.searchParams.getAll('counties')]).toEqual([['1'], ['11']])
    await user.keyboard('{Escape}')

    // the place search shows each place's level and parents
    await user.type(screen.getByRole('combobox', { name: 'Find a place' }), 'Frankf')
    const cities = await screen.findAllByRole('option', { name: /^Frankfurt\s*City/ })
    expect(cities.map((o) => o.textContent)).toEqual([
      'FrankfurtCity · Frankfurt am Main · Hessen',
      'FrankfurtCity · Frankfurt (Oder) · Brandenburg',
    ])
    await user.click(cities[1]!)
    await waitFor(() =>
      expect(new URLSearchParams(router.state.location.search).getAll('l3')).toEqual(['DE:501:Frankfurt (Frankfurt (Oder), Brandenburg)']),
    )
    await user.keyboard('{Escape}')

    // chips, each with its own remove button; removing the country drops its places
    const chips = screen.getByRole('list', { name: 'Chosen filters' })
    expect(
      within(chips)
        .getAllByRole('listitem')
        .map((li) => li.textContent),
    ).toEqual([
      'Country: Germany',
      'Region: Hessen',
      'County: Frankfurt am Main (Hessen)',
      'City: Frankfurt (Frankfurt (Oder), Brandenburg)',
    ])
    await user.click(within(chips).getByRole('button', { name: 'Remove Country: Germany' }))
    await waitFor(() => expect(router.state.location.search).toBe(''))
  }, 15_000)
})

describe('search builder: the last search and what the pickers show', () => {
  it('keeps the search as the account\'s last one, names the choice in the picker, and "New search" starts afresh', async () => {
    geoHandlers()
    const user = userEvent.setup()
    // the profile of account 7
    const { router } = renderWithProviders(<Page />, { route: '/search?country=DE', queryClient: withBalance(100) })
    const countries = screen.getByRole('combobox', { name: 'Countries' })
    await waitFor(() => expect(lastSearchPath('7')).toBe('/search?country=DE'))
    expect(countries).toHaveAttribute('placeholder', 'Germany')
    expect(countries).toHaveAccessibleDescription('Chosen: Germany')

    await user.click(countries)
    await user.click(await screen.findByRole('option', { name: 'France' }))
    await user.keyboard('{Escape}')
    await waitFor(() => expect(lastSearchPath('7')).toBe('/search?country=DE&country=FR'))
    expect(countries).toHaveAttribute('placeholder', 'Germany and France')
    expect(countries).toHaveAccessibleDescription('Chosen: Germany and France')

    await user.click(screen.getByRole('button', { name: 'New search' }))
    await waitFor(() => expect(router.state.location.search).toBe(''))
    await waitFor(() => expect(lastSearchPath('7')).toBe('/search'))
    expect(countries).toHaveAttribute('placeholder', 'Type a country')
    expect(countries).not.toHaveAccessibleDescription()
  })

  it('shows two names and how many more when more are chosen', async () => {
    geoHandlers()
    renderWithProviders(<Page />, { route: '/search?country=DE&country=FR&country=IT&country=PL', queryClient: withBalance(100) })
    const countries = screen.getByRole('combobox', { name: 'Countries' })
    expect(countries).toHaveAttribute('placeholder', 'Germany, France +2')
    expect(countries).toHaveAccessibleDescription('Chosen: Germany, France, Italy, and Poland')
  })
})
