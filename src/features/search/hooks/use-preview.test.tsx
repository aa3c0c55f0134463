import { screen } from '@testing-library/react'
import { http, HttpResponse } from 'msw'
import { act } from 'react'
import { afterEach, describe, expect, it } from 'vitest'
import { changeLanguage } from '@/lib/i18n'
import { server } from '@/testing/msw-server'
import { renderWithProviders } from '@/testing/render'
import { emptyFilters } from '@/domain/search-filters'
import { usePreview } from './use-preview'

afterEach(async () => {
  await act(() => changeLanguage('en'))
})

function Harness() {
  const { query } = usePreview({ ...emptyFilters, countries: ['DE'] })
  return <p>{query.data ? `${query.data.totalCount} ${query.data.results[0]?.categories.join()}` : 'none'}</p>
}

describe('preview language', () => {
  it('asks the sample in the current language, once more on a change, and keeps the count meanwhile', async () => {
    const asked: URLSearchParams[] = []
    server.use(
      http.get('*/api/companies/', ({ request }) => {
        const params = new URL(request.url).searchParams
        asked.push(params)
        const name = params.get('lang') === 'de' ? 'Bäckerei' : 'Bakery'
        return HttpResponse.json({ totalCount: 12, search_id: asked.length, results: [{ name: 'A', categories: [name] }] })
      }),
    )
    renderWithProviders(<Harness />)
    expect(await screen.findByText('12 Bakery')).toBeInTheDocument()
    expect(asked.map((p) => p.get('lang'))).toEqual(['en'])
    expect(asked[0]!.getAll('countries')).toEqual(['DE'])

    await act(() => changeLanguage('de'))
    expect(screen.getByText(/^12 /)).toBeInTheDocument()
    expect(await screen.findByText('12 Bäckerei')).toBeInTheDocument()
    expect(asked.map((p) => p.get('lang'))).toEqual(['en', 'de'])

    // back to English: the earlier answer is still fresh in the cache
    await act(() => changeLanguage('en'))
    expect(await screen.findByText('12 Bakery')).toBeInTheDocument()
    await new Promise((r) => setTimeout(r, 50))
    expect(asked).toHaveLength(2)
  })
})
