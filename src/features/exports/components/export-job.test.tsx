import { screen, waitFor } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { http, HttpResponse } from 'msw'
import { describe, expect, it, vi } from 'vitest'
import { server } from '@/testing/msw-server'
import { renderWithProviders } from '@/testing/render'
import { ExportJob } from './export-job'

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

function descriptorIs() {
  server.use(
    http.get('*/api/download-completed-csv/7/', () =>
      HttpResponse.json({
        download_url: '/api/files/7/?sig=abc',
        filename: 'leads-7.csv',
        file_size_bytes: 1_450_000,
        file_size_mb: 1.45,
        expires_at: new Date(Date.now() + 3 * 86_400_000 + 60_000).toISOString(),
      }),
    ),
  )
}

describe('export page: every status variant', { timeout: 15_000 }, () => {
  it('PENDING: waiting, progress at 0', async () => {
    statusIs({ status: 'PENDING' })
    renderWithProviders(<ExportJob searchId="7" />)
    expect(await screen.findByText('Waiting to start')).toBeInTheDocument()
    expect(screen.getByRole('progressbar', { name: 'Export progress' })).toHaveAttribute('value', '0')
  })

  it('PROCESSING: a real progress bar, rows done, and the percentage in the tab title', async () => {
    statusIs({ status: 'PROCESSING', progress: 42, processed_count: 84 })
    renderWithProviders(<ExportJob searchId="7" />)
    expect(await screen.findByText('Preparing your file')).toBeInTheDocument()
    expect(screen.getByRole('progressbar', { name: 'Export progress' })).toHaveAttribute('value', '42')
    expect(screen.getByText('84 of 200 rows written')).toBeInTheDocument()
    await waitFor(() => expect(document.title).toMatch(/^42% · Export 7/))
  })

  it('{status} alone (all the interface promises): ready, the file offered, no rows counted that nobody said', async () => {
    server.use(http.get('*/api/download-status/7/', () => HttpResponse.json({ status: 'COMPLETED' })))
    descriptorIs()
    renderWithProviders(<ExportJob searchId="7" />)
    expect(await screen.findByRole('button', { name: /Download leads-7\.csv/ })).toBeInTheDocument()
    expect(screen.getByText('Ready to download')).toBeInTheDocument()
    expect(screen.queryByText(/rows written/)).not.toBeInTheDocument()
    expect(screen.queryByText(/could not read|unexpected/i)).not.toBeInTheDocument()
  })

  it.each(['COMPLETED', 'completed'])('%s: download button with file name, size and expiry; polling stops', async (status) => {
    const calls = statusIs({ status, progress: 100, processed_count: 200 })
    descriptorIs()
    renderWithProviders(<ExportJob searchId="7" />)
    const button = await screen.findByRole('button', { name: /Download leads-7\.csv.*1\.5 MB/ })
    expect(button).toBeInTheDocument()
    expect(screen.getByText(/Link expires in 3 days/)).toBeInTheDocument()
    expect(document.title).toMatch(/^Ready · Export 7/)
    // the Latin file name is isolated from RTL text around it, and wraps without breaking the sentence apart
    const name = [...button.querySelectorAll('bdi')].find((b) => b.textContent === 'leads-7.csv')
    expect(name).toBeDefined()
    expect(name!.parentElement).toHaveClass('[overflow-wrap:anywhere]')
    expect(name!.parentElement!.textContent).toBe('Download leads-7.csv')
    await new Promise((r) => setTimeout(r, 2300))
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
    renderWithProviders(<ExportJob searchId="7" />)
    expect(await screen.findByText('What happened: Disk full')).toBeInTheDocument()
    expect(screen.queryByRole('progressbar')).not.toBeInTheDocument()
    expect(document.title).toMatch(/^Failed · Export 7/)
    statusIs({ status: 'PENDING' })
    await userEvent.click(screen.getByRole('button', { name: 'Retry export' }))
    expect(retried).toBe(1)
    expect(await screen.findByText('Waiting to start')).toBeInTheDocument()
  })

  it('an unknown status is "still running" and polling goes on until it completes', async () => {
    const calls = statusIs({ status: 'QUEUED_ON_WORKER_3', progress: 10 })
    renderWithProviders(<ExportJob searchId="7" />)
    expect(await screen.findByText('Preparing your file')).toBeInTheDocument()
    statusIs({ status: 'completed' })
    descriptorIs()
    expect(await screen.findByRole('button', { name: /Download leads-7\.csv/ }, { timeout: 4000 })).toBeInTheDocument()
    expect(calls()).toBe(1)
  })

  it('an expired link (410) says so instead of offering the download', async () => {
    statusIs({ status: 'COMPLETED' })
    server.use(http.get('*/api/download-completed-csv/7/', () => HttpResponse.json({ detail: 'Expired' }, { status: 410 })))
    renderWithProviders(<ExportJob searchId="7" />)
    expect(await screen.findByText('Open the export history to get fresh data.')).toBeInTheDocument()
    expect(screen.queryByRole('button', { name: /Download/ })).not.toBeInTheDocument()
  })

  it('asks for notification permission only when the person clicks', async () => {
    statusIs({ status: 'PROCESSING', progress: 5 })
    const requestPermission = vi.fn(async () => 'granted' as NotificationPermission)
    const NotificationMock = Object.assign(vi.fn(), { permission: 'default', requestPermission })
    vi.stubGlobal('Notification', NotificationMock)
    try {
      renderWithProviders(<ExportJob searchId="7" />)
      const button = await screen.findByRole('button', { name: 'Notify me when ready' })
      expect(requestPermission).not.toHaveBeenCalled()
      await userEvent.click(button)
      expect(requestPermission).toHaveBeenCalledTimes(1)
      expect(await screen.findByText(/You will get a notification/)).toBeInTheDocument()
      statusIs({ status: 'COMPLETED' })
      descriptorIs()
      await waitFor(() => expect(NotificationMock).toHaveBeenCalledWith('Your export is ready', expect.anything()), {
        timeout: 4000,
      })
    } finally {
      vi.unstubAllGlobals()
    }
  })
})
