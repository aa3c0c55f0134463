import { QueryClient, QueryClientProvider, useQuery } from '@tanstack/react-query'
import { act, renderHook } from '@testing-library/react'
import type { ReactNode } from 'react'
import { afterEach, describe, expect, it } from 'vitest'

function setVisibility(state: 'hidden' | 'visible') {
  Object.defineProperty(document, 'visibilityState', { configurable: true, get: () => state })
  document.dispatchEvent(new Event('visibilitychange'))
}

afterEach(() => setVisibility('visible'))

describe('polling in hidden tabs', () => {
  it('stops refetchInterval polling while the tab is hidden and resumes when it is shown', async () => {
    const client = new QueryClient()
    let calls = 0
    const wrapper = ({ children }: { children: ReactNode }) => <QueryClientProvider client={client}>{children}</QueryClientProvider>
    renderHook(() => useQuery({ queryKey: ['poll'], queryFn: async () => ++calls, refetchInterval: 30 }), { wrapper })
    await act(() => new Promise((r) => setTimeout(r, 200)))
    expect(calls).toBeGreaterThan(2)

    setVisibility('hidden')
    await act(() => new Promise((r) => setTimeout(r, 40)))
    const whileHidden = calls
    await act(() => new Promise((r) => setTimeout(r, 250)))
    expect(calls).toBe(whileHidden)

    setVisibility('visible')
    await act(() => new Promise((r) => setTimeout(r, 200)))
    expect(calls).toBeGreaterThan(whileHidden)
    client.clear()
  })
})
