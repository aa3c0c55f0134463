import { screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { http, HttpResponse } from 'msw'
import { afterEach, beforeAll, describe, expect, it } from 'vitest'
import { profileOptions, profileSchema } from '@/api/account/profile'
import { changeLanguage } from '@/lib/i18n'
import { server } from '@/testing/msw-server'
import { createTestQueryClient, renderWithProviders } from '@/testing/render'
import { Component as SearchPage } from './search'

// The confirmation is the page's lazy chunk: its first import here is Vite transforming it (seconds on a
// busy machine), not what the tests are about, so it is loaded once before them.
beforeAll(() => import('@/features/exports/components/export-confirm-dialog'))

/** Issue 21: the cap the person typed, in their language, is the one the confirmation offers, or nothing is. */
function searchService() {
  server.use(
    http.get('*/api/locations/countries/', () => HttpResponse.json([{ code: 'DE', name: 'Germany', company_count: 6000 }])),
    http.get('*/api/locations/level1/', () => HttpResponse.json([])),
    http.get('*/api/locations/level2/', () => HttpResponse.json([])),
    http.get('*/api/categories/', () => HttpResponse.json([])),
    http.get('*/api/companies/', () => HttpResponse.json({ totalCount: 5031, search_id: 8, results: [] })),
  )
  const queryClient = createTestQueryClient()
  queryClient.setQueryData(
    profileOptions().queryKey,
    profileSchema().parse({ id: 1, email: 'a@example.com', remaining_credits: 100_000, purchased_credits_available: 0 }),
  )
  return queryClient
}

const exportButtons = () => screen.getAllByRole('button', { name: /^(Export…|Exportieren…)$/ })

afterEach(async () => {
  await changeLanguage('en')
})

describe('search page: the export cap as typed', () => {
  it('English "1,000": read as 1,000, shown back, and the confirmation offers exactly 1,000', async () => {
    const user = userEvent.setup()
    const { router } = renderWithProviders(<SearchPage />, { route: '/search?country=DE', queryClient: searchService() })
    const cap = screen.getByLabelText('Most leads to export')
    await user.type(cap, '1,000')
    await waitFor(() => expect(cap).toHaveAccessibleDescription('Capped at 1,000 leads'))
    await waitFor(() => expect(router.state.location.search).toContain('cap=1000'))
    expect(cap).toHaveValue('1,000')
    await waitFor(() => expect(exportButtons()[0]).toBeEnabled())
    await user.click(exportButtons()[0]!)
    const dialog = await screen.findByRole('dialog', { name: 'Export 1,000 leads?' })
    expect(await within(dialog).findByTestId('export-cost')).toHaveTextContent('1,000 credits')
  })

  it('an invalid cap turns "Export…" off, in the side panel and the phone’s bottom bar, with the reason beside it', async () => {
    const user = userEvent.setup()
    const { router } = renderWithProviders(<SearchPage />, { route: '/search?country=DE&cap=200', queryClient: searchService() })
    await waitFor(() => expect(exportButtons()[0]).toBeEnabled())
    const cap = screen.getByLabelText('Most leads to export')
    expect(cap).toHaveValue('200')
    expect(cap).toHaveAccessibleDescription('Capped at 200 leads')
    await user.clear(cap)
    await user.type(cap, '1.000') // a decimal in English: never read as 1 or 1,000
    const reason = 'Enter a whole number without decimals, like 10,000.'
    await waitFor(() => expect(cap).toHaveAccessibleDescription(expect.stringContaining(reason)))
    expect(cap).toHaveAttribute('aria-invalid', 'true')
    for (const button of exportButtons()) {
      expect(button).toBeDisabled()
      expect(button).toHaveAccessibleDescription(`Export is off until the cap is fixed. ${reason}`)
    }
    expect(screen.getAllByText(`Export is off until the cap is fixed. ${reason}`)).toHaveLength(2)

    for (const [typed, why] of [
      ['abc', 'Enter a whole number, like 10,000.'],
      ['0', 'Enter a whole number above 0.'],
      ['-5', 'Enter a whole number above 0.'],
      ['1,0', 'Separators go between groups of three digits, like 10,000.'],
    ] as const) {
      await user.clear(cap)
      await user.type(cap, typed)
      await waitFor(() => expect(exportButtons()[1]).toHaveAccessibleDescription(`Export is off until the cap is fixed. ${why}`))
      expect(exportButtons()[0]).toBeDisabled()
    }

    // emptied: no cap, the whole search
    await user.clear(cap)
    await waitFor(() => expect(exportButtons()[0]).toBeEnabled())
    expect(screen.queryByText(/Export is off/)).toBeNull()
    await waitFor(() => expect(router.state.location.search).not.toContain('cap='))
  })

  it('German "1.000" is a thousand; "1,5" is refused', async () => {
    await changeLanguage('de')
    const user = userEvent.setup()
    renderWithProviders(<SearchPage />, { route: '/search?country=DE', queryClient: searchService() })
    const cap = await screen.findByLabelText('Höchstens so viele Kontakte exportieren')
    await user.type(cap, '1,5')
    await waitFor(() => expect(exportButtons()[0]).toBeDisabled())
    await user.clear(cap)
    await user.type(cap, '1.000')
    await waitFor(() => expect(exportButtons()[0]).toBeEnabled())
    await user.click(exportButtons()[0]!)
    const dialog = await screen.findByRole('dialog', { name: '1.000 Kontakte exportieren?' })
    expect(await within(dialog).findByTestId('export-cost')).toHaveTextContent('1.000 Credits')
  })
})
