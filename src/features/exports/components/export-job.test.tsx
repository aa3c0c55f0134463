import { screen, waitFor } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { http, HttpResponse } from 'msw'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { recordLocalExport } from '@/lib/local-exports'
import { withBalance } from '@/testing/fixtures'
import { server } from '@/testing/msw-server'
import { renderWithProviders } from '@/testing/render'
import { ExportJob } from './export-job'

/**
 * The page inside the shell, which has read the profile (account 7); `fresh`: the plan's fresh-data
 * exports; `entry`: History's entry of the export, else 404 (a service with no History: the real one).
 */
function renderPage({ fresh = true, entry }: { fresh?: boolean; entry?: Record<string, unknown> } = {}) {
  server.use(
    http.get('*/api/user/search-history/7/', () =>
      entry
        ? HttpResponse.json({ search_id: 7, filters: {}, created_at: '2026-11-01T09:00:00Z', status: 'COMPLETED', ...entry })
        : HttpResponse.json({ detail: 'Not found.' }, { status: 404 }),
    ),
  )
  return renderWithProviders(<ExportJob searchId="7" />, { queryClient: withBalance(100, 0, { can_download_fresh_exports: fresh }) })
}

function statusIs(body: Record<string, unknown>) {
  let calls = 0
  server.use(
    http.get('*/api/download-status/7/', () => {
      calls++
      return HttpResponse.json({ search_id: 7, progress: 0, processed_count: 0, lead_count: 200, error: null, ...body })
    }),
  )
  return () => calls
}

function descriptorIs(expiresAt = new Date(Date.now() + 3 * 86_400_000 + 60_000)) {
  server.use(
    http.get('*/api/download-completed-csv/7/', () =>
      HttpResponse.json({
        download_url: '/api/files/7/?sig=abc',
        filename: 'leads-7.csv',
        file_size_bytes: 1_450_000,
        file_size_mb: 1.45,
        expires_at: expiresAt.toISOString(),
      }),
    ),
  )
  return expiresAt
}

/**
 * The page polls every 2 s. The tests that wait for the next poll, or for its absence, move the timers
 * on instead of waiting that long; the clock also runs by itself (`shouldAdvanceTime`), so the rendering,
 * the requests and Testing Library's waiting go on as they do without it.
 */
function pollingClock() {
  vi.useFakeTimers({ shouldAdvanceTime: true, toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval'] })
  return { nextPollsIn: (ms: number) => vi.advanceTimersByTimeAsync(ms) }
}
afterEach(() => {
  vi.useRealTimers()
})

const dateTime = (d: Date) => new Intl.DateTimeFormat('en', { dateStyle: 'medium', timeStyle: 'short' }).format(d)

describe('export page: every status variant', { timeout: 15_000 }, () => {
  it('PENDING: waiting, progress at 0', async () => {
    statusIs({ status: 'PENDING' })
    renderPage()
    expect(await screen.findByText('Waiting to start')).toBeInTheDocument()
    expect(screen.getByRole('progressbar', { name: 'Export progress' })).toHaveAttribute('value', '0')
  })

  it('PROCESSING: a real progress bar, rows done, and the percentage in the tab title', async () => {
    statusIs({ status: 'PROCESSING', progress: 42, processed_count: 84 })
    renderPage()
    expect(await screen.findByText('Preparing your file')).toBeInTheDocument()
    expect(screen.getByRole('progressbar', { name: 'Export progress' })).toHaveAttribute('value', '42')
    expect(screen.getByText('84 of 200 rows written')).toBeInTheDocument()
    await waitFor(() => expect(document.title).toMatch(/^42% · Export #7/))
  })

  it('{status} alone (all the interface promises): ready, the file offered, no rows counted that nobody said', async () => {
    server.use(http.get('*/api/download-status/7/', () => HttpResponse.json({ status: 'COMPLETED' })))
    descriptorIs()
    renderPage()
    expect(await screen.findByRole('button', { name: /Download leads-7\.csv/ })).toBeInTheDocument()
    expect(screen.getByText('Ready to download')).toBeInTheDocument()
    expect(screen.queryByText(/rows written/)).not.toBeInTheDocument()
    expect(screen.queryByText(/could not read|unexpected/i)).not.toBeInTheDocument()
  })

  it.each(['COMPLETED', 'completed'])('%s: download button with file name, size and expiry; polling stops', async (status) => {
    const clock = pollingClock()
    const calls = statusIs({ status, progress: 100, processed_count: 200 })
    const expiresAt = descriptorIs()
    renderPage()
    const button = await screen.findByRole('button', { name: /Download leads-7\.csv.*1\.5 MB/ })
    expect(button).toBeInTheDocument()
    // the confirmation's wording of the link's life ("valid for 14 days"), with its date here
    expect(screen.getByText(`The download link is valid until ${dateTime(expiresAt)}.`)).toBeInTheDocument()
    expect(screen.queryByRole('progressbar')).not.toBeInTheDocument()
    expect(document.title).toMatch(/^Ready · Export #7/)
    // the Latin file name is isolated from RTL text around it, and wraps without breaking the sentence apart
    const name = [...button.querySelectorAll('bdi')].find((b) => b.textContent === 'leads-7.csv')
    expect(name).toBeDefined()
    expect(name!.parentElement).toHaveClass('[overflow-wrap:anywhere]')
    expect(name!.parentElement!.textContent).toBe('Download leads-7.csv')
    await clock.nextPollsIn(2300)
    expect(calls()).toBe(1)
  })

  it.each(['FAILED', 'failed'])('%s: says what happened and retries at no charge', async (status) => {
    statusIs({ status, error: 'Disk full' })
    let retried = 0
    server.use(
      http.post('*/api/user/search-history/7/retry/', () => {
        retried++
        return HttpResponse.json({ search_id: 7, status: 'PENDING' }, { status: 202 })
      }),
    )
    renderPage()
    // one message, with its reason: not a status line, a title and a body each saying "failed"
    const failure = await screen.findByRole('alert')
    expect(failure).toHaveTextContent('What happened: Disk full')
    expect(screen.getAllByText(/failed/i)).toHaveLength(1)
    expect(screen.queryByRole('progressbar')).not.toBeInTheDocument()
    expect(document.title).toMatch(/^Failed · Export #7/)
    statusIs({ status: 'PENDING' })
    const retryButton = screen.getByRole('button', { name: 'Retry export' })
    retryButton.focus()
    await userEvent.click(retryButton)
    expect(retried).toBe(1)
    expect(await screen.findByText('Waiting to start')).toBeInTheDocument()
    // the button went with the failure: the focus is on the page's heading, not lost to <body>
    expect(screen.getByRole('heading', { level: 1, name: 'Export #7' })).toHaveFocus()
  })

  it('an unknown status is "still running" and polling goes on until it completes', async () => {
    const clock = pollingClock()
    const calls = statusIs({ status: 'QUEUED_ON_WORKER_3', progress: 10 })
    renderPage()
    expect(await screen.findByText('Preparing your file')).toBeInTheDocument()
    statusIs({ status: 'completed' })
    descriptorIs()
    await clock.nextPollsIn(2000)
    expect(await screen.findByRole('button', { name: /Download leads-7\.csv/ })).toBeInTheDocument()
    expect(calls()).toBe(1)
  })

  it('an expired link (410, no date) says so, not "ready", and offers fresh data', async () => {
    statusIs({ status: 'COMPLETED' })
    server.use(http.get('*/api/download-completed-csv/7/', () => HttpResponse.json({ detail: 'Expired' }, { status: 410 })))
    renderPage()
    expect(await screen.findByText('This download link has expired.')).toHaveAttribute('role', 'status')
    expect(screen.queryByText('Ready to download')).not.toBeInTheDocument()
    expect(screen.queryByRole('button', { name: /Download/ })).not.toBeInTheDocument()
    expect(screen.getByRole('link', { name: 'Get fresh data' })).toHaveAttribute('href', '/history?fresh=7')
  })

  it('an export that fills in a list is named after the list, and leads back to it (extension lists)', async () => {
    statusIs({ status: 'PROCESSING', progress: 40 })
    renderPage({ entry: { list: { id: 4, name: 'Kunden 2025' } } })
    await waitFor(() => expect(screen.getByRole('heading', { level: 1 })).toHaveTextContent('Fill in \u2068Kunden 2025\u2069 Export #7'))
    expect(screen.getByRole('link', { name: 'Open the list' })).toHaveAttribute('href', '/lists/4')
    expect(screen.queryByRole('link', { name: 'Export history' })).not.toBeInTheDocument()
  })

  it('an expired fill-in of a list offers the list, not fresh data (it is no search)', async () => {
    const expiredAt = new Date(Date.now() - 3 * 86_400_000)
    statusIs({ status: 'COMPLETED' })
    server.use(http.get('*/api/download-completed-csv/7/', () => HttpResponse.json({ detail: 'Expired' }, { status: 410 })))
    renderPage({ entry: { list: { id: 4, name: 'Kunden 2025' }, expires_at: expiredAt.toISOString() } })
    expect(await screen.findByText(`The download link expired on ${dateTime(expiredAt)}.`)).toBeInTheDocument()
    expect(await screen.findByRole('link', { name: 'Open the list' })).toHaveAttribute('href', '/lists/4')
    expect(screen.queryByRole('link', { name: 'Get fresh data' })).not.toBeInTheDocument()
  })

  it('an expired link (410) says on which date when History knows it, and names the export by its search', async () => {
    const expiredAt = new Date(Date.now() - 3 * 86_400_000)
    statusIs({ status: 'COMPLETED' })
    server.use(http.get('*/api/download-completed-csv/7/', () => HttpResponse.json({ detail: 'Expired' }, { status: 410 })))
    renderPage({ entry: { name: 'Berlin dentists', expires_at: expiredAt.toISOString() } })
    expect(await screen.findByText(`The download link expired on ${dateTime(expiredAt)}.`)).toHaveAttribute('role', 'status')
    expect(screen.getByRole('link', { name: 'Get fresh data' })).toHaveAttribute('href', '/history?fresh=7')
    // as History shows it: the search's name, then the export's number
    expect(screen.getByRole('heading', { level: 1 })).toHaveTextContent('Berlin dentists Export #7')
    expect(screen.getByRole('heading', { level: 1 }).querySelector('bdi')).toHaveTextContent('Berlin dentists')
  })

  it('a link that expired while the page was open says on which date; a plan without fresh data says so', async () => {
    statusIs({ status: 'COMPLETED' })
    const expiresAt = descriptorIs(new Date(Date.now() - 60_000))
    renderPage({ fresh: false })
    expect(await screen.findByText(`The download link expired on ${dateTime(expiresAt)}.`)).toBeInTheDocument()
    expect(screen.queryByText('Ready to download')).not.toBeInTheDocument()
    expect(screen.getByText(/Your plan does not include fresh-data exports/)).toBeInTheDocument()
    expect(screen.getByRole('link', { name: 'See plans and credits' })).toHaveAttribute('href', '/plans')
    expect(screen.queryByRole('link', { name: 'Get fresh data' })).not.toBeInTheDocument()
  })

  it('arriving with the focus lost (the start button is gone) puts it on the heading; confirms what this browser started', async () => {
    localStorage.clear()
    const started = new Date(Date.now() - 5_000)
    recordLocalExport('7', {
      search_id: '7',
      filters: { countries: ['DE'] },
      export_format: 'csv',
      max_leads: 25,
      created_at: started.toISOString(),
      lead_count: 25,
      credits_charged: 25,
    })
    statusIs({ status: 'PENDING', lead_count: 25 })
    renderPage()
    const heading = screen.getByRole('heading', { level: 1, name: 'Export #7' })
    expect(heading).toHaveFocus()
    const facts = await screen.findByTestId('export-facts')
    expect(facts).toHaveTextContent(`Started: ${dateTime(started)}`)
    expect(facts).toHaveTextContent('Charged: 25 credits')
  })

  it('leaves the focus where the person put it, and claims no start this browser did not make', async () => {
    localStorage.clear()
    statusIs({ status: 'PENDING' })
    const elsewhere = document.createElement('button')
    document.body.append(elsewhere)
    elsewhere.focus()
    try {
      renderPage()
      expect(await screen.findByText('Waiting to start')).toBeInTheDocument()
      expect(elsewhere).toHaveFocus()
      expect(screen.getByTestId('export-facts')).toHaveTextContent('200 leads')
      expect(screen.queryByText(/Started:/)).not.toBeInTheDocument()
    } finally {
      elsewhere.remove()
    }
  })

  it('asks for notification permission only when the person clicks', async () => {
    const clock = pollingClock()
    statusIs({ status: 'PROCESSING', progress: 5 })
    const requestPermission = vi.fn(async () => 'granted' as NotificationPermission)
    const NotificationMock = Object.assign(vi.fn(), { permission: 'default', requestPermission })
    vi.stubGlobal('Notification', NotificationMock)
    try {
      renderPage()
      const button = await screen.findByRole('button', { name: 'Notify me when ready' })
      expect(requestPermission).not.toHaveBeenCalled()
      await userEvent.click(button)
      expect(requestPermission).toHaveBeenCalledTimes(1)
      expect(await screen.findByText(/You will get a notification/)).toBeInTheDocument()
      statusIs({ status: 'COMPLETED' })
      descriptorIs()
      await clock.nextPollsIn(2000)
      await waitFor(() => expect(NotificationMock).toHaveBeenCalledWith('Your export is ready', expect.anything()))
    } finally {
      vi.unstubAllGlobals()
    }
  })
})
