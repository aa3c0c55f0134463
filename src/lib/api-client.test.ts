import { http, HttpResponse, delay } from 'msw'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { z } from 'zod'
import { server } from '@/testing/msw-server'
import { api, ApiError, CLIENT_CODES, fullJitter, lazySchema, MAX_ATTEMPTS, parseRetryAfter } from './api-client'
import { isSignedIn, onSessionEnd, REFRESH_STORAGE_KEY, resetSessionForTests, setTokensForTests } from './session'

const thingSchema = z.object({ ok: z.literal(true) })

beforeEach(() => resetSessionForTests())
afterEach(() => vi.restoreAllMocks())

describe('401 and the refresh token', () => {
  it('sends one refresh for many requests that failed at once, retries each once, and stores the rotated token', async () => {
    setTokensForTests('old-access', 'refresh-1')
    let refreshCalls = 0
    const seenRefreshBodies: unknown[] = []
    const authHeaders: (string | null)[] = []
    server.use(
      http.get('/api/thing/:n/', ({ request }) => {
        const auth = request.headers.get('Authorization')
        authHeaders.push(auth)
        if (auth !== 'Bearer new-access')
          return HttpResponse.json({ detail: 'Token is invalid or expired', code: 'token_not_valid' }, { status: 401 })
        return HttpResponse.json({ ok: true, extra: 'tolerated' })
      }),
      http.post('/api/token/refresh/', async ({ request }) => {
        refreshCalls++
        seenRefreshBodies.push(await request.json())
        await delay(30)
        return HttpResponse.json({ access: 'new-access', refresh: 'refresh-2' })
      }),
    )

    const results = await Promise.all([1, 2, 3, 4, 5, 6].map((n) => api(`/api/thing/${n}/`, { schema: thingSchema })))

    expect(results).toEqual(Array(6).fill({ ok: true }))
    expect(refreshCalls).toBe(1)
    expect(seenRefreshBodies).toEqual([{ refresh: 'refresh-1' }])
    // each request: once with the old token, once with the new one
    expect(authHeaders.filter((h) => h === 'Bearer old-access')).toHaveLength(6)
    expect(authHeaders.filter((h) => h === 'Bearer new-access')).toHaveLength(6)
    expect(localStorage.getItem(REFRESH_STORAGE_KEY)).toBe('refresh-2')

    // the next request goes out with the new token straight away
    await api('/api/thing/7/', { schema: thingSchema })
    expect(authHeaders.at(-1)).toBe('Bearer new-access')
    expect(refreshCalls).toBe(1)
  })

  it('keeps the refresh token when the service does not rotate it', async () => {
    setTokensForTests('old-access', 'refresh-1')
    server.use(
      http.get('/api/thing/', ({ request }) =>
        request.headers.get('Authorization') === 'Bearer new-access'
          ? HttpResponse.json({ ok: true })
          : HttpResponse.json({ detail: 'expired', code: 'token_not_valid' }, { status: 401 }),
      ),
      http.post('/api/token/refresh/', () => HttpResponse.json({ access: 'new-access' })),
    )
    await expect(api('/api/thing/', { schema: thingSchema })).resolves.toEqual({ ok: true })
    expect(localStorage.getItem(REFRESH_STORAGE_KEY)).toBe('refresh-1')
  })

  it('gets an access token first after a reload (refresh token only) instead of sending a request bound to fail', async () => {
    setTokensForTests(null, 'refresh-1')
    const authHeaders: (string | null)[] = []
    server.use(
      http.get('/api/thing/', ({ request }) => {
        authHeaders.push(request.headers.get('Authorization'))
        return HttpResponse.json({ ok: true })
      }),
      http.post('/api/token/refresh/', () => HttpResponse.json({ access: 'fresh', refresh: 'refresh-2' })),
    )
    await api('/api/thing/', { schema: thingSchema })
    expect(authHeaders).toEqual(['Bearer fresh'])
  })

  it('ends the session cleanly when the refresh is refused', async () => {
    setTokensForTests('old-access', 'refresh-1')
    const ended = vi.fn()
    const off = onSessionEnd(ended)
    let refreshCalls = 0
    server.use(
      http.get('/api/thing/:n/', () => HttpResponse.json({ detail: 'expired', code: 'token_not_valid' }, { status: 401 })),
      http.post('/api/token/refresh/', () => {
        refreshCalls++
        return HttpResponse.json({ detail: 'Token is blacklisted', code: 'token_not_valid' }, { status: 401 })
      }),
    )
    const outcomes = await Promise.allSettled([1, 2, 3].map((n) => api(`/api/thing/${n}/`)))
    off()

    expect(refreshCalls).toBe(1)
    for (const o of outcomes) {
      expect(o.status).toBe('rejected')
      const reason = (o as PromiseRejectedResult).reason as ApiError
      expect(reason).toBeInstanceOf(ApiError)
      expect(reason.status).toBe(401)
      expect(reason.code).toBe(CLIENT_CODES.sessionEnded)
    }
    expect(ended).toHaveBeenCalledTimes(1)
    expect(ended).toHaveBeenCalledWith('expired')
    expect(localStorage.getItem(REFRESH_STORAGE_KEY)).toBeNull()
    expect(isSignedIn()).toBe(false)
  })

  it('does not refresh for public endpoints', async () => {
    server.use(http.post('/api/auth/login/', () => HttpResponse.json({ detail: 'No active account' }, { status: 401 })))
    const err = await api('/api/auth/login/', { method: 'POST', body: {}, auth: false }).catch((e: unknown) => e)
    expect(err).toBeInstanceOf(ApiError)
    expect((err as ApiError).status).toBe(401)
  })
})

describe('429 and back-off', () => {
  it('parses Retry-After as seconds or as an HTTP date', () => {
    const now = Date.parse('2026-11-23T10:00:00Z')
    expect(parseRetryAfter('120', now)).toBe(120_000)
    expect(parseRetryAfter('Mon, 23 Nov 2026 10:00:30 GMT', now)).toBe(30_000)
    expect(parseRetryAfter('Mon, 23 Nov 2026 09:00:00 GMT', now)).toBe(0)
    expect(parseRetryAfter('soon', now)).toBeUndefined()
    expect(parseRetryAfter(null, now)).toBeUndefined()
  })

  it('full jitter stays between 0 and the capped exponential', () => {
    expect(fullJitter(0, () => 0.999)).toBeLessThan(500)
    expect(fullJitter(2, () => 0.999)).toBeLessThan(2000)
    expect(fullJitter(2, () => 0.999)).toBeGreaterThan(1900)
    expect(fullJitter(20, () => 0.999)).toBeLessThanOrEqual(8000)
    expect(fullJitter(3, () => 0)).toBe(0)
  })

  it('waits the seconds of Retry-After, then succeeds', async () => {
    let calls = 0
    server.use(
      http.get('/api/busy/', () => {
        calls++
        return calls === 1
          ? HttpResponse.json({ detail: 'Request was throttled.' }, { status: 429, headers: { 'Retry-After': '1' } })
          : HttpResponse.json({ ok: true })
      }),
    )
    const started = performance.now()
    await expect(api('/api/busy/', { schema: thingSchema, auth: false })).resolves.toEqual({ ok: true })
    expect(performance.now() - started).toBeGreaterThanOrEqual(950)
    expect(calls).toBe(2)
  })

  it('waits until the HTTP date of Retry-After', async () => {
    let calls = 0
    const times: number[] = []
    server.use(
      http.get('/api/busy/', () => {
        calls++
        times.push(Date.now())
        // HTTP dates have whole seconds: two seconds ahead is at least one second of waiting
        const until = new Date(Date.now() + 2000).toUTCString()
        return calls === 1
          ? HttpResponse.json({ detail: 'Request was throttled.' }, { status: 429, headers: { 'Retry-After': until } })
          : HttpResponse.json({ ok: true })
      }),
    )
    await expect(api('/api/busy/', { schema: thingSchema, auth: false })).resolves.toEqual({ ok: true })
    expect(calls).toBe(2)
    expect(times[1]! - times[0]!).toBeGreaterThanOrEqual(1000)
  })

  it('gives up after three attempts with a busy ApiError', async () => {
    vi.spyOn(Math, 'random').mockReturnValue(0) // no header: full jitter, made instant here
    let calls = 0
    server.use(
      http.get('/api/busy/', () => {
        calls++
        return HttpResponse.json({ detail: 'Request was throttled.' }, { status: 429 })
      }),
    )
    const err = await api('/api/busy/', { auth: false }).catch((e: unknown) => e)
    expect(calls).toBe(MAX_ATTEMPTS)
    expect(MAX_ATTEMPTS).toBe(3)
    expect(err).toBeInstanceOf(ApiError)
    expect((err as ApiError).status).toBe(429)
    expect((err as ApiError).isBusy).toBe(true)
  })

  it.each([400, 403, 404, 409, 410, 422])('does not retry a %i', async (status) => {
    let calls = 0
    server.use(
      http.post('/api/thing/', () => {
        calls++
        return HttpResponse.json({ detail: 'No.', errors: { email: ['Enter a valid email address.'] }, validation_code: 'x' }, { status })
      }),
    )
    const err = (await api('/api/thing/', { method: 'POST', body: {}, auth: false }).catch((e: unknown) => e)) as ApiError
    expect(calls).toBe(1)
    expect(err.status).toBe(status)
    expect(err.detail).toBe('No.')
    expect(err.fieldErrors).toEqual({ email: ['Enter a valid email address.'] })
    expect(err.validationCode).toBe('x')
  })
})

describe('requests', () => {
  it('sends the path as written, a request id, the query and JSON body', async () => {
    let seen: { url: string; id: string | null; body: unknown; type: string | null } | null = null
    server.use(
      http.post('/api/companies/', async ({ request }) => {
        seen = {
          url: request.url,
          id: request.headers.get('X-Request-ID'),
          body: await request.json(),
          type: request.headers.get('Content-Type'),
        }
        return HttpResponse.json({ ok: true })
      }),
    )
    await api('/api/companies/', {
      method: 'POST',
      query: { countries: ['DE', 'FR'], email: true, phone_number: false },
      body: { a: 1 },
      auth: false,
    })
    expect(seen).not.toBeNull()
    const s = seen as unknown as { url: string; id: string; body: unknown; type: string }
    expect(new URL(s.url).pathname).toBe('/api/companies/')
    expect(new URL(s.url).search).toBe('?countries=DE&countries=FR&email=true')
    expect(s.id).toMatch(/^[0-9a-f-]{36}$/)
    expect(s.body).toEqual({ a: 1 })
    expect(s.type).toBe('application/json')
  })

  it('sends a path without a trailing slash as written (interface 4.1: GET /api/plans)', async () => {
    let path = ''
    server.use(
      http.get('/api/plans', ({ request }) => {
        path = new URL(request.url).pathname
        return HttpResponse.json([])
      }),
    )
    await api('/api/plans', { auth: false })
    expect(path).toBe('/api/plans')
  })

  it('turns a body of the wrong shape into an ApiError instead of a crash later', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => {})
    server.use(http.get('/api/thing/', () => HttpResponse.json({ ok: 'yes' })))
    const err = (await api('/api/thing/', { schema: thingSchema, auth: false }).catch((e: unknown) => e)) as ApiError
    expect(err).toBeInstanceOf(ApiError)
    expect(err.code).toBe(CLIENT_CODES.invalidResponse)
  })

  it('builds a lazy schema once, when the first answer is read rather than when the request starts', async () => {
    let answer: () => void = () => {}
    const answered = new Promise<void>((resolve) => (answer = resolve))
    server.use(
      http.get('/api/thing/', async () => {
        await answered
        return HttpResponse.json({ ok: true })
      }),
    )
    const build = vi.fn(() => thingSchema)
    const schema = lazySchema(build)
    const first = api('/api/thing/', { schema, auth: false })
    await delay(20)
    expect(build).not.toHaveBeenCalled() // the request is under way, its answer not read yet
    answer()
    await expect(first).resolves.toEqual({ ok: true })
    await expect(api('/api/thing/', { schema, auth: false })).resolves.toEqual({ ok: true })
    expect(build).toHaveBeenCalledTimes(1)
    // and it still validates: a wrong shape is refused
    vi.spyOn(console, 'error').mockImplementation(() => {})
    server.use(http.get('/api/thing/', () => HttpResponse.json({ ok: 'yes' })))
    await expect(api('/api/thing/', { schema, auth: false })).rejects.toMatchObject({ code: CLIENT_CODES.invalidResponse })
  })

  it('answers undefined for 204', async () => {
    server.use(http.delete('/api/user/api-keys/k1/', () => new HttpResponse(null, { status: 204 })))
    await expect(api('/api/user/api-keys/k1/', { method: 'DELETE', auth: false })).resolves.toBeUndefined()
  })
})
