import { screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { http, HttpResponse } from 'msw'
import { describe, expect, it, vi } from 'vitest'
import { emptyFilters } from '@/domain/search-filters'
import { capabilitiesOptions } from '@/api/capabilities/get-capabilities'
import { profileOptions, profileSchema } from '@/api/account/profile'
import { changeLanguage } from '@/lib/i18n'
import { server } from '@/testing/msw-server'
import { createTestQueryClient, renderWithProviders } from '@/testing/render'
import { ExportExtras } from './export-extras'

const COLUMNS = ['name', 'email', 'phone', 'website', 'city', 'country', 'rating', 'place_id']

function signedIn(id = 7, extra: Record<string, unknown> = {}) {
  const queryClient = createTestQueryClient()
  queryClient.setQueryData(
    profileOptions().queryKey,
    profileSchema().parse({ id, email: 'a@example.com', subscription_plan: null, ...extra }),
  )
  return queryClient
}

const withExtensions = () =>
  server.use(
    http.get('*/api/capabilities/', () =>
      HttpResponse.json({
        skip_owned: { version: 1 },
        export_columns: { version: 1, columns: COLUMNS },
        file_locale: { version: 1, languages: ['en', 'de'] },
      }),
    ),
    http.get('*/api/companies/owned/', () => HttpResponse.json({ totalCount: 90, owned_count: 40, new_count: 50 })),
  )

const filters = { ...emptyFilters, countries: ['DE'] }

describe('export extensions in the search builder', () => {
  it('shows nothing on a service without /api/capabilities/ (the real one), and asks nothing else', async () => {
    let asked = false
    server.use(
      http.get('*/api/companies/owned/', () => {
        asked = true
        return HttpResponse.json({})
      }),
    )
    const { container } = renderWithProviders(<ExportExtras filters={filters} ready onCap={() => {}} />, { queryClient: signedIn() })
    await new Promise((r) => setTimeout(r, 50))
    expect(container).toBeEmptyDOMElement()
    expect(asked).toBe(false)
  })

  it('says how many leads the account has, and skipping them is on by default', async () => {
    withExtensions()
    renderWithProviders(<ExportExtras filters={filters} ready onCap={() => {}} />, { queryClient: signedIn() })
    expect(await screen.findByText('Leads you already have: 40 of 90')).toBeInTheDocument()
    expect(screen.getByRole('checkbox', { name: /Skip leads I already have \(credits saved: 40\)/ })).toBeChecked()
  })

  it('chooses columns by preset and order, remembered per account', async () => {
    withExtensions()
    const queryClient = signedIn(7)
    const { unmount } = renderWithProviders(<ExportExtras filters={filters} ready onCap={() => {}} />, { queryClient })
    await userEvent.click(await screen.findByRole('button', { name: /file/i }))
    expect(await screen.findByTestId('columns-summary')).toHaveTextContent('all 8')
    await userEvent.click(screen.getByRole('button', { name: 'Choose columns' }))
    await userEvent.click(await screen.findByRole('button', { name: 'Contact details only' }))
    expect(screen.getByTestId('columns-summary')).toHaveTextContent('6 of 8')
    const chosen = screen.getByRole('list', { name: 'Columns in the file, in order' })
    expect(
      within(chosen)
        .getAllByRole('listitem')
        .map((li) => li.querySelector('label')?.textContent?.replace(/^\d+\./, '')),
    ).toEqual(['Name', 'Email', 'Phone', 'Website', 'City', 'Country'])
    await userEvent.click(screen.getByRole('button', { name: 'Move Email up' }))
    await userEvent.click(within(screen.getByRole('list', { name: 'Other columns' })).getByRole('checkbox', { name: 'Place ID' }))
    expect(JSON.parse(localStorage.getItem('leads.export-file.7')!).columns).toEqual([
      'email',
      'name',
      'phone',
      'website',
      'city',
      'country',
      'place_id',
    ])
    unmount()

    // another account in the same browser has its own choice
    renderWithProviders(<ExportExtras filters={filters} ready onCap={() => {}} />, { queryClient: signedIn(8) })
    await userEvent.click(await screen.findByRole('button', { name: /file/i }))
    expect(await screen.findByTestId('columns-summary')).toHaveTextContent('all 8')
  })

  it('offers one email per column when the service writes it (extension email_columns), remembered per account', async () => {
    server.use(
      http.get('*/api/capabilities/', () =>
        HttpResponse.json({
          export_columns: { version: 1, columns: COLUMNS },
          email_columns: { version: 1, values: ['joined', 'split'], max_columns: 5 },
        }),
      ),
    )
    const { unmount } = renderWithProviders(<ExportExtras filters={filters} ready onCap={() => {}} />, { queryClient: signedIn(7) })
    await userEvent.click(await screen.findByRole('button', { name: /file/i }))
    const split = await screen.findByRole('checkbox', { name: /One email per column/ })
    expect(split).not.toBeChecked()
    expect(split.closest('label')).toHaveTextContent('as CRMs import them')
    await userEvent.click(split)
    expect(split).toBeChecked()
    expect(JSON.parse(localStorage.getItem('leads.export-file.7')!).splitEmails).toBe(true)

    // a file without the email column has nothing to split
    await userEvent.click(screen.getByRole('button', { name: 'Choose columns' }))
    await userEvent.click(
      within(await screen.findByRole('list', { name: 'Columns in the file, in order' })).getByRole('checkbox', { name: /Email$/ }),
    )
    expect(screen.queryByRole('checkbox', { name: /One email per column/ })).toBeNull()
    unmount()

    // the choice comes back with the account
    renderWithProviders(<ExportExtras filters={filters} ready onCap={() => {}} />, { queryClient: signedIn(7) })
    await userEvent.click(await screen.findByRole('button', { name: /file/i }))
    await userEvent.click(await screen.findByRole('button', { name: 'Choose columns' }))
    await userEvent.click(await screen.findByRole('button', { name: 'Everything' }))
    expect(await screen.findByRole('checkbox', { name: /One email per column/ })).toBeChecked()
  })

  it('does not offer one email per column when the service does not list it', async () => {
    withExtensions()
    const { queryClient } = renderWithProviders(<ExportExtras filters={filters} ready onCap={() => {}} />, { queryClient: signedIn() })
    await userEvent.click(await screen.findByRole('button', { name: /file/i }))
    expect(await screen.findByTestId('columns-summary')).toBeInTheDocument()
    expect(queryClient.getQueryState(capabilitiesOptions().queryKey)?.status).toBe('success')
    expect(screen.queryByRole('checkbox', { name: /One email per column/ })).toBeNull()
  })

  it('describes the spreadsheet-ready file in the dashboard language (German: ; and decimal comma)', async () => {
    withExtensions()
    await changeLanguage('de')
    try {
      renderWithProviders(<ExportExtras filters={{ ...filters, format: 'csv' }} ready onCap={() => {}} />, { queryClient: signedIn() })
      await userEvent.click(await screen.findByRole('button', { name: /datei/i }))
      const ready = await screen.findByRole('radio', { name: /Deutsch/ })
      expect(ready).toBeChecked()
      await waitFor(() => expect(ready.closest('label')).toHaveTextContent('„;“'))
      expect(ready.closest('label')).toHaveTextContent('„,“')
    } finally {
      await changeLanguage('en')
    }
  })

  it('states the purchased credits that expire within 7 days, but offers no cap for them when the service does not say which credits it spends first', async () => {
    const { queryClient } = renderWithProviders(<ExportExtras filters={filters} ready onCap={() => {}} />, {
      queryClient: signedIn(7, {
        purchased_credits_expiring_soon: 40,
        credit_lots: [{ source: 'purchased', credits: 40, expires_at: '2026-12-03T00:00:00Z' }],
      }),
    })
    expect(await screen.findByTestId('expiring-hint')).toHaveTextContent('Purchased credits expiring within 7 days: 40')
    await waitFor(() => expect(queryClient.getQueryState(capabilitiesOptions().queryKey)?.status).toBe('success'))
    expect(screen.queryByRole('button', { name: /Cap this export/ })).toBeNull()
  })

  it('with credit_order, caps the export to spend them: in the service’s order, counting what it spends before them', async () => {
    server.use(http.get('*/api/capabilities/', () => HttpResponse.json({ credit_order: { version: 1, order: 'earliest_expiry_first' } })))
    const onCap = vi.fn()
    const lots = [
      { source: 'purchased', credits: 40, expires_at: '2026-12-03T00:00:00Z' },
      { source: 'subscription', credits: 500, expires_at: '2026-12-20T00:00:00Z' },
    ]
    const { unmount } = renderWithProviders(<ExportExtras filters={filters} ready onCap={onCap} />, {
      queryClient: signedIn(7, { purchased_credits_expiring_soon: 40, credit_lots: lots }),
    })
    await userEvent.click(await screen.findByRole('button', { name: 'Cap this export at 40' }))
    expect(onCap).toHaveBeenCalledWith(40)
    unmount()

    // subscription credits ending even sooner are spent before them: the cap counts those too
    renderWithProviders(<ExportExtras filters={filters} ready onCap={onCap} />, {
      queryClient: signedIn(7, {
        purchased_credits_expiring_soon: 40,
        credit_lots: [{ ...lots[1], expires_at: '2026-12-02T00:00:00Z', credits: 25 }, lots[0]],
      }),
    })
    await userEvent.click(await screen.findByRole('button', { name: 'Cap this export at 65' }))
    expect(onCap).toHaveBeenLastCalledWith(65)
  })
})
