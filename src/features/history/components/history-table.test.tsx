import { screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { http, HttpResponse } from 'msw'
import { beforeEach, describe, expect, it } from 'vitest'
import { recordLocalExport } from '@/lib/local-exports'
import { historyEntry, proProfile } from '@/testing/fixtures'
import { server } from '@/testing/msw-server'
import { renderWithProviders } from '@/testing/render'
import { HISTORY_VIEW_KEY } from '../hooks/use-history-view'
import { HistoryPage } from './history-page'

const entry = historyEntry

/** A service that pages `entries` as asked (newest first, as given), and logs each page asked. */
function serve(entries: ReturnType<typeof entry>[], { capability = false } = {}) {
  const asked: string[] = []
  server.use(
    http.get('*/api/capabilities/', () =>
      capability
        ? HttpResponse.json({ watched_searches: { version: 1, limit: 20, name_max_length: 80 } })
        : HttpResponse.json({}, { status: 404 }),
    ),
    http.get('/api/user/profile/', () => HttpResponse.json(proProfile)),
    http.get('/api/user/search-history/', ({ request }) => {
      const url = new URL(request.url)
      const page = Number(url.searchParams.get('page'))
      const size = Number(url.searchParams.get('page_size'))
      const watched = url.searchParams.get('watched')
      asked.push(`${page}/${size}${watched ? ` watched=${watched}` : ''}`)
      const listed = entries.filter((e) => watched !== 'true' || e.watched)
      return HttpResponse.json({ count: listed.length, next: null, previous: null, results: listed.slice((page - 1) * size, page * size) })
    }),
  )
  return asked
}

const rows = () => screen.getAllByRole('row').slice(1)
const rowOf = (name: RegExp) => screen.getByRole('row', { name })

beforeEach(() => localStorage.clear())

describe('the table view', () => {
  it('shows one row per export with date, name, search, leads, credits, status and actions; the choice is remembered', async () => {
    serve([entry(3, { name: 'Berlin dentists', credits_charged: 1234, lead_count: 1234 }), entry(2)])
    const first = renderWithProviders(<HistoryPage />, { route: '/history' })
    expect(await screen.findAllByRole('article')).toHaveLength(2)
    await userEvent.click(screen.getByRole('button', { name: 'Table' }))
    expect(screen.getByRole('button', { name: 'Table' })).toHaveAttribute('aria-pressed', 'true')
    const table = screen.getByRole('table', { name: 'Your exports, newest first' })
    expect(
      within(table)
        .getAllByRole('columnheader')
        .map((h) => h.textContent),
    ).toEqual(['Date', 'Name', 'Search', 'Leads', 'Credits', 'Status', 'Actions'])
    expect(rows()).toHaveLength(2)
    const berlin = rowOf(/Berlin dentists/)
    expect(
      within(berlin)
        .getAllByRole('cell')
        .map((c) => c.textContent),
    ).toEqual(['Nov 1, 2026', 'Countries: Germany · only with email', '1,234', '1,234', 'Completed', 'Download againDetails▾'])
    expect(screen.queryByRole('article')).toBeNull()
    expect(localStorage.getItem(HISTORY_VIEW_KEY)).toBe('table')
    first.unmount()

    // another visit in the same browser opens the table
    renderWithProviders(<HistoryPage />, { route: '/history' })
    expect(await screen.findByRole('table')).toBeInTheDocument()
    expect(screen.getByRole('button', { name: 'Table' })).toHaveAttribute('aria-pressed', 'true')
  })

  it('a failed row says retrying is free, and its retry opens the export page', async () => {
    serve([entry(4, { status: 'FAILED', expires_at: null, credits_charged: 100 })])
    let retried = 0
    server.use(
      http.post('/api/user/search-history/4/retry/', () => {
        retried++
        return HttpResponse.json({ search_id: 4, status: 'PENDING' }, { status: 202 })
      }),
    )
    localStorage.setItem(HISTORY_VIEW_KEY, 'table')
    const { router } = renderWithProviders(<HistoryPage />, {
      route: '/history',
      routes: [{ path: '/exports/:searchId', element: <p>export page</p> }],
    })
    const row = await screen.findByRole('row', { name: /Export #4/ })
    expect(within(row).getByText('retry is free')).toBeInTheDocument()
    const retry = within(row).getByRole('button', { name: 'Retry export' })
    expect(retry).toHaveAccessibleDescription('retry is free Export #4')
    await userEvent.click(retry)
    await waitFor(() => expect(router.state.location.pathname).toBe('/exports/4'))
    expect(retried).toBe(1)
  })

  it('"Details" opens everything the card has, naming included, below the row', async () => {
    serve([entry(7, { watched: true, name: 'Lyon bakeries' })], { capability: true })
    server.use(
      http.post('/api/user/search-history/7/download-delta/', () =>
        HttpResponse.json({
          status: 'validated',
          validation_code: 'ok',
          search_id: 7,
          lead_count: 5,
          required_credits: 5,
          available_credits: 100,
        }),
      ),
    )
    localStorage.setItem(HISTORY_VIEW_KEY, 'table')
    renderWithProviders(<HistoryPage />, { route: '/history' })
    const row = await screen.findByRole('row', { name: /Lyon bakeries/ })
    expect(await within(row).findByText('5 new leads since your last export')).toBeInTheDocument()
    const details = within(row).getByRole('button', { name: 'Details' })
    expect(details).toHaveAttribute('aria-expanded', 'false')
    await userEvent.click(details)
    expect(details).toHaveAttribute('aria-expanded', 'true')
    const opened = document.getElementById(details.getAttribute('aria-controls')!)!
    expect(within(opened).getByRole('button', { name: 'Rename' })).toBeInTheDocument()
    expect(within(opened).getByRole('button', { name: 'Watching' })).toHaveAttribute('aria-pressed', 'true')
    expect(within(opened).getByRole('link', { name: 'Edit in search' })).toHaveAttribute(
      'href',
      '/search?countries=DE&email=true&format=csv',
    )
    await userEvent.click(details)
    expect(document.getElementById(`export-7-details`)).toBeNull()
  })
})

describe('search and filters', () => {
  const many = [
    entry(250, { name: 'Bangkok cafés', filters: { countries: ['TH'] } }),
    ...Array.from({ length: 200 }, (_, i) => entry(249 - i)),
    entry(48, { name: 'Berlin shops', status: 'FAILED', expires_at: null }),
    entry(47, { name: 'Berlin cafés' }),
    entry(46, { name: 'Paris cafés', filters: { countries: ['FR'] } }),
  ]

  it('without a filter only the page shown is asked; a filter reads the whole list in pages of 100 and pages through the matches', async () => {
    const asked = serve(many)
    const { router } = renderWithProviders(<HistoryPage />, { route: '/history' })
    expect(await screen.findAllByRole('article')).toHaveLength(20)
    expect(asked).toEqual(['1/20'])

    await userEvent.type(screen.getByRole('searchbox', { name: 'Search by name or number' }), 'cafes')
    expect(await screen.findByText('Matching exports: 3 of 204')).toBeInTheDocument()
    expect(screen.getAllByRole('article').map((a) => a.getAttribute('aria-labelledby'))).toEqual([
      'export-250-title',
      'export-47-title',
      'export-46-title',
    ])
    expect(asked.slice(1).sort()).toEqual(['1/100', '2/100', '3/100'])
    await waitFor(() => expect(new URLSearchParams(router.state.location.search).get('q')).toBe('cafes'))

    await userEvent.selectOptions(screen.getByRole('combobox', { name: 'Country' }), 'France')
    await waitFor(() => expect(screen.getAllByRole('article')).toHaveLength(1))
    expect(screen.getByRole('article', { name: /^Paris cafés/ })).toBeInTheDocument()
    expect(screen.getByText('Matching exports: 1 of 204')).toBeInTheDocument()
    // nothing more asked: the list is read once and filtered here
    expect(asked).toHaveLength(4)

    await userEvent.click(screen.getByRole('button', { name: 'Clear filters' }))
    await waitFor(() => expect(screen.getAllByRole('article')).toHaveLength(20))
    expect(router.state.location.search).toBe('')
  })

  it('by status, from the address; no match says so and offers to clear', async () => {
    serve(many)
    renderWithProviders(<HistoryPage />, { route: '/history?status=failed&q=berlin' })
    expect(await screen.findByRole('article', { name: /^Berlin shops/ })).toBeInTheDocument()
    expect(screen.getAllByRole('article')).toHaveLength(1)
    expect(screen.getByRole('combobox', { name: 'Status' })).toHaveValue('failed')
    expect(screen.getByRole('searchbox', { name: 'Search by name or number' })).toHaveValue('berlin')

    await userEvent.selectOptions(screen.getByRole('combobox', { name: 'Country' }), 'Thailand')
    expect(await screen.findByRole('heading', { name: 'No exports match' })).toBeInTheDocument()
    await userEvent.click(
      within(screen.getByRole('heading', { name: 'No exports match' }).parentElement!).getByRole('button', { name: 'Clear filters' }),
    )
    await waitFor(() => expect(screen.getAllByRole('article')).toHaveLength(20))
  })

  it('works over the exports recorded in this browser when the service keeps no list', async () => {
    recordLocalExport('3', {
      search_id: '31',
      filters: { countries: ['FR'] },
      export_format: 'csv',
      max_leads: null,
      created_at: '2026-11-02T00:00:00Z',
    })
    recordLocalExport('3', {
      search_id: '32',
      filters: { countries: ['DE'] },
      export_format: 'csv',
      max_leads: null,
      created_at: '2026-11-03T00:00:00Z',
    })
    server.use(
      http.get('/api/user/profile/', () => HttpResponse.json(proProfile)),
      http.get('/api/user/search-history/', () => HttpResponse.json({ detail: 'Not found.' }, { status: 404 })),
      http.get('/api/download-status/:id/', ({ params }) =>
        HttpResponse.json({ search_id: params.id, status: params.id === '31' ? 'FAILED' : 'COMPLETED', lead_count: 10 }),
      ),
    )
    localStorage.setItem(HISTORY_VIEW_KEY, 'table')
    renderWithProviders(<HistoryPage />, { route: '/history' })
    expect(await screen.findByText('Exports started in this browser')).toBeInTheDocument()
    expect(rows()).toHaveLength(2)
    await userEvent.selectOptions(screen.getByRole('combobox', { name: 'Status' }), 'Failed')
    await waitFor(() => expect(rows()).toHaveLength(1))
    expect(rowOf(/Export #31/)).toBeInTheDocument()
    await userEvent.clear(screen.getByRole('searchbox', { name: 'Search by name or number' }))
    await userEvent.selectOptions(screen.getByRole('combobox', { name: 'Status' }), 'All statuses')
    await userEvent.type(screen.getByRole('searchbox', { name: 'Search by name or number' }), '#32')
    await waitFor(() => expect(rows()).toHaveLength(1))
    expect(rowOf(/Export #32/)).toBeInTheDocument()
  })
})
