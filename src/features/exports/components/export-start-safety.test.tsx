import { screen, waitFor } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { http, HttpResponse } from 'msw'
import { describe, expect, it, vi } from 'vitest'
import { profileOptions } from '@/api/account/profile'
import { emptyFilters } from '@/domain/search-filters'
import { readLocalExports } from '@/lib/local-exports'
import { server } from '@/testing/msw-server'
import { balanceProfile, withBalance } from '@/testing/fixtures'
import { renderWithProviders } from '@/testing/render'
import { ExportConfirmDialog } from './export-confirm-dialog'

/*
 * Issue 20: a click starts at most one export, whatever comes back. The answer of POST
 * /api/download-csv/ is "not shown" in the interface: a 2xx of any shape means it was charged.
 */

const props = {
  open: true,
  onClose: () => {},
  searchId: 's-55',
  filters: { ...emptyFilters, countries: ['DE'] },
  totalCount: 30,
  cap: null,
  format: 'csv' as const,
  onSetCap: () => {},
}

async function startOnce(answer: () => Response | Promise<Response>) {
  let starts = 0
  server.use(
    http.post('*/api/download-csv/', () => {
      starts++
      return answer()
    }),
  )
  const onStarted = vi.fn()
  const queryClient = withBalance(100)
  renderWithProviders(<ExportConfirmDialog {...props} onStarted={onStarted} />, { queryClient })
  const button = await screen.findByRole('button', { name: 'Start export' })
  // enabled once the balance and the extensions (none here) are known
  await waitFor(() => expect(button).toBeEnabled())
  await userEvent.click(button)
  return { onStarted, starts: () => starts, button, queryClient }
}

describe('starting an export against answers the interface allows', () => {
  it.each([
    ['an empty 202', () => new HttpResponse(null, { status: 202 })],
    ['a 204', () => new HttpResponse(null, { status: 204 })],
    ['{} without search_id', () => HttpResponse.json({}, { status: 200 })],
    ['a body that is not JSON', () => new HttpResponse('Accepted', { status: 202 })],
    ['fields of unexpected types', () => HttpResponse.json({ search_id: { nested: true }, lead_count: 'many' }, { status: 202 })],
  ])('%s: lands on the export named by the request, never re-arms, marks the balance stale', async (_, answer) => {
    const { onStarted, starts, button, queryClient } = await startOnce(answer)
    await waitFor(() => expect(onStarted).toHaveBeenCalledWith(expect.objectContaining({ search_id: 's-55' })))
    // the shell's balance (an observer of this query) is read again
    expect(queryClient.getQueryState(profileOptions().queryKey)?.isInvalidated).toBe(true)
    expect(screen.queryByText(/could not be started/)).not.toBeInTheDocument()
    await userEvent.click(button)
    expect(starts()).toBe(1)
  })

  it('uses the answer’s own id when it names one (opaque: a UUID stays a string)', async () => {
    const { onStarted } = await startOnce(() => HttpResponse.json({ search_id: '0b5e9c2a-77f1-4d0e-8c3b-5a1d2e3f4a5b' }, { status: 202 }))
    await waitFor(() =>
      expect(onStarted).toHaveBeenCalledWith(expect.objectContaining({ search_id: '0b5e9c2a-77f1-4d0e-8c3b-5a1d2e3f4a5b' })),
    )
  })

  it('keeps a record of the export in this browser, for a service with no history list', async () => {
    localStorage.clear()
    const { onStarted } = await startOnce(() => new HttpResponse(null, { status: 202 }))
    await waitFor(() => expect(onStarted).toHaveBeenCalled())
    const [recorded] = readLocalExports('7')
    expect(recorded).toMatchObject({ search_id: 's-55', export_format: 'csv', max_leads: null, filters: { countries: ['DE'] } })
    expect(JSON.stringify(readLocalExports('7'))).not.toMatch(/token|Bearer/i)
  })

  it('a lost answer (network error after sending) does not re-arm: the balance says whether it was charged', async () => {
    server.use(http.get('*/api/user/profile/', () => HttpResponse.json(balanceProfile(70))))
    const { starts, button, onStarted } = await startOnce(() => HttpResponse.error())
    expect(await screen.findByText(/Your balance went down: the export was started/)).toBeInTheDocument()
    expect(screen.getByRole('link', { name: 'Open export history' })).toBeInTheDocument()
    expect(screen.queryByRole('button', { name: 'Try again' })).not.toBeInTheDocument()
    expect(button).toBeDisabled()
    await userEvent.click(button)
    expect(starts()).toBe(1)
    expect(onStarted).not.toHaveBeenCalled()
  })

  it('a lost answer with the balance unchanged offers a second try, sent only when asked', async () => {
    server.use(http.get('*/api/user/profile/', () => HttpResponse.json(balanceProfile(100))))
    let fail = true
    const { starts, onStarted } = await startOnce(() =>
      fail ? HttpResponse.error() : HttpResponse.json({ search_id: 9 }, { status: 202 }),
    )
    expect(await screen.findByText(/Your balance did not change: nothing was charged/)).toBeInTheDocument()
    expect(starts()).toBe(1)
    fail = false
    await userEvent.click(screen.getByRole('button', { name: 'Try again' }))
    await waitFor(() => expect(onStarted).toHaveBeenCalledWith(expect.objectContaining({ search_id: '9' })))
    expect(starts()).toBe(2)
  })

  it.each([
    ['a bare 402', () => new HttpResponse(null, { status: 402 }), 'Not enough credits'],
    [
      'a 402 with the service’s words',
      () => HttpResponse.json({ detail: 'Your plan has 12 credits left.' }, { status: 402 }),
      'Your plan has 12 credits left.',
    ],
    [
      'a 403 without a code that speaks of credits',
      () => HttpResponse.json({ detail: 'Insufficient credits for this export.' }, { status: 403 }),
      'Insufficient credits for this export.',
    ],
  ])('%s is "not enough credits", in the service’s own words, and may be tried again', async (_, answer, words) => {
    const { starts, button } = await startOnce(answer)
    const alert = await screen.findByRole('alert')
    expect(alert).toHaveTextContent('Not enough credits')
    expect(alert).toHaveTextContent(words)
    expect(screen.queryByText(/not allowed/i)).not.toBeInTheDocument()
    await waitFor(() => expect(button).not.toBeDisabled())
    expect(starts()).toBe(1)
  })

  it('a 403 that is not about credits shows the service’s reason, not a generic refusal', async () => {
    await startOnce(() => HttpResponse.json({ detail: 'Exports are paused for maintenance until 14:00 UTC.' }, { status: 403 }))
    expect(await screen.findByText('Exports are paused for maintenance until 14:00 UTC.')).toBeInTheDocument()
    expect(screen.queryByText(/not allowed/i)).not.toBeInTheDocument()
  })
})
