import { screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { http, HttpResponse } from 'msw'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { resetSessionForTests, setTokensForTests } from '@/lib/session'
import { server } from '@/testing/msw-server'
import { renderWithProviders } from '@/testing/render'
import { ListPage } from './list-page'

const detail = (over: Record<string, unknown> = {}) => ({
  id: 5,
  name: 'Kunden',
  status: 'uploaded',
  file_type: 'csv',
  encoding: 'windows-1252',
  delimiter: ';',
  headers: ['Firma', 'Ort', 'Telefon', 'Notiz'],
  proposed_mapping: { name: 0, city: 1, phone: 2 },
  mapping: null,
  default_country: 'DE',
  total_rows: 3,
  matched_rows: 0,
  error: null,
  created_at: '2026-03-04T10:00:00Z',
  completed_at: null,
  preview: [
    { row_no: 1, cells: ['Café Rot', 'Köln', '0221 1234', ''] },
    { row_no: 2, cells: ['Bäckerei Blau', 'Bonn', '', 'VIP'] },
  ],
  ...over,
})

const matchedRow = {
  row_no: 1,
  cells: ['Café Rot', 'Köln', '0221 1234', ''],
  status: 'matched',
  match: {
    company_id: 41,
    name: 'Café Rot GmbH',
    city: 'Köln',
    street: 'Ringstraße 1',
    postal_code: '50667',
    rule: 'phone',
    confidence: 0.93,
  },
  candidates: [],
}
const ambiguousRow = {
  row_no: 2,
  cells: ['Bäckerei Blau', 'Bonn', '', 'VIP'],
  status: 'ambiguous',
  match: null,
  candidates: [
    { company_id: 51, name: 'Bäckerei Blau', city: 'Bonn', street: 'Markt 2', postal_code: '53111', website: null },
    { company_id: 52, name: 'Blau Backwaren', city: 'Bonn', street: null, postal_code: null, website: 'https://blau.example' },
  ],
}

/** A fake of the list's endpoints: the report and rows follow the matches the page sets. */
function serve(initial: ReturnType<typeof detail>) {
  const state = { list: initial, matchedTo: new Map<number, number | null>([[1, 41]]) }
  const puts: { path: string; body: unknown }[] = []
  const rowOf = (r: typeof matchedRow | typeof ambiguousRow) => {
    const company = state.matchedTo.get(r.row_no)
    if (company === undefined) return r
    if (company === null) return { ...r, status: 'unmatched', match: null, candidates: [] }
    return company === 41 ? matchedRow : { ...r, status: 'matched', match: { ...matchedRow.match, company_id: company, rule: 'manual' } }
  }
  const rows = () => [
    rowOf(matchedRow),
    rowOf(ambiguousRow),
    { row_no: 3, cells: ['X', 'Y', '', ''], status: 'unmatched', match: null, candidates: [] },
  ]
  server.use(
    http.get('/api/lists/5/', () => HttpResponse.json(state.list)),
    http.put('/api/lists/5/mapping/', async ({ request }) => {
      puts.push({ path: 'mapping', body: await request.json() })
      state.list = { ...state.list, status: 'matching', matched_rows: 1 }
      return HttpResponse.json(state.list, { status: 202 })
    }),
    http.post('/api/lists/5/cancel/', () => {
      state.list = { ...state.list, status: 'cancelled' }
      return HttpResponse.json(state.list)
    }),
    http.get('/api/lists/5/report/', () => {
      const all = rows()
      const by = (s: string) => all.filter((r) => r.status === s).length
      return HttpResponse.json({
        total_rows: 3,
        matched: by('matched'),
        ambiguous: by('ambiguous'),
        unmatched: by('unmatched'),
        by_rule: { phone: 1 },
      })
    }),
    http.get('/api/lists/5/rows/', ({ request }) => {
      const status = new URL(request.url).searchParams.get('status')
      const results = rows().filter((r) => !status || r.status === status)
      return HttpResponse.json({ count: results.length, page: 1, page_size: 50, results })
    }),
    http.put('/api/lists/5/rows/:row/match/', async ({ request, params }) => {
      const body = (await request.json()) as { company_id: number | null }
      puts.push({ path: `rows/${String(params.row)}`, body })
      state.matchedTo.set(Number(params.row), body.company_id)
      return HttpResponse.json(rows().find((r) => r.row_no === Number(params.row)))
    }),
    http.delete('/api/lists/5/', () => new HttpResponse(null, { status: 204 })),
    http.get('/api/lists/', () => HttpResponse.json([])),
  )
  return { state, puts }
}

const counts = () => ['matched', 'ambiguous', 'unmatched'].map((k) => screen.getByTestId(`list-report-${k}`).textContent)

beforeEach(() => setTokensForTests('access-token', 'refresh-token'))
afterEach(() => resetSessionForTests())

describe('ListPage: the columns', () => {
  it('shows the first rows as read, pre-fills the proposal, and will not send a mapping that cannot find a business', async () => {
    const { puts } = serve(detail())
    const user = userEvent.setup()
    renderWithProviders(<ListPage listId="5" />)
    expect(await screen.findByRole('heading', { level: 1, name: 'Kunden' })).toBeInTheDocument()
    expect(screen.getByText('Read as WINDOWS-1252, columns separated by semicolons.')).toBeInTheDocument()
    const preview = screen.getByRole('region', { name: 'The first rows of your file' })
    expect(within(preview).getAllByRole('row')).toHaveLength(3)
    expect(screen.getByLabelText('Business name')).toHaveValue('0')
    expect(screen.getByLabelText('Phone number')).toHaveValue('2')
    expect(screen.getByLabelText('Website')).toHaveValue('')
    expect(screen.getByText(/we need its name and city, its website, an email address or a phone number/)).toBeInTheDocument()
    // nothing to fill in before the list is matched
    expect(screen.queryByRole('button', { name: 'Fill in my list' })).not.toBeInTheDocument()

    await user.selectOptions(screen.getByLabelText('Phone number'), '')
    await user.selectOptions(screen.getByLabelText('City'), '')
    await user.click(screen.getByRole('button', { name: 'Start matching' }))
    expect(screen.getByRole('alert')).toHaveTextContent('Map a name and a city, a website, an email address or a phone number')
    expect(puts).toEqual([])

    await user.selectOptions(screen.getByLabelText('City'), 'Ort')
    await user.click(screen.getByRole('button', { name: 'Start matching' }))
    await waitFor(() => expect(puts).toEqual([{ path: 'mapping', body: { mapping: { name: 0, city: 1 } } }]))
    expect(await screen.findByRole('heading', { name: 'Matching your list' })).toBeInTheDocument()
    expect(screen.getByText('Rows done: 1 of 3')).toBeInTheDocument()
  })

  it('shows the service’s field errors beside their field', async () => {
    serve(detail())
    server.use(
      http.put('/api/lists/5/mapping/', () =>
        HttpResponse.json(
          {
            detail: 'Invalid',
            errors: { 'mapping.city': ['Column 1 is mapped twice.'] },
            error_codes: { 'mapping.city': [{ code: 'duplicate_value' }] },
          },
          { status: 400 },
        ),
      ),
    )
    const user = userEvent.setup()
    renderWithProviders(<ListPage listId="5" />)
    await user.click(await screen.findByRole('button', { name: 'Start matching' }))
    const city = screen.getByLabelText('City')
    await waitFor(() => expect(city).toHaveAttribute('aria-invalid', 'true'))
    expect(city).toHaveAccessibleDescription('This value is listed twice.')
  })
})

describe('ListPage: matching', () => {
  it('polls the list while it is matched, and stops it after asking', async () => {
    const { state } = serve(detail({ status: 'matching', matched_rows: 2, mapping: { name: 0, city: 1 } }))
    const user = userEvent.setup()
    renderWithProviders(<ListPage listId="5" />)
    expect(await screen.findByText('Rows done: 2 of 3')).toBeInTheDocument()
    state.list = { ...state.list, matched_rows: 3 }
    expect(await screen.findByText('Rows done: 3 of 3', {}, { timeout: 4000 })).toBeInTheDocument()

    await user.click(screen.getByRole('button', { name: 'Stop matching' }))
    const dialog = await screen.findByRole('dialog', { name: 'Stop matching this list?' })
    await user.click(within(dialog).getByRole('button', { name: 'Stop matching' }))
    expect(await screen.findByText(/Matching was stopped/)).toBeInTheDocument()
    expect(screen.getByRole('button', { name: 'Start matching' })).toBeInTheDocument()
  })
})

describe('ListPage: the report', () => {
  it('counts by result and rule; un-matching a row changes the counts, and Undo matches it again', async () => {
    const { puts } = serve(detail({ status: 'matched', matched_rows: 3, mapping: { name: 0, city: 1, phone: 2 } }))
    const user = userEvent.setup()
    renderWithProviders(<ListPage listId="5" />)
    await waitFor(() => expect(counts()).toEqual(['1', '1', '1']))
    expect(screen.getByText('By phone number').nextSibling).toHaveTextContent('1')
    expect(screen.getByRole('button', { name: 'Fill in my list' })).toBeInTheDocument()

    const rows = screen.getByRole('list', { name: 'Rows of your list' })
    const first = within(rows).getAllByTestId('list-row')[0]!
    expect(first).toHaveTextContent('Café Rot · Köln · 0221 1234')
    expect(first).toHaveTextContent('Matched to Café Rot GmbH · Ringstraße 1, 50667 Köln')
    expect(first).toHaveTextContent('By phone number · 93% sure')
    await user.click(within(first).getByRole('button', { name: 'Un-match' }))
    expect(await screen.findByText('Row 1 is no longer matched.')).toBeInTheDocument()
    await waitFor(() => expect(counts()).toEqual(['0', '1', '2']))

    await user.click(screen.getByRole('button', { name: 'Undo' }))
    await waitFor(() => expect(counts()).toEqual(['1', '1', '1']))
    expect(puts.map((p) => p.body)).toEqual([{ company_id: null }, { company_id: 41 }])
  })

  it('an unsure row offers its candidates to pick from by hand', async () => {
    const { puts } = serve(detail({ status: 'matched', matched_rows: 3, mapping: { name: 0, city: 1 } }))
    const user = userEvent.setup()
    renderWithProviders(<ListPage listId="5" />)
    await screen.findByRole('list', { name: 'Rows of your list' })
    await user.selectOptions(screen.getByLabelText('Show'), 'ambiguous')
    await waitFor(() => expect(screen.getAllByTestId('list-row')).toHaveLength(1))
    await user.click(screen.getByRole('button', { name: 'Pick the right business' }))
    const candidates = screen.getByRole('list', { name: 'Businesses that may be row 2' })
    expect(within(candidates).getAllByRole('listitem')).toHaveLength(2)
    expect(candidates).toHaveTextContent('Markt 2, 53111 Bonn')
    await user.click(within(candidates).getByRole('button', { name: 'This one: Blau Backwaren' }))
    expect(await screen.findByText(/Row 2 is matched to/)).toHaveTextContent('Row 2 is matched to Blau Backwaren.')
    expect(puts.map((p) => [p.path, p.body])).toEqual([['rows/2', { company_id: 52 }]])
    await waitFor(() => expect(counts()).toEqual(['2', '0', '1']))
  })

  it('deletes the list after asking, then leaves its page', async () => {
    serve(detail({ status: 'matched', matched_rows: 3, mapping: { name: 0, city: 1 } }))
    const user = userEvent.setup()
    const { router } = renderWithProviders(<ListPage listId="5" />, {
      route: '/lists/5',
      routes: [{ path: '/lists', element: <p>index</p> }],
    })
    await user.click(await screen.findByRole('button', { name: 'Delete the list' }))
    const dialog = await screen.findByRole('dialog', { name: 'Delete “Kunden”?' })
    expect(dialog).toHaveTextContent('Its rows, its matches and the uploaded file are deleted for good.')
    await user.click(within(dialog).getByRole('button', { name: 'Delete' }))
    await waitFor(() => expect(router.state.location.pathname).toBe('/lists'))
  })

  it('says when the list does not exist', async () => {
    server.use(http.get('/api/lists/9/', () => HttpResponse.json({ detail: 'Not found.', code: 'not_found' }, { status: 404 })))
    renderWithProviders(<ListPage listId="9" />)
    expect(await screen.findByText('This list does not exist or was deleted.')).toBeInTheDocument()
  })
})
