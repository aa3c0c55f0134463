import { screen, waitFor } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { http, HttpResponse } from 'msw'
import { describe, expect, it, vi } from 'vitest'
import { loadPageNamespaces } from '@/lib/i18n'
import { server } from '@/testing/msw-server'
import { withBalance } from '@/testing/fixtures'
import { renderWithProviders } from '@/testing/render'
import { EnrichDialog } from './enrich-dialog'

const quote = (patch: Record<string, unknown> = {}) => ({
  list_id: 4,
  matched_rows: 9,
  companies: 8,
  owned: 3,
  lead_count: 5,
  credits_required: 5,
  keeps: ['Firma', 'Ort'],
  fills: ['email', 'phone'],
  fills_empty: ['city'],
  ...patch,
})

/** The quote of list 4, by skip_owned, and the requests it saw. */
function quoteHandler(
  bySkip: Record<string, ReturnType<typeof quote>> = { true: quote(), false: quote({ credits_required: 8, lead_count: 8 }) },
) {
  const asked: string[] = []
  server.use(
    http.get('*/api/lists/4/enrichment/', ({ request }) => {
      const skip = new URL(request.url).searchParams.get('skip_owned')!
      asked.push(skip)
      return HttpResponse.json(bySkip[skip])
    }),
  )
  return asked
}

async function open(queryClient = withBalance(100, 0)) {
  // the Lists page, which opens the dialog, has loaded the lists' words
  await loadPageNamespaces(['lists'])
  const onClose = vi.fn()
  const view = renderWithProviders(<EnrichDialog listId="4" listName="Kunden 2025" open onClose={onClose} />, {
    queryClient,
    path: '/lists/4',
    route: '/lists/4',
    routes: [{ path: '/exports/:id', element: <p>export page</p> }],
  })
  // the confirmation's code and words load when it first opens
  await screen.findByRole('dialog', { name: 'Fill in \u2068Kunden 2025\u2069' }, { timeout: 5000 })
  return { ...view, onClose }
}

describe('Fill in my list', () => {
  it('shows the quote, what the file keeps, fills and gains, and starts at the price shown', async () => {
    quoteHandler()
    let body: unknown
    server.use(
      http.post('*/api/lists/4/enrichment/', async ({ request }) => {
        body = await request.json()
        return HttpResponse.json({ search_id: 77, status: 'PENDING', lead_count: 5, credits_charged: 5 }, { status: 202 })
      }),
    )
    const { router } = await open()
    expect(await screen.findByTestId('enrich-cost')).toHaveTextContent('5 credits')
    expect(screen.getByTestId('enrich-rows')).toHaveTextContent('9')
    expect(screen.getByTestId('enrich-companies')).toHaveTextContent('8')
    expect(screen.getByTestId('enrich-owned')).toHaveTextContent('3')
    expect(screen.getByTestId('enrich-balance')).toHaveTextContent('100 credits')
    expect(screen.getByTestId('balance-after')).toHaveTextContent('95 credits')
    expect(screen.getByText('Firma and Ort')).toBeInTheDocument()
    expect(screen.getByText('Email and Phone')).toBeInTheDocument()
    expect(screen.getByText('City')).toBeInTheDocument()

    await userEvent.click(screen.getByRole('radio', { name: 'Excel (XLSX)' }))
    await userEvent.click(screen.getByRole('button', { name: 'Fill in my list' }))
    await waitFor(() => expect(router.state.location.pathname).toBe('/exports/77'))
    expect(body).toEqual({ skip_owned: true, export_format: 'excel', expected_credits: 5 })
  })

  it('charging for the businesses the account has too asks the price without skipping', async () => {
    const asked = quoteHandler()
    await open()
    await screen.findByTestId('enrich-cost')
    await userEvent.click(screen.getByRole('checkbox', { name: 'Charge only for businesses I don’t have yet' }))
    await waitFor(() => expect(screen.getByTestId('enrich-cost')).toHaveTextContent('8 credits'))
    expect(asked).toEqual(['true', 'false'])
  })

  it('says "not enough" before sending, with the way out of skipping what the account has, and the plans', async () => {
    quoteHandler()
    await open(withBalance(6, 0))
    await screen.findByTestId('enrich-cost')
    await userEvent.click(screen.getByRole('checkbox', { name: 'Charge only for businesses I don’t have yet' }))
    expect(await screen.findByText('This export costs 8 credits; you have 6.')).toBeInTheDocument()
    expect(screen.getByRole('button', { name: 'Fill in my list' })).toBeDisabled()
    expect(screen.getByRole('link', { name: 'See plans and credits' })).toHaveAttribute('href', '/plans')
    await userEvent.click(screen.getByRole('button', { name: 'Charge only for businesses I don’t have yet' }))
    await waitFor(() => expect(screen.getByTestId('enrich-cost')).toHaveTextContent('5 credits'))
    expect(screen.getByRole('button', { name: 'Fill in my list' })).toBeEnabled()
  })

  it('shows the service’s refusal (403 insufficient credits) and lets the person try again', async () => {
    quoteHandler()
    let posts = 0
    server.use(
      http.post('*/api/lists/4/enrichment/', () => {
        posts++
        return HttpResponse.json(
          { detail: 'Not enough credits', validation_code: 'insufficient_credits', required_credits: 5, available_credits: 2 },
          { status: 403 },
        )
      }),
      http.get('*/api/user/profile/', () => HttpResponse.json({ id: 7, email: 'a@example.com', remaining_credits: 100 })),
    )
    await open()
    await userEvent.click(await screen.findByRole('button', { name: 'Fill in my list' }))
    expect(await screen.findByText('The service refused: 5 credits needed, 2 available. Nothing was charged.')).toBeInTheDocument()
    await userEvent.click(screen.getByRole('button', { name: 'Fill in my list' }))
    await waitFor(() => expect(posts).toBe(2))
  })

  it('a changed price (409 price_changed) is shown and asked again; accepting sends the new price', async () => {
    const bodies: unknown[] = []
    server.use(
      http.get('*/api/lists/4/enrichment/', () =>
        HttpResponse.json(bodies.length ? quote({ credits_required: 7, lead_count: 7 }) : quote()),
      ),
      http.post('*/api/lists/4/enrichment/', async ({ request }) => {
        bodies.push(await request.json())
        return bodies.length === 1
          ? HttpResponse.json({ detail: 'The price changed.', code: 'price_changed', credits_required: 7 }, { status: 409 })
          : HttpResponse.json({ search_id: 78, status: 'PENDING' }, { status: 202 })
      }),
    )
    const { router } = await open()
    await userEvent.click(await screen.findByRole('button', { name: 'Fill in my list' }))
    expect(
      await screen.findByText('The price changed since you opened this: it is now 7 credits. Nothing was charged.'),
    ).toBeInTheDocument()
    expect(screen.getByTestId('enrich-cost')).toHaveTextContent('7 credits')
    expect(router.state.location.pathname).toBe('/lists/4')
    await userEvent.click(screen.getByRole('button', { name: 'Accept the new price' }))
    await waitFor(() => expect(router.state.location.pathname).toBe('/exports/78'))
    expect(bodies).toEqual([
      { skip_owned: true, export_format: 'csv', expected_credits: 5 },
      { skip_owned: true, export_format: 'csv', expected_credits: 7 },
    ])
  })

  it('a list still being matched (409 conflict) has no price yet, and nothing can start', async () => {
    server.use(
      http.get('*/api/lists/4/enrichment/', () =>
        HttpResponse.json({ detail: 'The list is not matched yet.', code: 'conflict', status: 'matching' }, { status: 409 }),
      ),
    )
    await open()
    expect(await screen.findByText('This list is still being matched. Its price shows once matching is done.')).toBeInTheDocument()
    expect(screen.getByRole('button', { name: 'Fill in my list' })).toBeDisabled()
  })

  it('a list that matched nothing has nothing to fill in', async () => {
    quoteHandler({ true: quote({ matched_rows: 0, companies: 0, owned: 0, lead_count: 0, credits_required: 0 }) })
    await open()
    expect(await screen.findByText('No row of this list matched a business: there is nothing to fill in.')).toBeInTheDocument()
    expect(screen.getByRole('button', { name: 'Fill in my list' })).toBeDisabled()
  })
})
