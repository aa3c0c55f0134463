import { screen } from '@testing-library/react'
import { http, HttpResponse } from 'msw'
import { describe, expect, it } from 'vitest'
import { historyFiltersSchema } from '@/api/history/get-search-history'
import { server } from '@/testing/msw-server'
import { renderWithProviders } from '@/testing/render'
import { FilterSummary } from './filter-summary'

describe('the filter summary of a search that left lists out (extension lists)', () => {
  it('names the lists from the account’s lists; one it no longer has by its number', async () => {
    server.use(
      http.get('*/api/lists/', () =>
        HttpResponse.json([
          {
            id: 4,
            name: 'Kunden 2025',
            status: 'matched',
            headers: [],
            proposed_mapping: {},
            total_rows: 1,
            matched_rows: 1,
            created_at: '2026-11-01T09:00:00Z',
          },
        ]),
      ),
    )
    const filters = historyFiltersSchema.parse({ countries: [], exclude_lists: '4,9' })
    renderWithProviders(<FilterSummary filters={filters} />)
    expect(await screen.findByText('Left out')).toBeInTheDocument()
    expect(await screen.findByText('Kunden 2025')).toBeInTheDocument()
    expect(screen.getByText('List 9')).toBeInTheDocument()
  })
})
