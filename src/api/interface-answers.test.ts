import { http, HttpResponse } from 'msw'
import { beforeEach, describe, expect, it } from 'vitest'
import { getDownload, downloadSize } from '@/api/exports/get-download'
import { getExportStatus } from '@/api/exports/get-export-status'
import { retryExport } from '@/api/exports/retry-export'
import { getSearchHistory } from '@/api/history/get-search-history'
import { requestDelta } from '@/api/history/delta-request'
import { getLevel2 } from '@/api/search/get-level2'
import { getPreview } from '@/api/search/get-preview'
import { searchPlaces } from '@/api/search/search-places'
import { getPlans } from '@/api/plans/get-plans'
import { recordLocalExport } from '@/lib/local-exports'
import { server } from '@/testing/msw-server'

/*
 * Issue 20: every client requires only what the interface promises (../shared/spec), and takes
 * what decisions.md says to tolerate. Each answer below is one the interface allows.
 */

describe('download-status: only `status` is promised', () => {
  it('reads {status} alone', async () => {
    server.use(http.get('*/api/download-status/:id/', () => HttpResponse.json({ status: 'PROCESSING' })))
    const s = await getExportStatus('s-1')
    expect(s.status).toBe('PROCESSING')
    expect(s.progress).toBeUndefined()
  })

  it('reads numbers sent as strings and ignores an error of another type', async () => {
    server.use(
      http.get('*/api/download-status/:id/', () =>
        HttpResponse.json({ status: 'FAILED', progress: '40', lead_count: '100', error: { code: 1 } }),
      ),
    )
    const s = await getExportStatus('s-1')
    expect(s).toMatchObject({ status: 'FAILED', progress: 40, lead_count: 100, error: undefined })
  })
})

describe('download descriptor (interface 2.4)', () => {
  it('needs only the link: no name, a size in MB only, an unreadable expiry', async () => {
    server.use(
      http.get('*/api/download-completed-csv/:id/', () =>
        HttpResponse.json({ download_url: '/files/x.csv', file_size_mb: 2, expires_at: 'tomorrow-ish' }),
      ),
    )
    const d = await getDownload('a1b2')
    expect(d.filename).toBeUndefined()
    expect(d.expires_at).toBeUndefined()
    expect(downloadSize(d)).toBe(2 * 1024 * 1024)
  })
})

describe('retry: the samples send {}, the answer is not shown', () => {
  it.each([
    ['204', () => new HttpResponse(null, { status: 204 })],
    ['{}', () => HttpResponse.json({})],
    ['an empty 200', () => new HttpResponse(null, { status: 200 })],
  ])('%s is accepted, and the export keeps its id', async (_, answer) => {
    let body: unknown = 'not sent'
    server.use(
      http.post('*/api/user/search-history/:id/retry/', async ({ request }) => {
        body = await request.json()
        return answer()
      }),
    )
    await expect(retryExport('uuid-9')).resolves.toEqual({ search_id: 'uuid-9' })
    expect(body).toEqual({})
  })
})

describe('area lists: bare or paginated', () => {
  it('reads {count, next, previous, results}', async () => {
    server.use(
      http.get('*/api/locations/level2/', () =>
        HttpResponse.json({
          count: 1,
          next: null,
          previous: null,
          results: [{ id: 5, name: 'Oberbayern', level1_id: 2, level1_name: 'Bayern' }],
        }),
      ),
    )
    const list = await getLevel2('DE', [])
    expect(list.map((c) => c.name)).toEqual(['Oberbayern'])
  })

  it('a location search that answers 200 with no body (as the interface writes it) is "no search by name", not an error', async () => {
    server.use(http.get('*/api/locations/search/', () => new HttpResponse(null, { status: 200 })))
    await expect(searchPlaces({ q: 'Mün', country: 'DE', states: [], counties: [] })).resolves.toBeNull()
  })
})

describe('preview rows: the lead record is "not shown"', () => {
  it('a decimal rating as a string and categories as objects do not cost the count', async () => {
    server.use(
      http.get('*/api/companies/', () =>
        HttpResponse.json({
          totalCount: 5031,
          search_id: 'f3a9',
          results: [
            { name: 'Café A', rating: '4.50', review_count: '12', categories: [{ id: 1, name: 'Cafe' }, 7], email: 'a@x.de' },
            { name: 'Bäckerei B', rating: null, categories: 'Bakery,Cafe' },
            'not a row',
          ],
        }),
      ),
    )
    const p = await getPreview({ countries: ['DE'] } as never, 'en')
    expect(p.totalCount).toBe(5031)
    expect(p.search_id).toBe('f3a9')
    expect(p.results).toHaveLength(2)
    expect(p.results[0]).toMatchObject({ rating: 4.5, review_count: 12, categories: ['Cafe', '7'], email: ['a@x.de'] })
    expect(p.results[1]!.categories).toEqual(['Bakery', 'Cafe'])
  })
})

describe('paths exactly as the interface writes them', () => {
  it('GET /api/plans without the trailing slash', async () => {
    let path = ''
    server.use(
      http.get('*/api/plans', ({ request }) => {
        path = new URL(request.url).pathname
        return HttpResponse.json([{ plan_type: 'Pro', monthly_credits: 1000, price_per_month: '49.00' }])
      }),
    )
    const plans = await getPlans()
    expect(path).toBe('/api/plans')
    expect(plans[0]!.plan_type).toBe('Pro')
  })
})

describe('fresh data (download-delta, interface 2.5) with opaque ids', () => {
  it('a UUID search id goes into the path and comes back as a string', async () => {
    let path = ''
    server.use(
      http.post('*/api/user/search-history/:id/download-delta/', ({ request }) => {
        path = new URL(request.url).pathname
        return HttpResponse.json({
          status: 'validated',
          validation_code: 'ok',
          search_id: 'c0ffee-1',
          lead_count: '3',
          required_credits: 3,
          available_credits: 10,
        })
      }),
    )
    const r = await requestDelta('c0ffee-1', true)
    expect(path).toBe('/api/user/search-history/c0ffee-1/download-delta/')
    expect(r).toMatchObject({ search_id: 'c0ffee-1', lead_count: 3 })
  })
})

describe('History without a list endpoint (the interface has none)', () => {
  beforeEach(() => localStorage.clear())

  it('a 404 lists the exports this browser started, each with its status from download-status', async () => {
    recordLocalExport('7', {
      search_id: 's-1',
      filters: { countries: ['DE'] },
      export_format: 'csv',
      max_leads: null,
      created_at: '2026-11-01T10:00:00Z',
      lead_count: 30,
      credits_charged: 30,
    })
    recordLocalExport('7', {
      search_id: 's-2',
      filters: { countries: ['FR'] },
      export_format: 'excel',
      max_leads: 10,
      created_at: '2026-11-02T10:00:00Z',
    })
    recordLocalExport('8', { search_id: 'other', filters: {}, export_format: 'csv', max_leads: null, created_at: '2026-11-02T10:00:00Z' })
    server.use(
      http.get('*/api/user/search-history/', () => HttpResponse.json({ detail: 'Not found.' }, { status: 404 })),
      http.get('*/api/download-status/:id/', ({ params }) => HttpResponse.json({ status: params.id === 's-1' ? 'COMPLETED' : 'failed' })),
    )
    const page = await getSearchHistory(1, 20, { account: '7' })
    expect(page.source).toBe('browser')
    expect(page.count).toBe(2)
    expect(page.results.map((e) => [e.search_id, e.status, e.capped])).toEqual([
      ['s-2', 'failed', true],
      ['s-1', 'COMPLETED', false],
    ])
    expect(page.results[1]!.filters.countries).toEqual(['DE'])
  })

  it('with a list endpoint the list is the service’s', async () => {
    server.use(
      http.get('*/api/user/search-history/', () =>
        HttpResponse.json({
          count: 1,
          next: null,
          previous: null,
          results: [{ search_id: 3, filters: {}, created_at: '2026-11-01T00:00:00Z', status: 'COMPLETED' }],
        }),
      ),
    )
    const page = await getSearchHistory(1, 20, { account: '7' })
    expect(page.source).toBe('service')
    expect(page.results[0]!.search_id).toBe('3')
  })
})
