import { screen, waitFor } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { delay, http, HttpResponse } from 'msw'
import { beforeEach, describe, expect, it } from 'vitest'
import { historyEntry, proProfile } from '@/testing/fixtures'
import { server } from '@/testing/msw-server'
import { renderWithProviders } from '@/testing/render'
import { HistoryPage } from './history-page'

const entry = historyEntry

const many = [
  entry(250, { name: 'Bangkok cafés', filters: { countries: ['TH'] } }),
  ...Array.from({ length: 200 }, (_, i) => entry(249 - i)),
  entry(48, { name: 'Berlin shops', status: 'PROCESSING', expires_at: null }),
  entry(47, { name: 'Berlin cafés' }),
  entry(46, { name: 'Paris cafés', filters: { countries: ['FR'] } }),
]

interface Asked {
  url: URL
  aborted: boolean
}

/**
 * A service that searches History (extension history_search) when `capability`: it narrows by `q`
 * (in the name, accents aside), `country` and `status`, pages the matches and counts them; a text
 * search takes `latencyMs`. Every request is logged with whether the dashboard aborted it.
 */
function serve({ capability, latencyMs = 0 }: { capability: boolean; latencyMs?: number }) {
  const asked: Asked[] = []
  const fold = (s: string) => s.normalize('NFD').replace(/\p{M}/gu, '').toLowerCase()
  server.use(
    http.get('*/api/capabilities/', () =>
      capability ? HttpResponse.json({ history_search: { version: 1, q_max_length: 100 } }) : HttpResponse.json({}, { status: 404 }),
    ),
    http.get('/api/user/profile/', () => HttpResponse.json(proProfile)),
    http.get('/api/user/search-history/', async ({ request }) => {
      const url = new URL(request.url)
      const seen: Asked = { url, aborted: false }
      asked.push(seen)
      request.signal.addEventListener('abort', () => {
        seen.aborted = true
      })
      // only a search takes its time: the list itself answers at once
      if (url.searchParams.has('q')) await delay(latencyMs)
      const q = fold(url.searchParams.get('q') ?? '')
      const country = url.searchParams.get('country')
      const statuses = url.searchParams.get('status')?.split(',')
      const matches = many.filter(
        (e) =>
          (!q || fold(e.name ?? '').includes(q)) &&
          (!country || e.filters.countries.includes(country)) &&
          (!statuses || statuses.includes(e.status)),
      )
      const page = Number(url.searchParams.get('page'))
      const size = Number(url.searchParams.get('page_size'))
      return HttpResponse.json({
        count: matches.length,
        next: null,
        previous: null,
        results: matches.slice((page - 1) * size, page * size),
      })
    }),
  )
  return asked
}

const searched = (asked: Asked[]) => asked.filter((a) => ['q', 'country', 'status'].some((p) => a.url.searchParams.has(p)))
const titles = () => screen.getAllByRole('article').map((a) => a.getAttribute('aria-labelledby'))

beforeEach(() => localStorage.clear())

describe('History searched by the service (extension history_search)', () => {
  it('sends the text once typing pauses, aborts the search it replaces, and shows the matches the service counted', async () => {
    const asked = serve({ capability: true, latencyMs: 2000 })
    const { router } = renderWithProviders(<HistoryPage />, { route: '/history' })
    expect(await screen.findAllByRole('article')).toHaveLength(20)

    // keystrokes without a pause between them (no timer runs in between): one search for all of them
    const box = screen.getByRole('searchbox', { name: 'Search by name, place, category or number' })
    const user = userEvent.setup({ delay: null })
    await user.type(box, 'caf')
    await waitFor(() => expect(searched(asked).map((a) => a.url.searchParams.get('q'))).toEqual(['caf']))
    // typed while "caf" is still on its way: that search is aborted, not waited for
    await user.type(box, 'es')
    await waitFor(() => expect(searched(asked).map((a) => a.url.searchParams.get('q'))).toEqual(['caf', 'cafes']))
    await waitFor(() => expect(searched(asked)[0]!.aborted).toBe(true))

    expect(await screen.findByText('Matching exports: 3 of 204', {}, { timeout: 5000 })).toBeInTheDocument()
    expect(titles()).toEqual(['export-250-title', 'export-47-title', 'export-46-title'])
    expect(searched(asked).at(-1)!.url.searchParams.get('page_size')).toBe('20')
    await waitFor(() => expect(new URLSearchParams(router.state.location.search).get('q')).toBe('cafes'))
    // the whole list is never read to filter it here
    expect(asked.some((a) => a.url.searchParams.get('page_size') === '100')).toBe(false)

    await userEvent.selectOptions(screen.getByRole('combobox', { name: 'Country' }), 'France')
    await waitFor(() => expect(titles()).toEqual(['export-46-title']), { timeout: 5000 })
    expect(searched(asked).at(-1)!.url.searchParams.get('country')).toBe('FR')
  })

  it('reads the filter from the address and sends a status as the service writes it', async () => {
    const asked = serve({ capability: true })
    renderWithProviders(<HistoryPage />, { route: '/history?status=running&q=berlin' })
    expect(await screen.findByRole('article', { name: /^Berlin shops/ })).toBeInTheDocument()
    expect(screen.getAllByRole('article')).toHaveLength(1)
    const sent = searched(asked).at(-1)!.url.searchParams
    expect(sent.get('status')).toBe('PENDING,PROCESSING')
    expect(sent.get('q')).toBe('berlin')
  })

  it('without the extension, sends none of it and filters the list it reads', async () => {
    const asked = serve({ capability: false })
    renderWithProviders(<HistoryPage />, { route: '/history?q=cafes&country=FR' })
    expect(await screen.findByRole('article', { name: /^Paris cafés/ })).toBeInTheDocument()
    expect(screen.getByRole('searchbox', { name: 'Search by name or number' })).toHaveValue('cafes')
    expect(searched(asked)).toEqual([])
    expect(asked.map((a) => a.url.searchParams.get('page_size'))).toContain('100')
  })
})
