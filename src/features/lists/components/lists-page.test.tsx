import { screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { http, HttpResponse } from 'msw'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { resetSessionForTests, setTokensForTests } from '@/lib/session'
import { server } from '@/testing/msw-server'
import { renderWithProviders } from '@/testing/render'
import { ListsPage } from './lists-page'

const capability = { lists: { version: 1, limit: 20, max_rows: 200_000, max_file_mb: 50, fields: [] } }

const list = (id: number, over: Record<string, unknown> = {}) => ({
  id,
  name: `List ${id}`,
  status: 'matched',
  file_type: 'csv',
  encoding: 'utf-8',
  delimiter: ',',
  headers: ['Name', 'City'],
  proposed_mapping: { name: 0, city: 1 },
  mapping: { name: 0, city: 1 },
  default_country: null,
  total_rows: 1200,
  matched_rows: 1200,
  error: null,
  created_at: '2026-03-04T10:00:00Z',
  completed_at: '2026-03-04T10:01:00Z',
  ...over,
})

function serve(lists: ReturnType<typeof list>[]) {
  const seen: string[] = []
  server.use(
    http.get('/api/capabilities/', () => HttpResponse.json(capability)),
    http.get('/api/locations/countries/', () => HttpResponse.json([{ code: 'DE' }, { code: 'FR' }])),
    http.get('/api/lists/', ({ request }) => {
      seen.push(new URL(request.url).pathname)
      return HttpResponse.json(lists)
    }),
    http.get('/api/lists/:id/report/', ({ params }) =>
      HttpResponse.json({
        list_id: Number(params.id),
        status: 'matched',
        total_rows: 1200,
        matched_rows: 1200,
        matched: 1000,
        ambiguous: 150,
        unmatched: 50,
        pending: 0,
        by_rule: { domain: 900, phone: 50, name_city: 50, manual: 0 },
      }),
    ),
  )
  return seen
}

/** FileTrigger's input: hidden, opened by its button (a person never sees it). */
const fileInput = () => document.querySelector<HTMLInputElement>('input[type=file]')!

beforeEach(() => setTokensForTests('access-token', 'refresh-token'))
afterEach(() => resetSessionForTests())

describe('ListsPage', () => {
  it('without the extension says so and asks nothing about lists', async () => {
    // the default handler: /api/capabilities/ answers 404; any request to /api/lists/ would fail the test
    renderWithProviders(<ListsPage />)
    expect(await screen.findByText('This service does not offer lists.')).toBeInTheDocument()
    expect(screen.queryByRole('button', { name: 'Upload' })).not.toBeInTheDocument()
  })

  it('explains what a list is for when there is none, and the limits before an upload', async () => {
    serve([])
    renderWithProviders(<ListsPage />)
    expect(await screen.findByText('No lists yet')).toBeInTheDocument()
    expect(screen.getByText(/leave those businesses out of every search/)).toBeInTheDocument()
    expect(screen.getByText(/up to 50 MB and 200,000 rows/)).toBeInTheDocument()
    expect(screen.getByText('Lists: 0 of 20')).toBeInTheDocument()
  })

  it('shows each list with its rows, status, counts by result and date; a list being matched shows its progress', async () => {
    serve([list(2), list(1, { status: 'matching', matched_rows: 300, name: 'CRM' })])
    renderWithProviders(<ListsPage />)
    const table = await screen.findByRole('region', { name: 'Your lists' })
    const matched = within(table).getByRole('row', { name: /List 2/ })
    await waitFor(() =>
      expect(
        within(matched)
          .getAllByRole('cell')
          .map((c) => c.textContent),
      ).toEqual(['List 2', '1,200', 'Matched', '1,000', '150', '50', 'Mar 4, 2026']),
    )
    expect(within(matched).getByRole('link', { name: 'List 2' })).toHaveAttribute('href', '/lists/2')
    const matching = within(table).getByRole('row', { name: /CRM/ })
    expect(within(matching).getByText('Matching 25%')).toBeInTheDocument()
    expect(within(matching).getAllByRole('cell')[3]).toHaveTextContent('–')
  })

  it('at the limit says so instead of offering an upload', async () => {
    serve(Array.from({ length: 20 }, (_, i) => list(i + 1, { status: 'uploaded' })))
    renderWithProviders(<ListsPage />)
    expect(await screen.findByText(/Your account holds the most lists it can \(20\)/)).toBeInTheDocument()
    expect(screen.queryByRole('button', { name: 'Upload' })).not.toBeInTheDocument()
  })

  it('says a file the service refuses in words, with what to do', async () => {
    serve([])
    server.use(
      http.post('/api/lists/', () =>
        HttpResponse.json(
          {
            detail: 'The file has more than 200000 rows.',
            errors: { file: ['The file has more than 200000 rows.'] },
            error_codes: { file: [{ code: 'file_too_many_rows', limit: 200000 }] },
          },
          { status: 400 },
        ),
      ),
    )
    const user = userEvent.setup()
    renderWithProviders(<ListsPage />)
    await screen.findByText('No lists yet')
    await user.upload(fileInput(), new File(['Name\nA\n'], 'big.csv', { type: 'text/csv' }))
    await user.click(screen.getByRole('button', { name: 'Upload' }))
    const alert = await screen.findByRole('alert')
    expect(alert).toHaveTextContent('The file was not uploaded: The file has more than 200,000 rows.')
    expect(alert).toHaveTextContent('Split the file into smaller ones')
  })

  it('refuses a file over the size limit before sending it', async () => {
    serve([])
    const user = userEvent.setup()
    renderWithProviders(<ListsPage />)
    await screen.findByText('No lists yet')
    const big = new File(['x'], 'big.csv', { type: 'text/csv' })
    Object.defineProperty(big, 'size', { value: 51 * 1024 * 1024 })
    await user.upload(fileInput(), big)
    expect(screen.getByRole('alert')).toHaveTextContent('This file is larger than 50 MB.')
    expect(screen.getByRole('button', { name: 'Upload' })).toBeDisabled()
  })

  it('uploads the file with its name, country and token, then opens the list', async () => {
    serve([])
    let sent: { auth: string | null; name: unknown; country: unknown; file: unknown } | undefined
    server.use(
      http.post('/api/lists/', async ({ request }) => {
        const form = await request.formData()
        // jsdom's XMLHttpRequest sends a file part named "blob" (a browser sends the file's name): its content is checked
        const file = form.get('file') as { text: () => Promise<string> }
        sent = {
          auth: request.headers.get('Authorization'),
          name: form.get('name'),
          country: form.get('default_country'),
          file: await file.text(),
        }
        return HttpResponse.json({ ...list(7, { status: 'uploaded', mapping: null }), preview: [] }, { status: 201 })
      }),
    )
    const user = userEvent.setup()
    const { router } = renderWithProviders(<ListsPage />, { route: '/lists', routes: [{ path: '/lists/:id', element: <p>list page</p> }] })
    await screen.findByText('No lists yet')
    await user.upload(fileInput(), new File(['Name;City\nA;B\n'], 'clients.csv'))
    expect(screen.getByText(/clients\.csv/)).toBeInTheDocument()
    await user.type(screen.getByLabelText('Name of the list'), 'Clients')
    await user.selectOptions(await screen.findByLabelText('Country of phone numbers'), 'DE')
    await user.click(screen.getByRole('button', { name: 'Upload' }))
    await waitFor(() => expect(router.state.location.pathname).toBe('/lists/7'))
    expect(sent).toEqual({ auth: 'Bearer access-token', name: 'Clients', country: 'DE', file: 'Name;City\nA;B\n' })
  })
})
