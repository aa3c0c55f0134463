import { screen, waitFor } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { http, HttpResponse } from 'msw'
import { beforeAll, describe, expect, it } from 'vitest'
import { profileOptions, profileSchema } from '@/api/account/profile'
import { server } from '@/testing/msw-server'
import { createTestQueryClient, renderWithProviders } from '@/testing/render'
import { Component as SearchPage } from './search'

// The confirmation is the page's lazy chunk: its first import here is Vite transforming it (seconds on a
// busy machine), not what the tests are about, so it is loaded once before them.
beforeAll(() => import('@/features/exports/components/export-confirm-dialog'))

function searchService() {
  server.use(
    http.get('*/api/locations/countries/', () => HttpResponse.json([{ code: 'DE', name: 'Germany', company_count: 10 }])),
    http.get('*/api/locations/level1/', () => HttpResponse.json([])),
    http.get('*/api/locations/level2/', () => HttpResponse.json([])),
    http.get('*/api/categories/', () => HttpResponse.json([])),
    // a service without extensions: the coverage shows contact bars from the count endpoint only
    http.get('*/api/capabilities/', () => HttpResponse.json({ detail: 'Not found.' }, { status: 404 })),
    http.get('*/api/companies/', () =>
      HttpResponse.json({ totalCount: 5, search_id: 8, results: [{ name: 'Bäckerei Schmidt', city: 'Köln', categories: ['Bakery'] }] }),
    ),
  )
  const queryClient = createTestQueryClient()
  queryClient.setQueryData(
    profileOptions().queryKey,
    profileSchema().parse({ id: 1, email: 'a@example.com', remaining_credits: 100, purchased_credits_available: 0 }),
  )
  return queryClient
}

describe('search page: export confirmation', () => {
  it.each([
    ['Escape', 'side panel', 0],
    ['Cancel', 'side panel', 0],
    ['Escape', 'bottom bar', 1],
  ])('gives focus back to "Export…" when closed with %s (%s)', async (how, _where, index) => {
    const queryClient = searchService()
    const user = userEvent.setup()
    renderWithProviders(<SearchPage />, { route: '/search?country=DE', queryClient })
    const exportButton = screen.getAllByRole('button', { name: 'Export…' })[index]!
    await waitFor(() => expect(exportButton).toBeEnabled())
    await user.click(exportButton)
    await screen.findByRole('dialog', { name: /Export 5 leads/ })
    if (how === 'Escape') await user.keyboard('{Escape}')
    else await user.click(screen.getByRole('button', { name: 'Cancel' }))
    await waitFor(() => expect(screen.queryByRole('dialog')).not.toBeInTheDocument())
    await waitFor(() => expect(exportButton).toHaveFocus())
  })

  it('keeps the count and "Export…" in a bar at the bottom for narrow screens (hidden where the side panel shows)', async () => {
    const queryClient = searchService()
    renderWithProviders(<SearchPage />, { route: '/search?country=DE', queryClient })
    const buttons = screen.getAllByRole('button', { name: 'Export…' })
    expect(buttons).toHaveLength(2)
    const bar = buttons[1]!.closest('.fixed')!
    expect(bar).toHaveClass('lg:hidden')
    await waitFor(() => expect(bar).toHaveTextContent('Matching leads5 leads'))
    expect(buttons[1]).toBeEnabled()
    expect(screen.getByRole('main')).toHaveClass('pb-24')
  })
})
