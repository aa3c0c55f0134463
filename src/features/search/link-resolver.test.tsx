import { screen } from '@testing-library/react'
import { http, HttpResponse } from 'msw'
import { afterAll, afterEach, describe, expect, it } from 'vitest'
import { server } from '@/testing/msw-server'
import { createTestQueryClient, renderWithProviders } from '@/testing/render'
import { emptyFilters, filtersToApiParams, isApiStyleLink, type Territory } from '@/domain/search-filters'
import { usePreview } from './hooks/use-preview'
import { useSearchFilters } from './hooks/use-search-filters'
import { categoriesByIdsOptions } from '@/api/search/get-categories'
import { level1Options } from '@/api/search/get-level1'
import { level2OneOptions } from '@/api/search/get-level2'
import { level3Options } from '@/api/search/get-level3'
import { resolveApiLink } from './link-resolver'

const lookups = { categoriesByIdsOptions, level1Options, level2OneOptions, level3Options }

const requests: URL[] = []
const onRequest = ({ request }: { request: Request }) => void requests.push(new URL(request.url))
server.events.on('request:start', onRequest)
afterEach(() => {
  requests.length = 0
})
afterAll(() => {
  server.events.removeListener('request:start', onRequest)
})

const level1 = {
  DE: [
    { id: 3, name: 'Bavaria', code: 'DE-BY', country: 'DE' },
    { id: 4, name: 'Hesse', code: 'DE-HE', country: 'DE' },
  ],
  AT: [{ id: 9, name: 'Tyrol', code: 'AT-7', country: 'AT' }],
} as Record<string, unknown[]>
const level3 = {
  DE: [{ id: '77', name: 'Munich', code: 'm', level2_id: 20, level2_name: 'Upper Bavaria', level1_id: 3, level1_name: 'Bavaria' }],
  AT: [{ id: '78', name: 'Innsbruck', code: 'i', level2_id: 21, level2_name: 'Innsbruck-Land', level1_id: 9, level1_name: 'Tyrol' }],
} as Record<string, unknown[]>
const level2 = {
  20: { id: 20, name: 'Upper Bavaria', code: 'ob', level1_id: 3, level1_name: 'Bavaria' },
  21: { id: 21, name: 'Innsbruck-Land', code: 'il', level1_id: 9, level1_name: 'Tyrol' },
} as Record<string, unknown>
const categories = [
  { id: 12, slug: 'bakery', name: 'Bakery', name_en: 'Bakery' },
  { id: 13, slug: 'florist', name: 'Florist', name_en: 'Florist' },
]

function serviceHandlers() {
  server.use(
    http.get('*/api/categories/', ({ request }) => {
      const ids = new URL(request.url).searchParams.getAll('ids').flatMap((v) => v.split(','))
      return HttpResponse.json(categories.filter((c) => ids.includes(String(c.id))))
    }),
    http.get('*/api/locations/level1/', ({ request }) =>
      HttpResponse.json(level1[new URL(request.url).searchParams.get('country') ?? ''] ?? []),
    ),
    http.get('*/api/locations/level3/', ({ request }) =>
      HttpResponse.json(level3[new URL(request.url).searchParams.get('country') ?? ''] ?? []),
    ),
    http.get('*/api/locations/level2/:id/', ({ params }) => {
      const item = level2[String(params.id)]
      return item ? HttpResponse.json(item) : HttpResponse.json({ detail: 'No such level-2 location.' }, { status: 404 })
    }),
  )
}

const historyLink =
  'countries=DE&countries=AT&category=12&category=13&level1_location=3&level2_location=20,21&level3_location=77' +
  '&email=true&phone_number=true&website=true&main_activity_only=true&max_leads=50&format=excel&exclude_lists=4,9' +
  `&within=${encodeURIComponent('{"type":"Polygon","coordinates":[[[11.4,48.1],[11.7,48.1],[11.7,48.25],[11.4,48.1]]]}')}`

describe('resolveApiLink', () => {
  it('names every id of a full API-style link with the service’s answers', async () => {
    serviceHandlers()
    const result = await resolveApiLink(createTestQueryClient(), new URLSearchParams(historyLink), 'de', lookups)
    expect(result).toEqual({
      dropped: false,
      filters: {
        countries: ['DE', 'AT'],
        categories: [
          { id: '12', name: 'Bakery' },
          { id: '13', name: 'Florist' },
        ],
        level1: [{ id: '3', name: 'Bavaria', country: 'DE' }],
        level2: [
          { id: '20', name: 'Upper Bavaria (Bavaria)', country: 'DE' },
          { id: '21', name: 'Innsbruck-Land (Tyrol)', country: 'AT' },
        ],
        level3: [{ id: '77', name: 'Munich (Upper Bavaria, Bavaria)', country: 'DE' }],
        email: true,
        phone: true,
        website: true,
        mainActivityOnly: true,
        cap: 50,
        format: 'excel',
        territory: {
          kind: 'polygon',
          rings: [
            [
              [11.4, 48.1],
              [11.7, 48.1],
              [11.7, 48.25],
            ],
          ],
        },
        excludeLists: ['4', '9'],
      },
    })
    const categoryCall = requests.find((u) => u.pathname.endsWith('/api/categories/'))!
    expect(categoryCall.searchParams.get('lang')).toBe('de')
    expect(categoryCall.searchParams.getAll('ids').flatMap((v) => v.split(','))).toEqual(['12', '13'])
  })

  it('drops ids the service doesn’t know (and malformed ones) and says so', async () => {
    serviceHandlers()
    const link =
      'countries=de,XYZ&category=12,999,abc&level1_location=3,55&level2_location=20,404&level3_location=77,nowhere' +
      '&max_leads=-5&email=1'
    const result = await resolveApiLink(createTestQueryClient(), new URLSearchParams(link), 'en', lookups)
    expect(result.dropped).toBe(true)
    expect(result.filters).toMatchObject({
      countries: ['DE'],
      categories: [{ id: '12', name: 'Bakery' }],
      level1: [{ id: '3', name: 'Bavaria', country: 'DE' }],
      level2: [{ id: '20', name: 'Upper Bavaria (Bavaria)', country: 'DE' }],
      level3: [{ id: '77', name: 'Munich (Upper Bavaria, Bavaria)', country: 'DE' }],
      email: true,
      phone: false,
      cap: null,
      format: 'csv',
    })
    // "abc" never reaches the service (it would answer 400)
    expect(
      requests
        .find((u) => u.pathname.endsWith('/api/categories/'))!
        .searchParams.getAll('ids')
        .join(),
    ).not.toContain('abc')
  })

  it('drops a county whose state belongs to none of the link’s countries', async () => {
    serviceHandlers()
    const result = await resolveApiLink(createTestQueryClient(), new URLSearchParams('countries=DE&level2_location=21'), 'en', lookups)
    expect(result).toMatchObject({ dropped: true, filters: { countries: ['DE'], level2: [] } })
  })
})

describe('the territory of an API-style link (`within`, GeoJSON)', () => {
  const square: Territory = {
    kind: 'polygon',
    rings: [
      [
        [11.4, 48.1],
        [11.7, 48.1],
        [11.7, 48.25],
        [11.4, 48.25],
      ],
    ],
  }
  const territoryOf = async (query: string) =>
    (await resolveApiLink(createTestQueryClient(), new URLSearchParams(`countries=DE&${query}`), 'en', lookups)).filters.territory

  it('reads the `within` the search’s own API form writes (ring closed) as the same polygon', async () => {
    const api = filtersToApiParams({ ...emptyFilters, territory: square })
    expect(JSON.parse(api.get('within')!)).toEqual({ type: 'Polygon', coordinates: [[...square.rings[0]!, square.rings[0]![0]]] })
    expect(isApiStyleLink(api)).toBe(true)
    expect((await resolveApiLink(createTestQueryClient(), api, 'en', lookups)).filters.territory).toEqual(square)
  })

  it('reads a MultiPolygon’s first polygon', async () => {
    const multi = JSON.stringify({ type: 'MultiPolygon', coordinates: [[[...square.rings[0]!, square.rings[0]![0]]], [[[0, 0]]]] })
    expect(await territoryOf(`within=${encodeURIComponent(multi)}`)).toEqual(square)
  })

  it.each([
    ['broken JSON', 'within=%7B%22type%22'],
    ['coordinates as text', `within=${encodeURIComponent('{"type":"Polygon","coordinates":[[["11","48"],["12","48"],["12","49"]]]}')}`],
    ['JSON that is no polygon', 'within=%7B%22type%22%3A%22Point%22%2C%22coordinates%22%3A%5B1%2C2%5D%7D'],
    ['a ring of two points', `within=${encodeURIComponent('{"type":"Polygon","coordinates":[[[11,48],[12,48],[11,48]]]}')}`],
  ])('drops %s: no territory, the rest of the search stays', async (_, query) => {
    const { filters } = await resolveApiLink(createTestQueryClient(), new URLSearchParams(`countries=DE&${query}`), 'en', lookups)
    expect(filters.territory).toBeNull()
    expect(filters.countries).toEqual(['DE'])
  })

  it('takes the address’s own `area` over a `within` beside it', async () => {
    expect(
      await territoryOf(
        `area=1_1_2_1_2_2&within=${encodeURIComponent(JSON.stringify({ type: 'Polygon', coordinates: [square.rings[0]] }))}`,
      ),
    ).toEqual({
      kind: 'polygon',
      rings: [
        [
          [1, 1],
          [2, 1],
          [2, 2],
        ],
      ],
    })
  })
})

function Page() {
  const [filters, , link] = useSearchFilters()
  const { query } = usePreview(filters, !link.resolving && !link.failed)
  return (
    <div>
      {link.resolving && <p>resolving</p>}
      {link.dropped && <p>dropped</p>}
      {query.data && <p>count {query.data.totalCount}</p>}
    </div>
  )
}

// resolving, then the preview's 300 ms debounce and its answer: more than findBy's 1 s default on a busy machine
describe('the search page given an API-style link', () => {
  it('replaces it with the canonical address, names included, and asks the preview only for the whole search', async () => {
    serviceHandlers()
    const previews: URLSearchParams[] = []
    server.use(
      http.get('*/api/companies/', ({ request }) => {
        previews.push(new URL(request.url).searchParams)
        return HttpResponse.json({ totalCount: 42, search_id: 1, results: [] })
      }),
    )
    const { router } = renderWithProviders(<Page />, { route: `/search?${historyLink}` })
    expect(screen.getByText('resolving')).toBeInTheDocument()
    expect(await screen.findByText('count 42', undefined, { timeout: 5000 })).toBeInTheDocument()
    expect(router.state.location.search).toBe(
      '?' +
        new URLSearchParams([
          ['country', 'DE'],
          ['country', 'AT'],
          ['cat', '12:Bakery'],
          ['cat', '13:Florist'],
          ['l1', 'DE:3:Bavaria'],
          ['l2', 'DE:20:Upper Bavaria (Bavaria)'],
          ['l2', 'AT:21:Innsbruck-Land (Tyrol)'],
          ['l3', 'DE:77:Munich (Upper Bavaria, Bavaria)'],
          ['email', '1'],
          ['phone', '1'],
          ['website', '1'],
          ['main', '1'],
          ['cap', '50'],
          ['format', 'excel'],
          // the link's territory (a GeoJSON `within`) in the address's own short form
          ['area', '11.4_48.1_11.7_48.1_11.7_48.25'],
          // the lists the search leaves out, compact
          ['xl', '4.9'],
        ]).toString(),
    )
    expect(router.state.historyAction).toBe('REPLACE')
    expect(screen.queryByText('dropped')).not.toBeInTheDocument()
    expect(previews).toHaveLength(1)
    expect(previews[0]!.getAll('category')).toEqual(['12', '13'])
    expect(previews[0]!.getAll('level3_location')).toEqual(['77'])
    expect(previews[0]!.getAll('exclude_lists')).toEqual(['4', '9'])
    expect(JSON.parse(previews[0]!.get('within')!)).toEqual({
      type: 'Polygon',
      coordinates: [
        [
          [11.4, 48.1],
          [11.7, 48.1],
          [11.7, 48.25],
          [11.4, 48.1],
        ],
      ],
    })
  })

  it('tells once that unknown places were left out', async () => {
    serviceHandlers()
    server.use(http.get('*/api/companies/', () => HttpResponse.json({ totalCount: 7, search_id: 2, results: [] })))
    const { router } = renderWithProviders(<Page />, { route: '/search?countries=DE&level3_location=77,12345' })
    expect(await screen.findByText('dropped', undefined, { timeout: 5000 })).toBeInTheDocument()
    expect(router.state.location.search).toBe(
      `?${new URLSearchParams([
        ['country', 'DE'],
        ['l3', 'DE:77:Munich (Upper Bavaria, Bavaria)'],
      ])}`,
    )
  })
})

describe('the search page given a canonical address', () => {
  it('takes the chips’ names from the service by id, not from the address, and replaces the address', async () => {
    serviceHandlers()
    server.use(http.get('*/api/companies/', () => HttpResponse.json({ totalCount: 5, search_id: 3, results: [] })))
    const pasted = '?country=DE&cat=12%3ADentist&l1=DE%3A3%3ACalifornia&l3=DE%3A77%3AAnywhere&email=1&cap=50&format=excel'
    const { router } = renderWithProviders(<Page />, { route: `/search${pasted}` })
    expect(screen.getByText('resolving')).toBeInTheDocument()
    expect(await screen.findByText('count 5', undefined, { timeout: 5000 })).toBeInTheDocument()
    expect(router.state.location.search).toBe(
      `?${new URLSearchParams([
        ['country', 'DE'],
        ['cat', '12:Bakery'],
        ['l1', 'DE:3:Bavaria'],
        ['l3', 'DE:77:Munich (Upper Bavaria, Bavaria)'],
        ['email', '1'],
        ['cap', '50'],
        ['format', 'excel'],
      ])}`,
    )
    expect(router.state.historyAction).toBe('REPLACE')
    expect(screen.queryByText('dropped')).not.toBeInTheDocument()
  })

  it('drops a place the service doesn’t know and says so', async () => {
    serviceHandlers()
    server.use(http.get('*/api/companies/', () => HttpResponse.json({ totalCount: 9, search_id: 4, results: [] })))
    const { router } = renderWithProviders(<Page />, { route: '/search?country=DE&l3=DE%3A99999%3AFake' })
    expect(await screen.findByText('dropped', undefined, { timeout: 5000 })).toBeInTheDocument()
    expect(router.state.location.search).toBe('?country=DE')
  })

  it('keeps a correct address as it is, and filters chosen on the page are not asked again', async () => {
    serviceHandlers()
    const canonical = `?${new URLSearchParams([
      ['country', 'DE'],
      ['cat', '12:Bakery'],
      ['l3', 'DE:77:Munich (Upper Bavaria, Bavaria)'],
      ['email', '1'],
    ])}`
    function Bare() {
      const [filters, setFilters, link] = useSearchFilters()
      return (
        <div>
          <p>{link.resolving ? 'resolving' : `ready ${filters.level3.map((x) => x.name).join()}`}</p>
          <button
            type="button"
            onClick={() => setFilters({ ...filters, level3: [...filters.level3, { id: '88', name: 'Augsburg', country: 'DE' }] })}
          >
            add
          </button>
        </div>
      )
    }
    const { router } = renderWithProviders(<Bare />, { route: `/search${canonical}` })
    expect(await screen.findByText('ready Munich (Upper Bavaria, Bavaria)', undefined, { timeout: 5000 })).toBeInTheDocument()
    expect(router.state.location.search).toBe(canonical)
    expect(router.state.historyAction).toBe('POP')
    const asked = requests.length
    expect(asked).toBeGreaterThan(0)
    screen.getByRole('button', { name: 'add' }).click()
    expect(await screen.findByText('ready Munich (Upper Bavaria, Bavaria),Augsburg')).toBeInTheDocument()
    await new Promise((r) => setTimeout(r, 50))
    expect(requests).toHaveLength(asked)
    expect(router.state.location.search).toContain('l3=DE%3A88%3AAugsburg')
  })

  it('asks nothing for an address without categories or places', async () => {
    function Bare() {
      const [filters, , link] = useSearchFilters()
      return <p>{link.resolving ? 'resolving' : `ready ${filters.countries.join()}`}</p>
    }
    renderWithProviders(<Bare />, { route: '/search?country=DE&email=1' })
    expect(screen.getByText('ready DE')).toBeInTheDocument()
    await new Promise((r) => setTimeout(r, 50))
    expect(requests).toEqual([])
  })
})

describe('isApiStyleLink', () => {
  it('recognizes the service’s names but not the canonical flags', () => {
    expect(isApiStyleLink(new URLSearchParams('email=true'))).toBe(true)
    expect(isApiStyleLink(new URLSearchParams('max_leads=5'))).toBe(true)
    expect(isApiStyleLink(new URLSearchParams('email=1&website=1&main=1&format=excel'))).toBe(false)
  })
})
