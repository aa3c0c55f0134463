import { screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { http, HttpResponse } from 'msw'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { server } from '@/testing/msw-server'
import { renderWithProviders } from '@/testing/render'
import { HistoryPage, PAGE_SIZE } from './history-page'

const DAY = 86_400_000
const future = new Date(Date.now() + 5 * DAY).toISOString()
const past = new Date(Date.now() - 2 * DAY).toISOString()

function entry(id: number, patch: Record<string, unknown> = {}) {
  return {
    search_id: id,
    filters: {
      countries: ['DE'],
      category: [],
      level1_location: [],
      level2_location: [],
      level3_location: [],
      email: true,
      phone_number: false,
      website: false,
      main_activity_only: false,
    },
    created_at: '2026-11-01T09:00:00Z',
    status: 'COMPLETED',
    lead_count: 120,
    credits_charged: 120,
    export_format: 'csv',
    capped: false,
    expires_at: future,
    max_leads: null,
    delta_of: null,
    filename: `export-${id}.csv`,
    file_size_bytes: 20_480,
    ...patch,
  }
}

const profile = (fresh: boolean) => ({
  id: 1,
  email: 'a@example.com',
  first_name: 'A',
  last_name: 'B',
  subscription_plan: null,
  total_credits: 1000,
  remaining_credits: 500,
  purchased_credits_available: 0,
  purchased_credits_expiring_soon: 0,
  current_period_start: null,
  current_period_end: null,
  can_download_fresh_exports: fresh,
  preferred_language: 'en',
})

function serve(entries: ReturnType<typeof entry>[], { count = entries.length, fresh = true } = {}) {
  const pagesAsked: string[] = []
  server.use(
    http.get('/api/user/search-history/', ({ request }) => {
      const url = new URL(request.url)
      pagesAsked.push(`${url.searchParams.get('page')}/${url.searchParams.get('page_size')}`)
      return HttpResponse.json({ count, next: null, previous: null, results: entries })
    }),
    http.get('/api/user/profile/', () => HttpResponse.json(profile(fresh))),
  )
  return pagesAsked
}

const card = (id: number) => screen.getByRole('article', { name: new RegExp(`^Export #${id}`) })

afterEach(() => vi.restoreAllMocks())

describe('HistoryPage', () => {
  it('asks the service for the page in the URL and renders only that page', async () => {
    const asked = serve([entry(9), entry(8)], { count: 5000 })
    renderWithProviders(<HistoryPage />, { route: '/history?page=3' })
    expect(await screen.findByText('Page 3 of 250')).toBeInTheDocument()
    expect(asked).toEqual([`3/${PAGE_SIZE}`])
    expect(screen.getAllByRole('article')).toHaveLength(2)
    expect(screen.getByText('5,000 exports')).toBeInTheDocument()
    // filters in words, with flags
    expect(within(card(9)).getByText('Germany')).toBeInTheDocument()
    expect(within(card(9)).getByText('email')).toBeInTheDocument()
  })

  it('a named export is announced with a space between its name and its number', async () => {
    serve([entry(3, { name: 'Berlin dentists', delta_of: 2 })])
    renderWithProviders(<HistoryPage />, { route: '/history' })
    expect(await screen.findByRole('article', { name: 'Berlin dentists Export #3 fresh data of #2' })).toBeInTheDocument()
  })

  it('moves to the next page through the URL', async () => {
    const asked = serve([entry(9)], { count: 45 })
    const { router } = renderWithProviders(<HistoryPage />, { route: '/history' })
    await userEvent.click(await screen.findByRole('button', { name: /Next/ }))
    await waitFor(() => expect(router.state.location.search).toBe('?page=2'))
    await waitFor(() => expect(asked).toContain(`2/${PAGE_SIZE}`))
  })

  it('shows an empty state that leads to search', async () => {
    serve([])
    renderWithProviders(<HistoryPage />, { route: '/history' })
    expect(await screen.findByText('No exports yet')).toBeInTheDocument()
    expect(screen.getByRole('link', { name: 'Go to search' })).toHaveAttribute('href', '/search')
  })

  it('shows an error with a retry that asks again', async () => {
    let calls = 0
    server.use(
      http.get('/api/user/search-history/', () => {
        calls++
        return calls === 1
          ? HttpResponse.json({ detail: 'boom' }, { status: 500 })
          : HttpResponse.json({ count: 1, next: null, previous: null, results: [entry(3)] })
      }),
      http.get('/api/user/profile/', () => HttpResponse.json(profile(true))),
    )
    renderWithProviders(<HistoryPage />, { route: '/history' })
    await userEvent.click(await screen.findByRole('button', { name: 'Try again' }))
    expect(await screen.findByRole('article', { name: /Export #3/ })).toBeInTheDocument()
  })

  it('downloads again with the signed URL while the link lives', async () => {
    serve([entry(5)])
    const click = vi.spyOn(HTMLAnchorElement.prototype, 'click').mockImplementation(function (this: HTMLAnchorElement) {})
    server.use(
      http.get('/api/download-completed-csv/5/', () =>
        HttpResponse.json({
          download_url: '/files/5?sig=abc',
          filename: 'export-5.csv',
          file_size_bytes: 20480,
          file_size_mb: 0.02,
          expires_at: future,
        }),
      ),
    )
    renderWithProviders(<HistoryPage />, { route: '/history' })
    await userEvent.click(
      await within(await screen.findByRole('article', { name: /Export #5/ })).findByRole('button', { name: 'Download again' }),
    )
    await waitFor(() => expect(click).toHaveBeenCalledTimes(1))
    const anchor = click.mock.contexts[0] as HTMLAnchorElement
    // a relative link is relative to the service (VITE_API_BASE_URL, else this origin)
    expect(anchor.getAttribute('href')).toBe(new URL('/files/5?sig=abc', window.location.origin).href)
    expect(anchor.download).toBe('export-5.csv')
  })

  it('410 from the descriptor: says the link expired and when, and offers fresh data instead', async () => {
    serve([entry(5)])
    server.use(http.get('/api/download-completed-csv/5/', () => HttpResponse.json({ detail: 'Link expired.' }, { status: 410 })))
    renderWithProviders(<HistoryPage />, { route: '/history' })
    const c = await screen.findByRole('article', { name: /Export #5/ })
    await userEvent.click(within(c).getByRole('button', { name: 'Download again' }))
    expect(await within(c).findByText('This download link has expired')).toBeInTheDocument()
    expect(within(c).getByText(/The file was available until/)).toBeInTheDocument()
    expect(within(c).queryByRole('button', { name: 'Download again' })).not.toBeInTheDocument()
    expect(within(c).getByRole('button', { name: 'Fresh data only' })).toBeInTheDocument()
  })

  it('a link whose expires_at has passed is expired without asking', async () => {
    serve([entry(6, { expires_at: past })])
    renderWithProviders(<HistoryPage />, { route: '/history' })
    const c = await screen.findByRole('article', { name: /Export #6/ })
    expect(within(c).getByText('This download link has expired')).toBeInTheDocument()
    expect(within(c).queryByRole('button', { name: 'Download again' })).not.toBeInTheDocument()
  })

  it('fresh data: dry run first, then {} on confirm, then the export page', async () => {
    serve([entry(7)])
    const bodies: unknown[] = []
    server.use(
      http.post('/api/user/search-history/7/download-delta/', async ({ request }) => {
        const body = (await request.json()) as Record<string, unknown>
        bodies.push(body)
        const common = {
          validation_code: 'ok',
          lead_count: 12,
          required_credits: 12,
          available_credits: 400,
          freshness: {
            original_exported_at: '2026-11-01T09:00:00Z',
            original_lead_count: 120,
            current_total: 132,
            new_since_export: 12,
            capped: false,
          },
          freshness_checked_at: '2026-11-23T10:00:00Z',
        }
        return body.dry_run
          ? HttpResponse.json({ ...common, status: 'validated', search_id: 7 })
          : HttpResponse.json({ ...common, status: 'started', search_id: 99 }, { status: 202 })
      }),
    )
    const { router } = renderWithProviders(<HistoryPage />, {
      route: '/history',
      routes: [{ path: '/exports/:searchId', element: <p>export page</p> }],
    })
    await userEvent.click(
      await within(await screen.findByRole('article', { name: /Export #7/ })).findByRole('button', { name: 'Fresh data only' }),
    )
    const dialog = await screen.findByRole('dialog', { name: 'Fresh data for export #7' })
    expect(await within(dialog).findByText(/12 new leads since your export/)).toBeInTheDocument()
    expect(bodies).toEqual([{ dry_run: true }])
    await userEvent.click(within(dialog).getByRole('button', { name: 'Export 12 leads for 12 credits' }))
    await waitFor(() => expect(router.state.location.pathname).toBe('/exports/99'))
    expect(bodies).toEqual([{ dry_run: true }, {}])
  })

  it('a plan without fresh data: explanation and Plans link instead of the button, and no call to the service', async () => {
    serve([entry(8)], { fresh: false })
    let asked = 0
    server.use(
      http.post('/api/user/search-history/8/download-delta/', () => {
        asked++
        return HttpResponse.json({ detail: 'no' }, { status: 403 })
      }),
    )
    renderWithProviders(<HistoryPage />, { route: '/history' })
    const c = await screen.findByRole('article', { name: /Export #8/ })
    expect(await within(c).findByText('Your plan does not include fresh-data exports.')).toBeInTheDocument()
    expect(within(c).getByRole('link', { name: 'See plans' })).toHaveAttribute('href', '/plans')
    expect(within(c).queryByRole('button', { name: 'Fresh data only' })).not.toBeInTheDocument()
    expect(within(c).getByRole('button', { name: 'Download again' })).toBeInTheDocument()
    expect(asked).toBe(0)
  })

  it('a 403 fresh_exports_not_allowed verdict: only the explanation and the Plans link, no figures, no confirm', async () => {
    // the profile still said yes (e.g. the plan changed meanwhile): the service is the judge
    serve([entry(8)], { fresh: true })
    server.use(
      http.post('/api/user/search-history/8/download-delta/', () =>
        HttpResponse.json(
          {
            detail: 'Your plan does not allow fresh exports.',
            status: 'rejected',
            validation_code: 'fresh_exports_not_allowed',
            search_id: 8,
            lead_count: 0,
            required_credits: 0,
            available_credits: 100,
            freshness: {
              original_exported_at: '2026-11-01T09:00:00Z',
              original_lead_count: 120,
              current_total: 120,
              new_since_export: 0,
              capped: false,
            },
            freshness_checked_at: '2026-11-23T10:00:00Z',
          },
          { status: 403 },
        ),
      ),
    )
    renderWithProviders(<HistoryPage />, { route: '/history' })
    const c = await screen.findByRole('article', { name: /Export #8/ })
    await userEvent.click(within(c).getByRole('button', { name: 'Fresh data only' }))
    const dialog = await screen.findByRole('dialog')
    expect(await within(dialog).findByText('Your plan does not include fresh data')).toBeInTheDocument()
    expect(within(dialog).getByRole('link', { name: 'See plans' })).toHaveAttribute('href', '/plans')
    expect(within(dialog).queryByText('Credits required')).not.toBeInTheDocument()
    expect(within(dialog).queryByText('Credits available')).not.toBeInTheDocument()
    expect(within(dialog).queryByRole('region', { name: 'Freshness figures' })).not.toBeInTheDocument()
    expect(within(dialog).queryByRole('button', { name: /^Export / })).not.toBeInTheDocument()
  })

  it('retries a failed export and opens its export page', async () => {
    serve([entry(4, { status: 'failed', expires_at: null })])
    let retried = 0
    server.use(
      http.post('/api/user/search-history/4/retry/', () => {
        retried++
        return HttpResponse.json({ search_id: 4, status: 'PENDING' }, { status: 202 })
      }),
    )
    const { router } = renderWithProviders(<HistoryPage />, {
      route: '/history',
      routes: [{ path: '/exports/:searchId', element: <p>export page</p> }],
    })
    const c = await screen.findByRole('article', { name: /Export #4/ })
    expect(within(c).getByText('Failed')).toBeInTheDocument()
    await userEvent.click(within(c).getByRole('button', { name: 'Retry export' }))
    await waitFor(() => expect(router.state.location.pathname).toBe('/exports/4'))
    expect(retried).toBe(1)
  })

  it('places that share a name are told apart by their parent', async () => {
    serve([entry(3, { filters: { ...entry(3).filters, countries: ['US'], level2_location: ['20'], level3_location: ['501', '502'] } })])
    server.use(
      http.get('/api/locations/level2/20/', () =>
        HttpResponse.json({ id: 20, name: 'Hampden County', code: 'HMP', level1_id: 2, level1_name: 'Massachusetts' }),
      ),
      http.get('/api/locations/level3/', () =>
        HttpResponse.json([
          {
            id: 501,
            name: 'Springfield',
            code: 'SPM',
            level2_id: 20,
            level2_name: 'Hampden County',
            level1_id: 2,
            level1_name: 'Massachusetts',
          },
          {
            id: 502,
            name: 'Springfield',
            code: 'SPI',
            level2_id: 30,
            level2_name: 'Sangamon County',
            level1_id: 3,
            level1_name: 'Illinois',
          },
        ]),
      ),
    )
    renderWithProviders(<HistoryPage />, { route: '/history' })
    const c = await screen.findByRole('article', { name: /Export #3/ })
    const places = within(c).getByText('Places').nextElementSibling as HTMLElement
    await waitFor(() =>
      expect(places.textContent).toBe(
        'Hampden County (Massachusetts), Springfield (Hampden County, Massachusetts), and Springfield (Sangamon County, Illinois)',
      ),
    )
    // each name is isolated, so in Hebrew a Latin name keeps its parenthesis and does not absorb the "ו-"
    expect([...places.querySelectorAll('bdi')].map((b) => b.textContent)).toEqual([
      'Hampden County (Massachusetts)',
      'Springfield (Hampden County, Massachusetts)',
      'Springfield (Sangamon County, Illinois)',
    ])
  })

  it('"Edit in search" carries the same filters', async () => {
    serve([
      entry(2, {
        filters: {
          countries: ['DE', 'FR'],
          category: [12],
          level1_location: [3],
          level2_location: [],
          level3_location: ['77'],
          email: true,
          phone_number: true,
          website: false,
          main_activity_only: true,
        },
        max_leads: 50,
        capped: true,
      }),
    ])
    server.use(
      http.get('/api/categories/', () => HttpResponse.json([{ id: 12, slug: 'bakery', name: 'Bakery', name_en: 'Bakery' }])),
      http.get('/api/locations/level1/', ({ request }) =>
        HttpResponse.json(
          new URL(request.url).searchParams.get('country') === 'DE' ? [{ id: 3, name: 'Bavaria', code: 'BY', country: 'DE' }] : [],
        ),
      ),
      http.get('/api/locations/level3/', ({ request }) =>
        HttpResponse.json(new URL(request.url).searchParams.get('country') === 'DE' ? [{ id: '77', name: 'Munich', code: 'MUC' }] : []),
      ),
    )
    renderWithProviders(<HistoryPage />, { route: '/history' })
    const c = await screen.findByRole('article', { name: /Export #2/ })
    expect(await within(c).findByText('Bakery')).toBeInTheDocument()
    const places = within(c).getByText('Places').nextElementSibling as HTMLElement
    await waitFor(() => expect(places.textContent).toBe('Bavaria and Munich'))
    const href = within(c).getByRole('link', { name: 'Edit in search' }).getAttribute('href')!
    const params = new URL(href, 'http://x').searchParams
    expect(new URL(href, 'http://x').pathname).toBe('/search')
    expect(params.getAll('countries')).toEqual(['DE', 'FR'])
    expect(params.getAll('category')).toEqual(['12'])
    expect(params.getAll('level1_location')).toEqual(['3'])
    expect(params.getAll('level3_location')).toEqual(['77'])
    expect(params.get('email')).toBe('true')
    expect(params.get('phone_number')).toBe('true')
    expect(params.get('website')).toBeNull()
    expect(params.get('main_activity_only')).toBe('true')
    expect(params.get('max_leads')).toBe('50')
  })
})
