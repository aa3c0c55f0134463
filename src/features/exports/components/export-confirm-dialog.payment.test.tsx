import { screen } from '@testing-library/react'
import { http, HttpResponse } from 'msw'
import { describe, expect, it } from 'vitest'
import { emptyFilters } from '@/domain/search-filters'
import { server } from '@/testing/msw-server'
import { withBalance } from '@/testing/fixtures'
import { renderWithProviders } from '@/testing/render'
import { ExportConfirmDialog } from './export-confirm-dialog'

/* Who pays (issue 21): said only as the service declares it (extension credit_order, `credit_lots`). */

const props = {
  open: true,
  onClose: () => {},
  searchId: '55',
  filters: { ...emptyFilters, countries: ['DE'] },
  format: 'csv' as const,
  onSetCap: () => {},
  onStarted: () => {},
}

const creditOrder = () =>
  server.use(http.get('*/api/capabilities/', () => HttpResponse.json({ credit_order: { version: 1, order: 'earliest_expiry_first' } })))

// purchased credits expiring in 3 days, the subscription's at the period's end later: the purchased pay first
const purchasedFirst = [
  { source: 'purchased', credits: 500, expires_at: '2026-12-03T00:00:00Z' },
  { source: 'subscription', credits: 1000, expires_at: '2026-12-20T00:00:00Z' },
]

describe('export confirmation: who pays', () => {
  it('with credit_order, follows the service’s order: a cap of the expiring 500 is paid from purchased credits', async () => {
    creditOrder()
    renderWithProviders(<ExportConfirmDialog {...props} totalCount={5000} cap={500} />, {
      queryClient: withBalance(1000, 500, { credit_lots: purchasedFirst }),
    })
    const dialog = await screen.findByRole('dialog', { name: 'Export 500 leads?' })
    expect(await screen.findByTestId('from-purchased')).toHaveTextContent('500')
    expect(screen.getByTestId('from-subscription')).toHaveTextContent('0')
    expect(screen.getByTestId('balance-after')).toHaveTextContent('1,000 credits')
    expect(dialog).toHaveTextContent('1,000 subscription + 0 purchased')
  })

  it('with credit_order, subscription credits ending sooner pay first', async () => {
    creditOrder()
    const lots = [
      { source: 'subscription', credits: 100, expires_at: '2026-12-01T00:00:00Z' },
      { source: 'purchased', credits: 40, expires_at: null },
    ]
    renderWithProviders(<ExportConfirmDialog {...props} totalCount={500} cap={120} />, {
      queryClient: withBalance(100, 40, { credit_lots: lots }),
    })
    expect(await screen.findByTestId('from-subscription')).toHaveTextContent('100')
    expect(screen.getByTestId('from-purchased')).toHaveTextContent('20')
  })

  it('without credit_order (the interface alone), claims no split even when the profile lists lots', async () => {
    renderWithProviders(<ExportConfirmDialog {...props} totalCount={5000} cap={500} />, {
      queryClient: withBalance(1000, 500, { credit_lots: purchasedFirst }),
    })
    const dialog = await screen.findByRole('dialog', { name: 'Export 500 leads?' })
    expect(await screen.findByTestId('balance-after')).toHaveTextContent('1,000 credits')
    expect(screen.getByTestId('export-cost')).toHaveTextContent('500 credits')
    expect(screen.queryByTestId('from-purchased')).toBeNull()
    expect(dialog).not.toHaveTextContent('From your')
  })

  it('a credit list the dashboard cannot read leaves the profile readable and claims no split', async () => {
    creditOrder()
    renderWithProviders(<ExportConfirmDialog {...props} totalCount={5000} cap={500} />, {
      queryClient: withBalance(1000, 500, { credit_lots: [{ source: 'gift', credits: 'many' }] }),
    })
    expect(await screen.findByTestId('balance-after')).toHaveTextContent('1,000 credits')
    expect(screen.queryByTestId('from-purchased')).toBeNull()
  })
})
