import { screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { http, HttpResponse } from 'msw'
import { beforeEach, describe, expect, it } from 'vitest'
import { AppShell } from '@/app/layout/app-shell'
import { resetSessionForTests, setTokensForTests } from '@/lib/session'
import { historyEntry, proProfile } from '@/testing/fixtures'
import { server } from '@/testing/msw-server'
import { renderWithProviders } from '@/testing/render'
import { HistoryPage } from './history-page'

const entry = historyEntry

const verdict = (id: number, leads: number) => ({
  status: leads ? 'validated' : 'rejected',
  validation_code: leads ? 'ok' : 'no_new_leads',
  search_id: id,
  lead_count: leads,
  required_credits: leads,
  available_credits: 5000,
  freshness: null,
  freshness_checked_at: new Date().toISOString(),
})

/** A service with the extension: entries by id, dry runs answering `news[id]`, PATCH applied to the entries. */
function serve(entries: ReturnType<typeof entry>[], news: Record<number, number>, { capability = true } = {}) {
  const log: string[] = []
  const byId = new Map(entries.map((e) => [e.search_id, e]))
  server.use(
    http.get('*/api/capabilities/', () =>
      capability
        ? HttpResponse.json({ watched_searches: { version: 1, limit: 20, name_max_length: 80 } })
        : HttpResponse.json({}, { status: 404 }),
    ),
    http.get('/api/user/profile/', () => HttpResponse.json(proProfile)),
    http.get('/api/user/search-history/', ({ request }) => {
      const watched = new URL(request.url).searchParams.get('watched')
      log.push(`list watched=${watched}`)
      const results = [...byId.values()].filter((e) => watched !== 'true' || e.watched)
      return HttpResponse.json({ count: results.length, next: null, previous: null, results })
    }),
    http.post('/api/user/search-history/:id/download-delta/', async ({ params, request }) => {
      const id = Number(params.id)
      const body = (await request.json()) as { dry_run?: boolean }
      log.push(`delta ${id} dry=${body.dry_run === true}`)
      return HttpResponse.json(verdict(id, news[id] ?? 0), { status: news[id] ? 200 : 200 })
    }),
    http.patch('/api/user/search-history/:id/', async ({ params, request }) => {
      const id = Number(params.id)
      const body = (await request.json()) as Record<string, unknown>
      log.push(`patch ${id} ${JSON.stringify(body)}`)
      if (body.watched === true && [...byId.values()].filter((e) => e.watched).length >= 20) {
        return HttpResponse.json(
          {
            detail: 'Invalid input.',
            code: 'invalid_input',
            errors: { watched: ['You already watch 20 searches: stop watching one first.'] },
            error_codes: { watched: [{ code: 'watch_limit', limit: 20 }] },
          },
          { status: 400 },
        )
      }
      const next = { ...byId.get(id)!, ...body }
      byId.set(id, next)
      return HttpResponse.json(next)
    }),
  )
  return log
}

const card = (name: RegExp) => screen.getByRole('article', { name })

beforeEach(() => {
  resetSessionForTests()
  setTokensForTests('access', 'refresh')
})

describe('watched searches on the history page', () => {
  it('shows "N new since your last export" from the free dry run; one click opens the confirmation', async () => {
    const log = serve([entry(7, { watched: true, name: 'Lyon restaurants' }), entry(6)], { 7: 37 })
    renderWithProviders(<HistoryPage />, { route: '/history' })
    const watched = await screen.findByRole('article', { name: /^Lyon restaurants/ })
    expect(await within(watched).findByText('37 new leads since your last export')).toBeInTheDocument()
    expect(within(watched).getByRole('button', { name: 'Watching' })).toHaveAttribute('aria-pressed', 'true')
    expect(within(card(/^Export #6/)).getByRole('button', { name: 'Watch for new leads' })).toHaveAttribute('aria-pressed', 'false')
    // only the watched search was asked, and only as a dry run
    expect(log.filter((l) => l.startsWith('delta'))).toEqual(['delta 7 dry=true'])
    expect(screen.getByRole('link', { name: 'Watched (1)' })).toHaveAttribute('href', '/history?watched=1')
    expect(screen.getByText('37 new leads in watched searches')).toBeInTheDocument()

    await userEvent.click(within(watched).getByRole('button', { name: 'Review and export 37 new leads' }))
    const dialog = await screen.findByRole('dialog')
    expect(await within(dialog).findByRole('button', { name: /37/ })).toBeInTheDocument()
    // still nothing started: the confirmation asked another dry run, not a start
    expect(log.filter((l) => l.startsWith('delta') && l.endsWith('dry=false'))).toEqual([])
  })

  it('says so when nothing is new', async () => {
    serve([entry(7, { watched: true })], {})
    renderWithProviders(<HistoryPage />, { route: '/history' })
    expect(await screen.findByText('No new leads since your last export.')).toBeInTheDocument()
  })

  it('watching sends PATCH {watched: true}; the watched filter lists only watched searches', async () => {
    const log = serve([entry(7), entry(6)], { 6: 4 })
    const { router } = renderWithProviders(<HistoryPage />, { route: '/history' })
    await userEvent.click(
      await within(await screen.findByRole('article', { name: /^Export #6/ })).findByRole('button', { name: 'Watch for new leads' }),
    )
    expect(await within(card(/^Export #6/)).findByRole('button', { name: 'Watching' })).toBeInTheDocument()
    expect(log).toContain('patch 6 {"watched":true}')
    expect(await within(card(/^Export #6/)).findByText('4 new leads since your last export')).toBeInTheDocument()

    await userEvent.click(screen.getByRole('link', { name: 'Watched (1)' }))
    await waitFor(() => expect(router.state.location.search).toBe('?watched=1'))
    await waitFor(() => expect(screen.getAllByRole('article')).toHaveLength(1))
    expect(card(/^Export #6/)).toBeInTheDocument()
  })

  it('explains the watch limit in the person’s words', async () => {
    const many = Array.from({ length: 20 }, (_, i) => entry(100 + i, { watched: true }))
    serve([entry(7), ...many], {})
    renderWithProviders(<HistoryPage />, { route: '/history' })
    await userEvent.click(
      await within(await screen.findByRole('article', { name: /^Export #7/ })).findByRole('button', { name: 'Watch for new leads' }),
    )
    expect(
      await within(card(/^Export #7/)).findByText('You already watch the most searches allowed (20). Stop watching one first.'),
    ).toBeInTheDocument()
  })

  it('names a search: validated before sending, then shown as the title', async () => {
    const log = serve([entry(7)], {})
    renderWithProviders(<HistoryPage />, { route: '/history' })
    await userEvent.click(await within(await screen.findByRole('article', { name: /^Export #7/ })).findByRole('button', { name: 'Name' }))
    const input = screen.getByLabelText('Name of this search')
    // the service's limit (watched_searches.name_max_length: 80) stops the input, the count shows near it
    expect(input).toHaveAttribute('maxlength', '80')
    await userEvent.type(input, 'x'.repeat(63))
    expect(input).not.toHaveAccessibleDescription(/Characters/)
    await userEvent.type(input, 'x'.repeat(18))
    expect(input).toHaveValue('x'.repeat(80))
    expect(input).toHaveAccessibleDescription(/Characters: 80 of 80$/)
    await userEvent.clear(input)
    await userEvent.type(input, '  Dentists in Berlin ')
    await userEvent.click(screen.getByRole('button', { name: 'Save name' }))
    expect(await screen.findByRole('article', { name: /^Dentists in Berlin/ })).toBeInTheDocument()
    expect(log).toContain('patch 7 {"name":"Dentists in Berlin"}')
  })

  it('a fresh-data export cannot be watched; without the extension nothing of this shows', async () => {
    const log = serve([entry(8, { delta_of: 7 })], {}, { capability: false })
    renderWithProviders(<HistoryPage />, { route: '/history' })
    const c = await screen.findByRole('article', { name: /^Export #8/ })
    expect(within(c).queryByRole('button', { name: /Watch/ })).toBeNull()
    expect(within(c).queryByRole('button', { name: 'Name' })).toBeNull()
    expect(screen.queryByRole('link', { name: /Watched/ })).toBeNull()
    expect(log).toEqual(['list watched=null'])
  })
})

describe('the navigation badge', () => {
  it('shows the new leads of all watched searches beside the history link', async () => {
    const log = serve([entry(7, { watched: true }), entry(5, { watched: true }), entry(3)], { 7: 30, 5: 7, 3: 99 })
    // one list of the watched searches and one dry run each; the unwatched search is not asked
    renderWithProviders(
      <AppShell signedIn>
        <p>page</p>
      </AppShell>,
      { route: '/search' },
    )
    expect(
      await screen.findByRole('link', { name: /^Exports history\s*\(37 new leads in watched searches\)$/ }, { timeout: 5000 }),
    ).toHaveAttribute('href', '/history')
    expect(log.sort()).toEqual(['delta 5 dry=true', 'delta 7 dry=true', 'list watched=true'])
  }, 10_000)

  it('asks nothing when the service lacks the extension', async () => {
    const log = serve([entry(7, { watched: true })], { 7: 30 }, { capability: false })
    renderWithProviders(
      <AppShell signedIn>
        <p>page</p>
      </AppShell>,
      { route: '/search' },
    )
    expect(await screen.findByRole('link', { name: 'Exports history' })).toBeInTheDocument()
    await new Promise((r) => setTimeout(r, 2500))
    expect(log).toEqual([])
  }, 10_000)
})
