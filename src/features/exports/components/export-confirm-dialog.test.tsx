import { fireEvent, screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { http, HttpResponse } from 'msw'
import { describe, expect, it, vi } from 'vitest'
import { profileOptions } from '@/api/account/profile'
import { emptyFilters } from '@/domain/search-filters'
import { changeLanguage } from '@/lib/i18n'
import { server } from '@/testing/msw-server'
import { withBalance } from '@/testing/fixtures'
import { renderWithProviders } from '@/testing/render'
import { ExportConfirmDialog } from './export-confirm-dialog'

const props = {
  open: true,
  onClose: () => {},
  searchId: '55',
  filters: { ...emptyFilters, countries: ['DE'] },
  format: 'excel' as const,
  onSetCap: () => {},
  onStarted: () => {},
}

describe('export confirmation', () => {
  it('shows cost, who pays, the balance afterwards and the link life, then starts and refreshes the balance', async () => {
    const queryClient = withBalance(100, 40)
    let body: unknown
    server.use(
      http.post('*/api/download-csv/', async ({ request }) => {
        body = await request.json()
        return HttpResponse.json({ search_id: 99, status: 'PENDING', lead_count: 120, credits_charged: 120 }, { status: 202 })
      }),
    )
    const onStarted = vi.fn()
    renderWithProviders(<ExportConfirmDialog {...props} totalCount={500} cap={120} onStarted={onStarted} />, { queryClient })
    const dialog = await screen.findByRole('dialog', { name: 'Export 120 leads?' })
    await screen.findByTestId('export-cost')
    expect(dialog).toHaveTextContent('capped at 120')
    expect(screen.getByTestId('export-cost')).toHaveTextContent('120 credits')
    // the interface does not say which balance pays: the total afterwards, no split (issue 21)
    expect(screen.getByTestId('balance-after')).toHaveTextContent('20 credits')
    expect(dialog).not.toHaveTextContent('From your')
    expect(dialog).not.toHaveTextContent('subscription +')
    expect(dialog).toHaveTextContent('The download link is valid for 14 days.')
    expect(screen.getByText('Excel (XLSX)').tagName).toBe('BDI')

    await userEvent.click(screen.getByRole('button', { name: 'Start export' }))
    await waitFor(() => expect(onStarted).toHaveBeenCalledWith(expect.objectContaining({ search_id: '99' })))
    expect(body).toEqual({ search_id: 55, export_format: 'excel', max_leads: 120 })
    expect(queryClient.getQueryState(profileOptions().queryKey)?.isInvalidated).toBe(true)
  })

  it('says "not enough" before sending, offers the affordable cap, and sends nothing', async () => {
    const queryClient = withBalance(30, 10)
    const onSetCap = vi.fn()
    renderWithProviders(<ExportConfirmDialog {...props} totalCount={500} cap={null} onSetCap={onSetCap} />, { queryClient })
    expect(await screen.findByText('Not enough credits')).toBeInTheDocument()
    expect(screen.getByText('This export costs 500 credits; you have 40.')).toBeInTheDocument()
    expect(screen.getByRole('button', { name: 'Start export' })).toBeDisabled()
    expect(screen.getByRole('link', { name: 'See plans and credits' })).toHaveAttribute('href', '/plans')
    await userEvent.click(screen.getByRole('button', { name: 'Export only 40 leads' }))
    expect(onSetCap).toHaveBeenCalledWith(40)
  })

  it('shows the service’s own figures when it still refuses with 403 insufficient_credits', async () => {
    const queryClient = withBalance(100, 0)
    server.use(
      http.post('*/api/download-csv/', () =>
        HttpResponse.json(
          { detail: 'Not enough credits', validation_code: 'insufficient_credits', required_credits: 80, available_credits: 12 },
          { status: 403 },
        ),
      ),
      http.get('*/api/user/profile/', () => HttpResponse.json({ id: 1, email: 'a@example.com', remaining_credits: 12 })),
    )
    renderWithProviders(<ExportConfirmDialog {...props} totalCount={80} cap={null} />, { queryClient })
    await userEvent.click(await screen.findByRole('button', { name: 'Start export' }))
    expect(await screen.findByText('The service refused: 80 credits needed, 12 available. Nothing was charged.')).toBeInTheDocument()
  })

  it('starts exactly one export when "Start export" is pressed twice before the first answer', async () => {
    const queryClient = withBalance(100, 0)
    let posts = 0
    server.use(
      http.post('*/api/download-csv/', async () => {
        posts += 1
        await new Promise((r) => setTimeout(r, 50))
        return HttpResponse.json({ search_id: 99, status: 'PENDING', lead_count: 80, credits_charged: 80 }, { status: 202 })
      }),
    )
    const onStarted = vi.fn()
    renderWithProviders(<ExportConfirmDialog {...props} totalCount={80} cap={null} onStarted={onStarted} />, { queryClient })
    await screen.findByTestId('export-cost') // the cost is known: the button can be pressed
    const button = screen.getByRole('button', { name: 'Start export' })
    // Two presses in the same tick: React has not re-rendered with isPending between them.
    fireEvent.click(button)
    fireEvent.click(button)
    await waitFor(() => expect(button).toBeDisabled())
    await userEvent.keyboard('{Enter}')
    await waitFor(() => expect(onStarted).toHaveBeenCalledTimes(1))
    expect(button).toBeDisabled()
    fireEvent.click(button)
    await new Promise((r) => setTimeout(r, 100))
    expect(posts).toBe(1)
    expect(onStarted).toHaveBeenCalledTimes(1)
  })

  it('lets the person try again after a failed start, still one request per press', async () => {
    const queryClient = withBalance(100, 0)
    let posts = 0
    server.use(
      http.post('*/api/download-csv/', () => {
        posts += 1
        return posts === 1
          ? HttpResponse.json({ detail: 'Busy' }, { status: 503 })
          : HttpResponse.json({ search_id: 99, status: 'PENDING', lead_count: 80, credits_charged: 80 }, { status: 202 })
      }),
    )
    const onStarted = vi.fn()
    renderWithProviders(<ExportConfirmDialog {...props} totalCount={80} cap={null} onStarted={onStarted} />, { queryClient })
    await screen.findByTestId('export-cost') // the cost is known: the button can be pressed
    const button = screen.getByRole('button', { name: 'Start export' })
    fireEvent.click(button)
    fireEvent.click(button)
    await waitFor(() => expect(button).toBeEnabled())
    expect(posts).toBe(1)
    fireEvent.click(button)
    fireEvent.click(button)
    await waitFor(() => expect(onStarted).toHaveBeenCalledTimes(1))
    expect(posts).toBe(2)
  })

  it("with the service's extensions: leaves out the leads the account has, charges the rest, says what file it makes", async () => {
    const queryClient = withBalance(1000, 0)
    let body: unknown
    server.use(
      http.get('*/api/capabilities/', () =>
        HttpResponse.json({
          skip_owned: { version: 1 },
          export_columns: { version: 1, columns: ['name', 'email', 'phone'] },
          file_locale: { version: 1, languages: ['en', 'de'] },
        }),
      ),
      http.get('*/api/companies/owned/', ({ request }) => {
        expect(new URL(request.url).searchParams.getAll('countries')).toEqual(['DE'])
        return HttpResponse.json({ totalCount: 500, owned_count: 200, new_count: 300 })
      }),
      http.post('*/api/download-csv/', async ({ request }) => {
        body = await request.json()
        return HttpResponse.json(
          { search_id: 99, status: 'PENDING', lead_count: 300, credits_charged: 300, skipped_owned: 200 },
          { status: 202 },
        )
      }),
    )
    const onStarted = vi.fn()
    renderWithProviders(<ExportConfirmDialog {...props} format="csv" totalCount={500} cap={null} onStarted={onStarted} />, { queryClient })
    const dialog = await screen.findByRole('dialog', { name: 'Export 300 leads?' })
    expect(screen.getByTestId('export-cost')).toHaveTextContent('300 credits')
    expect(screen.getByTestId('export-saved')).toHaveTextContent('200')
    expect(dialog).toHaveTextContent('Leads you already have: 200 of 500')
    expect(screen.getByTestId('export-file-kind')).toHaveTextContent('Headers in English, “,” between columns, “.” as decimal mark')

    // turning the skip off costs every lead again
    const skip = screen.getByRole('checkbox', { name: /Skip leads I already have/ })
    expect(skip).toBeChecked()
    await userEvent.click(skip)
    expect(await screen.findByRole('dialog', { name: 'Export 500 leads?' })).toBeInTheDocument()
    expect(screen.queryByTestId('export-saved')).toBeNull()
    await userEvent.click(skip)
    await screen.findByRole('dialog', { name: 'Export 300 leads?' })

    await userEvent.click(screen.getByRole('button', { name: 'Start export' }))
    await waitFor(() => expect(onStarted).toHaveBeenCalled())
    expect(body).toEqual({ search_id: 55, export_format: 'csv', skip_owned: true, file_locale: 'en' })
  })

  it("without /api/capabilities/ (the real service) sends the interface's request and asks nothing else", async () => {
    const queryClient = withBalance(1000, 0)
    let body: unknown
    let ownedAsked = false
    server.use(
      http.get('*/api/companies/owned/', () => {
        ownedAsked = true
        return HttpResponse.json({ detail: 'Not found.' }, { status: 404 })
      }),
      http.post('*/api/download-csv/', async ({ request }) => {
        body = await request.json()
        return HttpResponse.json({ search_id: 99, status: 'PENDING', lead_count: 500, credits_charged: 500 }, { status: 202 })
      }),
    )
    const onStarted = vi.fn()
    renderWithProviders(<ExportConfirmDialog {...props} format="csv" totalCount={500} cap={null} onStarted={onStarted} />, { queryClient })
    await screen.findByRole('dialog', { name: 'Export 500 leads?' })
    expect(screen.queryByRole('checkbox')).toBeNull()
    expect(screen.queryByTestId('export-file-kind')).toBeNull()
    await userEvent.click(await screen.findByRole('button', { name: 'Start export' }))
    await waitFor(() => expect(onStarted).toHaveBeenCalled())
    expect(body).toEqual({ search_id: 55, export_format: 'csv' })
    expect(ownedAsked).toBe(false)
    expect(screen.queryByRole('alert')).toBeNull()
  })
  describe('the file it makes', () => {
    const COLUMNS = ['name', 'email', 'phone', 'website', 'address', 'city', 'country', 'rating']
    const withColumns = (chosen: string[] | null) => {
      localStorage.setItem('leads.export-file.7', JSON.stringify({ columns: chosen, spreadsheet: true }))
      server.use(
        http.get('*/api/capabilities/', () =>
          HttpResponse.json({ export_columns: { version: 1, columns: COLUMNS }, file_locale: { version: 1, languages: ['en', 'pl'] } }),
        ),
      )
    }

    it('names the chosen columns in the file’s order, the rest counted, the whole list a click away', async () => {
      withColumns(['email', 'name', 'phone', 'website', 'city', 'country', 'rating'])
      renderWithProviders(<ExportConfirmDialog {...props} format="csv" totalCount={50} cap={null} />, { queryClient: withBalance(1000) })
      expect(await screen.findByTestId('export-columns')).toHaveTextContent('7 of 8')
      const names = await screen.findByTestId('export-column-names')
      const summary = within(names).getByText('Email, Name, Phone, and 4 more')
      expect(within(names).getByText('Email, Name, Phone, Website, City, Country, and Rating')).not.toBeVisible()
      await userEvent.click(summary)
      expect(within(names).getByText('Email, Name, Phone, Website, City, Country, and Rating')).toBeVisible()
    })

    it('asks for one email per column when chosen and offered (extension email_columns), and says so', async () => {
      localStorage.setItem('leads.export-file.7', JSON.stringify({ columns: null, spreadsheet: false, splitEmails: true }))
      let body: unknown
      server.use(
        http.get('*/api/capabilities/', () =>
          HttpResponse.json({ email_columns: { version: 1, values: ['joined', 'split'], max_columns: 5 } }),
        ),
        http.post('*/api/download-csv/', async ({ request }) => {
          body = await request.json()
          return HttpResponse.json({ search_id: 99, status: 'PENDING' }, { status: 202 })
        }),
      )
      const onStarted = vi.fn()
      renderWithProviders(<ExportConfirmDialog {...props} format="csv" totalCount={50} cap={null} onStarted={onStarted} />, {
        queryClient: withBalance(1000),
      })
      const fact = await screen.findByTestId('export-email-columns')
      expect(fact).toHaveTextContent('One per column')
      expect(fact.previousElementSibling).toHaveTextContent('Emails')
      await userEvent.click(screen.getByRole('button', { name: 'Start export' }))
      await waitFor(() => expect(onStarted).toHaveBeenCalled())
      expect(body).toEqual({ search_id: 55, export_format: 'csv', email_columns: 'split' })
    })

    for (const [label, capabilities, columns, expected] of [
      [
        'a service without the extension',
        { export_columns: { version: 1, columns: COLUMNS } },
        null,
        { search_id: 55, export_format: 'csv' },
      ],
      [
        'a file without the email column',
        { export_columns: { version: 1, columns: COLUMNS }, email_columns: { version: 1, values: ['joined', 'split'] } },
        ['name', 'phone'],
        { search_id: 55, export_format: 'csv', columns: ['name', 'phone'] },
      ],
    ] as const) {
      it(`asks for no email columns of ${label}, though the person chose them`, async () => {
        localStorage.setItem('leads.export-file.7', JSON.stringify({ columns, spreadsheet: false, splitEmails: true }))
        let body: unknown
        server.use(
          http.get('*/api/capabilities/', () => HttpResponse.json(capabilities)),
          http.post('*/api/download-csv/', async ({ request }) => {
            body = await request.json()
            return HttpResponse.json({ search_id: 99, status: 'PENDING' }, { status: 202 })
          }),
        )
        const onStarted = vi.fn()
        renderWithProviders(<ExportConfirmDialog {...props} format="csv" totalCount={50} cap={null} onStarted={onStarted} />, {
          queryClient: withBalance(1000),
        })
        await userEvent.click(await screen.findByRole('button', { name: 'Start export' }))
        await waitFor(() => expect(onStarted).toHaveBeenCalled())
        expect(body).toEqual(expected)
        expect(screen.queryByTestId('export-email-columns')).toBeNull()
      })
    }

    it('names a short choice whole', async () => {
      withColumns(['phone', 'name', 'email', 'city'])
      renderWithProviders(<ExportConfirmDialog {...props} format="csv" totalCount={50} cap={null} />, { queryClient: withBalance(1000) })
      expect(await screen.findByTestId('export-column-names')).toHaveTextContent(/^Phone, Name, Email, and City$/)
    })

    it('names the file’s language so that no language has to inflect it (Polish: „Nagłówki: polski”)', async () => {
      withColumns(null)
      await changeLanguage('pl')
      try {
        renderWithProviders(<ExportConfirmDialog {...props} format="csv" totalCount={50} cap={null} />, { queryClient: withBalance(1000) })
        expect(await screen.findByTestId('export-file-kind')).toHaveTextContent(
          'Nagłówki: polski, „;” między kolumnami, „,” jako separator dziesiętny',
        )
        // every column, the service's default: nothing to name
        expect(screen.queryByTestId('export-columns')).toBeNull()
      } finally {
        await changeLanguage('en')
      }
    })
  })
})
