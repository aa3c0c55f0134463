import { http, HttpResponse } from 'msw'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { server } from '@/testing/msw-server'
import { api } from './api-client'
import { isSignedIn, onSessionEnd, REFRESH_STORAGE_KEY, resetSessionForTests, setTokensForTests, signOut } from './session'

/** Another tab of the dashboard, as far as the session is concerned: the same channel name. */
let otherTab: BroadcastChannel
const received: unknown[] = []

beforeEach(() => {
  resetSessionForTests()
  received.length = 0
  otherTab = new BroadcastChannel('leads.session')
  otherTab.onmessage = (e: MessageEvent) => received.push(e.data)
})
afterEach(() => otherTab.close())

const until = async (check: () => boolean) => {
  for (let i = 0; i < 100 && !check(); i++) await new Promise((r) => setTimeout(r, 10))
  expect(check()).toBe(true)
}

describe('tabs share one session', () => {
  it('a sign-out in another tab ends this one', async () => {
    setTokensForTests('access-1', 'refresh-1')
    const ended = vi.fn()
    const off = onSessionEnd(ended)
    otherTab.postMessage({ type: 'signed-out', reason: 'signed-out' })
    await until(() => ended.mock.calls.length === 1)
    off()
    expect(ended).toHaveBeenCalledWith('signed-out')
    expect(isSignedIn()).toBe(false)
  })

  it('signing out here tells the other tabs', async () => {
    setTokensForTests('access-1', 'refresh-1')
    signOut()
    await until(() => received.length === 1)
    expect(received[0]).toEqual({ type: 'signed-out', reason: 'signed-out' })
    expect(localStorage.getItem(REFRESH_STORAGE_KEY)).toBeNull()
  })

  it('signing out ends the session at the service too, and a service without the endpoint (404) changes nothing', async () => {
    for (const status of [204, 404]) {
      const bodies: unknown[] = []
      server.use(
        http.post('/api/auth/logout/', async ({ request }) => {
          bodies.push(await request.json())
          return new HttpResponse(null, { status })
        }),
      )
      setTokensForTests('access-1', `refresh-${status}`)
      signOut()
      await until(() => bodies.length === 1)
      expect(bodies[0]).toEqual({ refresh: `refresh-${status}` })
      expect(isSignedIn()).toBe(false)
    }
  })

  it('a refresh here hands the new access token to the other tabs', async () => {
    setTokensForTests('old', 'refresh-1')
    server.use(
      http.get('/api/thing/', ({ request }) =>
        request.headers.get('Authorization') === 'Bearer new'
          ? HttpResponse.json({ ok: true })
          : HttpResponse.json({ code: 'token_not_valid' }, { status: 401 }),
      ),
      http.post('/api/token/refresh/', () => HttpResponse.json({ access: 'new', refresh: 'refresh-2' })),
    )
    await api('/api/thing/')
    await until(() => received.length === 1)
    expect(received[0]).toEqual({ type: 'access', access: 'new' })
  })

  it('uses the access token another tab got instead of spending the rotated refresh token again', async () => {
    setTokensForTests('old', 'refresh-1')
    let refreshCalls = 0
    server.use(
      http.get('/api/thing/', ({ request }) =>
        request.headers.get('Authorization') === 'Bearer from-other-tab'
          ? HttpResponse.json({ ok: true })
          : HttpResponse.json({ code: 'token_not_valid' }, { status: 401 }),
      ),
      http.post('/api/token/refresh/', () => {
        refreshCalls++
        return HttpResponse.json({ detail: 'reused' }, { status: 401 })
      }),
    )
    // the other tab rotated the refresh token and broadcast its new access token
    localStorage.setItem(REFRESH_STORAGE_KEY, 'refresh-2')
    otherTab.postMessage({ type: 'access', access: 'from-other-tab' })
    await expect(api('/api/thing/')).resolves.toEqual({ ok: true })
    expect(refreshCalls).toBe(0)
  })

  it('joins the other tabs a task after it starts, and catches up on a sign-out made there meanwhile', async () => {
    vi.resetModules()
    localStorage.setItem(REFRESH_STORAGE_KEY, 'refresh-1')
    const fresh = await import('./session')
    expect(fresh.isSignedIn()).toBe(true)
    const ended = vi.fn()
    fresh.onSessionEnd(ended)
    // the other tab signs out before this one listens (a tab gets no storage event of its own writes)
    localStorage.removeItem(REFRESH_STORAGE_KEY)
    await until(() => ended.mock.calls.length === 1)
    expect(ended).toHaveBeenCalledWith('signed-out')
    expect(fresh.isSignedIn()).toBe(false)
  })
})
