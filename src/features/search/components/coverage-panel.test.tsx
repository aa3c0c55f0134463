import { screen, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { http, HttpResponse } from 'msw'
import { describe, expect, it, vi } from 'vitest'
import { server } from '@/testing/msw-server'
import { renderWithProviders } from '@/testing/render'
import { emptyFilters } from '@/domain/search-filters'
import { CoveragePanel } from './coverage-panel'

const filters = { ...emptyFilters, countries: ['DE'], email: true }

describe('CoveragePanel', () => {
  it('without /api/capabilities/ (the real service): contact bars from the count endpoint only, no error', async () => {
    const counted: string[] = []
    server.use(
      http.get('*/api/capabilities/', () => HttpResponse.json({ detail: 'Not found.' }, { status: 404 })),
      http.get('*/api/companies/facets/', () => HttpResponse.error()),
      http.get('*/api/companies/', ({ request }) => {
        const p = new URL(request.url).searchParams
        counted.push(p.toString())
        return HttpResponse.json({ totalCount: p.has('phone_number') ? 300 : 50, search_id: 1, results: [] })
      }),
    )
    const onNarrow = vi.fn()
    renderWithProviders(<CoveragePanel filters={filters} totalCount={1000} ready onNarrow={onNarrow} />)
    const phone = await screen.findByRole('button', { name: /A phone number.*300 \(30%\)/ })
    expect(screen.getByRole('button', { name: /A website.*50 \(5%\)/ })).toBeInTheDocument()
    // the flag already chosen is the whole count, and not a button
    expect(screen.getByText('1,000 (100%)')).toBeInTheDocument()
    expect(screen.queryByRole('button', { name: /An email address/ })).toBeNull()
    expect(screen.queryByText('Top regions')).toBeNull()
    expect(screen.queryByRole('alert')).toBeNull()
    // two requests: phone and website (email is already part of the search), never the facets
    expect(counted).toHaveLength(2)
    expect(counted.every((q) => q.includes('countries=DE') && q.includes('email=true'))).toBe(true)
    await userEvent.click(phone)
    expect(onNarrow).toHaveBeenCalledWith({ ...filters, phone: true })
  })

  it('with the facets extension: one request for contact data, regions and categories; a bar narrows the search', async () => {
    const asked: string[] = []
    server.use(
      http.get('*/api/capabilities/', () => HttpResponse.json({ facets: { version: 1 } })),
      http.get('*/api/companies/facets/', ({ request }) => {
        asked.push(new URL(request.url).search)
        return HttpResponse.json({
          totalCount: 1000,
          with_email: 1000,
          with_phone: 640,
          with_website: 220,
          level1: [
            { id: 7, name: 'Bayern', country: 'DE', count: 400 },
            { id: 9, name: 'Berlin', country: 'DE', count: 250 },
          ],
          categories: [{ id: 12, name: 'Bäckerei', count: 120 }],
        })
      }),
    )
    const onNarrow = vi.fn()
    renderWithProviders(<CoveragePanel filters={filters} totalCount={1000} ready onNarrow={onNarrow} />)
    const regions = (await screen.findByText('Top regions')).parentElement!
    await userEvent.click(within(regions).getByRole('button', { name: /Bayern.*400 \(40%\)/ }))
    expect(onNarrow).toHaveBeenCalledWith({ ...filters, level1: [{ id: '7', name: 'Bayern', country: 'DE' }] })
    await userEvent.click(screen.getByRole('button', { name: /Bäckerei.*120 \(12%\)/ }))
    expect(onNarrow).toHaveBeenLastCalledWith({ ...filters, categories: [{ id: '12', name: 'Bäckerei' }] })
    expect(screen.getByRole('button', { name: /A phone number.*640 \(64%\)/ })).toBeInTheDocument()
    expect(asked).toHaveLength(1)
    expect(asked[0]).toContain('lang=en')
  })

  it('asks nothing until the count has settled, and offers a retry when the coverage fails', async () => {
    let calls = 0
    server.use(
      http.get('*/api/capabilities/', () => HttpResponse.json({ facets: { version: 1 } })),
      http.get('*/api/companies/facets/', () => {
        calls += 1
        return calls === 1
          ? HttpResponse.json({ detail: 'boom' }, { status: 500 })
          : HttpResponse.json({ totalCount: 5, with_email: 5, with_phone: 1, with_website: 0, level1: null, categories: [] })
      }),
    )
    const { rerender } = renderWithProviders(<CoveragePanel filters={filters} totalCount={5} ready={false} onNarrow={() => {}} />)
    expect(screen.getByText('Counting coverage…')).toBeInTheDocument()
    await new Promise((r) => setTimeout(r, 50))
    expect(calls).toBe(0)
    rerender(<CoveragePanel filters={filters} totalCount={5} ready onNarrow={() => {}} />)
    const alert = await screen.findByRole('alert', {}, { timeout: 5000 })
    expect(alert).toHaveTextContent('The coverage could not be counted.')
    await userEvent.click(within(alert).getByRole('button', { name: 'Try again' }))
    expect(await screen.findByRole('button', { name: /A phone number.*1 \(20%\)/ })).toBeInTheDocument()
  })
})
