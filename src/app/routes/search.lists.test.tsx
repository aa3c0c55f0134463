import { screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { http, HttpResponse } from 'msw'
import { describe, expect, it, vi } from 'vitest'
import { profileOptions, profileSchema } from '@/api/account/profile'
import { server } from '@/testing/msw-server'
import { createTestQueryClient, renderWithProviders } from '@/testing/render'
import { Component as SearchPage } from './search'

// the control comes once the page's first load is over: here at once
vi.mock('@/lib/use-after-first-load', () => ({ useAfterFirstLoad: () => true }))

const list = (id: number, name: string, status: string) => ({
  id,
  name,
  status,
  headers: ['Firma', 'Ort'],
  proposed_mapping: {},
  total_rows: 10,
  matched_rows: 10,
  created_at: '2026-11-01T09:00:00Z',
})

/** The search service; `capabilities` null = a service without extensions. Returns the previews' queries and whether lists were asked. */
function service(
  capabilities: Record<string, unknown> | null,
  lists = [list(4, 'Kunden 2025', 'matched'), list(5, 'Entwurf', 'uploaded')],
) {
  const previews: URLSearchParams[] = []
  const asked = { lists: 0 }
  server.use(
    http.get('*/api/capabilities/', () =>
      capabilities ? HttpResponse.json(capabilities) : HttpResponse.json({ detail: 'Not found.' }, { status: 404 }),
    ),
    http.get('*/api/lists/', () => {
      asked.lists++
      return HttpResponse.json(lists)
    }),
    http.get('*/api/locations/countries/', () => HttpResponse.json([{ code: 'DE', name: 'Germany', company_count: 6000 }])),
    http.get('*/api/locations/level1/', () => HttpResponse.json([])),
    http.get('*/api/locations/level2/', () => HttpResponse.json([])),
    http.get('*/api/categories/', () => HttpResponse.json([])),
    http.get('*/api/companies/', ({ request }) => {
      const q = new URL(request.url).searchParams
      previews.push(q)
      const leaving = q.getAll('exclude_lists').length > 0
      return HttpResponse.json({
        totalCount: leaving ? 5019 : 5031,
        search_id: 8,
        results: [],
        ...(leaving ? { excluded_by_lists: 12 } : {}),
      })
    }),
  )
  const queryClient = createTestQueryClient()
  queryClient.setQueryData(
    profileOptions().queryKey,
    profileSchema().parse({ id: 1, email: 'a@example.com', remaining_credits: 100, purchased_credits_available: 0 }),
  )
  return { queryClient, previews, asked }
}

describe('search page: leave out businesses in my lists (extension lists)', () => {
  it('ticks a matched list into the search: the address, the preview’s exclude_lists, the count left out and a chip', async () => {
    const user = userEvent.setup()
    const { queryClient, previews } = service({ lists: { version: 1 } })
    const { router } = renderWithProviders(<SearchPage />, { route: '/search?country=DE', queryClient })
    const group = await screen.findByRole('group', { name: 'Leave out businesses in my lists' }, { timeout: 5000 })
    // only a matched list can leave anything out
    expect(within(group).queryByRole('checkbox', { name: 'Entwurf' })).not.toBeInTheDocument()
    await user.click(within(group).getByRole('checkbox', { name: 'Kunden 2025' }))
    await waitFor(() => expect(router.state.location.search).toBe('?country=DE&xl=4'))
    await waitFor(() => expect(previews.at(-1)!.getAll('exclude_lists')).toEqual(['4']))
    expect(await screen.findByTestId('lists-left-out', undefined, { timeout: 5000 })).toHaveTextContent('12 left out by your lists')
    expect(screen.getByTestId('lead-count')).toHaveTextContent('5,019')
    const chips = screen.getByRole('list', { name: 'Chosen filters' })
    await waitFor(() => expect(within(chips).getByText('Leaving out: \u2068Kunden 2025\u2069')).toBeInTheDocument())
    await user.click(within(chips).getByRole('button', { name: 'Remove Leaving out: \u2068Kunden 2025\u2069' }))
    await waitFor(() => expect(router.state.location.search).toBe('?country=DE'))
    await waitFor(() => expect(within(group).getByRole('checkbox', { name: 'Kunden 2025' })).not.toBeChecked())
  })

  it('drops a list the account no longer has from the search, rather than have the service refuse it', async () => {
    const { queryClient } = service({ lists: { version: 1 } })
    const { router } = renderWithProviders(<SearchPage />, { route: '/search?country=DE&xl=4.99', queryClient })
    await waitFor(() => expect(router.state.location.search).toBe('?country=DE&xl=4'), { timeout: 5000 })
  })

  it('is not there without the capability, and the lists are not even asked for', async () => {
    const { queryClient, asked } = service(null)
    renderWithProviders(<SearchPage />, { route: '/search?country=DE', queryClient })
    expect(await screen.findByTestId('lead-count')).toHaveTextContent('5,031')
    await new Promise((r) => setTimeout(r, 300))
    expect(screen.queryByRole('group', { name: 'Leave out businesses in my lists' })).not.toBeInTheDocument()
    expect(asked.lists).toBe(0)
  })

  it('is not there while the account has no matched list', async () => {
    const { queryClient, asked } = service({ lists: { version: 1 } }, [list(5, 'Entwurf', 'matching')])
    renderWithProviders(<SearchPage />, { route: '/search?country=DE', queryClient })
    await waitFor(() => expect(asked.lists).toBe(1), { timeout: 5000 })
    await new Promise((r) => setTimeout(r, 300))
    expect(screen.queryByRole('group', { name: 'Leave out businesses in my lists' })).not.toBeInTheDocument()
  })
})
