import { onlineManager, useQuery } from '@tanstack/react-query'
import { act, screen, waitFor } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { http, HttpResponse } from 'msw'
import { useState } from 'react'
import { afterEach, describe, expect, it } from 'vitest'
import { server } from '@/testing/msw-server'
import { renderWithProviders } from '@/testing/render'
import OfflineNotice from './offline-notice'

/** A count that follows a filter, as the search page's does. */
function Count() {
  const [filter, setFilter] = useState('a')
  const count = useQuery({
    queryKey: ['count', filter],
    queryFn: async () => {
      const res = await fetch(`/api/count/?f=${filter}`)
      if (!res.ok) throw new Error(`status ${res.status}`)
      return ((await res.json()) as { n: number }).n
    },
    placeholderData: (previous) => previous,
  })
  return (
    <>
      <OfflineNotice />
      <p>count {count.data ?? '…'}</p>
      <button type="button" onClick={() => setFilter('b')}>
        change the filter
      </button>
    </>
  )
}

const counts: Record<string, number> = { a: 10, b: 20 }
const countsAnswer = () =>
  server.use(http.get('/api/count/', ({ request }) => HttpResponse.json({ n: counts[new URL(request.url).searchParams.get('f')!] })))
const goOffline = () => act(() => void window.dispatchEvent(new Event('offline')))
const goOnline = () => act(() => void window.dispatchEvent(new Event('online')))

afterEach(() => onlineManager.setOnline(true))

describe('offline notice', () => {
  it('says the count may be out of date while offline, and the count catches up on reconnect', async () => {
    const user = userEvent.setup()
    countsAnswer()
    renderWithProviders(<Count />)
    expect(await screen.findByText('count 10')).toBeInTheDocument()
    expect(screen.getByRole('status')).toBeEmptyDOMElement()

    goOffline()
    await user.click(screen.getByRole('button', { name: 'change the filter' }))
    expect(screen.getByRole('status')).toHaveTextContent(
      'You are offline. The counts and balances shown may be out of date; they will refresh once you are back online.',
    )
    // the old number is still shown: the notice is what says it may be out of date
    expect(screen.getByText('count 10')).toBeInTheDocument()

    goOnline()
    expect(await screen.findByText('count 20')).toBeInTheDocument()
    expect(screen.getByRole('status')).toBeEmptyDOMElement()
  })

  it('online but the service unreachable: says so, and "Try again" asks again', async () => {
    const user = userEvent.setup()
    countsAnswer()
    // used first (handlers added later come first), once
    server.use(http.get('/api/count/', () => HttpResponse.error(), { once: true }))
    renderWithProviders(<Count />)
    expect(await screen.findByText('The service cannot be reached. The counts and balances shown may be out of date.')).toBeInTheDocument()

    await user.click(screen.getByRole('button', { name: 'Try again' }))
    expect(await screen.findByText('count 10')).toBeInTheDocument()
    await waitFor(() => expect(screen.getByRole('status')).toBeEmptyDOMElement())
  })

  it('a failed answer (not the network) is no reason for it', async () => {
    server.use(http.get('/api/count/', () => HttpResponse.json({ detail: 'Server error' }, { status: 500 })))
    const { queryClient } = renderWithProviders(<Count />)
    await waitFor(() => expect(queryClient.getQueryState(['count', 'a'])?.status).toBe('error'))
    expect(screen.getByRole('status')).toBeEmptyDOMElement()
  })
})
