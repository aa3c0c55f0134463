import { screen, waitFor } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { delay, http, HttpResponse, type JsonBodyType } from 'msw'
import { useState } from 'react'
import { describe, expect, it } from 'vitest'
import { server } from '@/testing/msw-server'
import { renderWithProviders } from '@/testing/render'
import { CategoryPicker } from './components/category-picker'
import { emptyFilters, type NamedId, type SearchFilters } from '@/domain/search-filters'
import { usePreview } from './hooks/use-preview'

interface Seen {
  url: URL
  aborted: boolean
}

/** Records every request of `path` and whether the dashboard aborted it. */
function recordRequests(path: string, respond: (url: URL) => JsonBodyType, latencyMs: number) {
  const seen: Seen[] = []
  server.use(
    http.get(`*${path}`, async ({ request }) => {
      const entry: Seen = { url: new URL(request.url), aborted: false }
      seen.push(entry)
      request.signal.addEventListener('abort', () => {
        entry.aborted = true
      })
      await delay(latencyMs)
      return HttpResponse.json(respond(entry.url))
    }),
  )
  return seen
}

function CategoryHarness() {
  const [value, setValue] = useState<NamedId[]>([])
  return <CategoryPicker value={value} onChange={setValue} />
}

describe('category type-ahead', () => {
  it('sends at most one request per 300 ms of typing and aborts the superseded one', async () => {
    const seen = recordRequests(
      '/api/categories/',
      (url) => [{ id: 1, slug: 'bakery', name: `Bakery (${url.searchParams.get('q') ?? ''})`, name_en: 'Bakery' }],
      800,
    )
    const user = userEvent.setup({ delay: 40 })
    renderWithProviders(<CategoryHarness />)
    const input = screen.getByRole('combobox', { name: 'Categories' })

    const started = Date.now()
    await user.type(input, 'bak') // ~120 ms of typing: no request for "b" or "ba"
    // how soon the request goes out is the host's business (a busy machine took over a second): only
    // which requests go out, and which are aborted, is checked
    await waitFor(() => expect(seen.some((s) => s.url.searchParams.get('q') === 'bak')).toBe(true), { timeout: 5000 })
    await user.type(input, 'ery') // supersedes "bak" while it is still in flight
    await waitFor(() => expect(seen.some((s) => s.url.searchParams.get('q') === 'bakery')).toBe(true), { timeout: 5000 })
    const elapsed = Date.now() - started

    const typed = seen.filter((s) => s.url.searchParams.get('q'))
    expect(typed.map((s) => s.url.searchParams.get('q'))).toEqual(['bak', 'bakery'])
    expect(typed.length).toBeLessThanOrEqual(Math.ceil(elapsed / 300))
    await waitFor(() => expect(typed[0]!.aborted).toBe(true))
    expect(await screen.findByRole('option', { name: /Bakery \(bakery\)/ })).toBeInTheDocument()
    expect(typed[1]!.aborted).toBe(false)
    // the matched part is highlighted
    expect(screen.getByRole('option', { name: /Bakery \(bakery\)/ }).querySelector('mark')?.textContent).toBe('Bakery')
  }, 15_000)
})

const FLAGS = ['email', 'phone', 'website', 'mainActivityOnly'] as const

function PreviewHarness() {
  const [filters, setFilters] = useState<SearchFilters>({ ...emptyFilters, countries: ['DE'] })
  const { query } = usePreview(filters)
  return (
    <div>
      {FLAGS.map((f) => (
        <button key={f} type="button" onClick={() => setFilters((prev) => ({ ...prev, [f]: !prev[f] }))}>
          {f}
        </button>
      ))}
      <output data-testid="count">{query.data?.totalCount ?? 'none'}</output>
    </div>
  )
}

describe('live count', () => {
  it('debounces quick changes into one request, aborts the superseded one and keeps the old number meanwhile', async () => {
    const seen = recordRequests(
      '/api/companies/',
      (url) => ({ totalCount: url.searchParams.has('email') ? 40 : 100, search_id: 1, results: [] }),
      900,
    )
    const user = userEvent.setup({ delay: 30 })
    renderWithProviders(<PreviewHarness />)
    await waitFor(() => expect(screen.getByTestId('count')).toHaveTextContent('100'), { timeout: 3000 })
    expect(seen).toHaveLength(1)

    // four changes within ~120 ms → one request with all of them
    for (const f of FLAGS) await user.click(screen.getByRole('button', { name: f }))
    // the old number stays while the next loads
    expect(screen.getByTestId('count')).toHaveTextContent('100')
    await waitFor(() => expect(screen.getByTestId('count')).toHaveTextContent('40'), { timeout: 3000 })
    expect(seen).toHaveLength(2)
    const q = seen[1]!.url.searchParams
    expect([q.get('email'), q.get('phone_number'), q.get('website'), q.get('main_activity_only')]).toEqual(['true', 'true', 'true', 'true'])

    // a change while a request is in flight aborts it once the next one starts
    await user.click(screen.getByRole('button', { name: 'phone' }))
    await waitFor(() => expect(seen).toHaveLength(3), { timeout: 1000 })
    await user.click(screen.getByRole('button', { name: 'website' }))
    await waitFor(() => expect(seen).toHaveLength(4), { timeout: 1000 })
    await waitFor(() => expect(seen[2]!.aborted).toBe(true))
    expect(seen[3]!.aborted).toBe(false)
  }, 15_000)
})
