import { env } from '@/config/env'
import { fieldIssues, loadErrorStrings, translateIssue, type ErrorIssue } from './error-codes'

/**
 * The one way the dashboard talks to the lead-data service.
 * CONTRACT (features rely on it): `api(path, options)` resolves to the zod-parsed body, or
 * `undefined` for 204 or an empty body; any non-2xx rejects with ApiError. Paths are sent exactly as
 * written, each as the interface writes it: '/api/companies/' with its slash, '/api/plans' without.
 *
 * Inside: the bearer token and one shared refresh on 401 (lib/session.ts plugs in through
 * `setAuthHandlers`, so this module stays free of session state), and back-off on 429.
 * React Query's own retry never sees a 401 or 429 that this layer could still handle.
 */
export type QueryValue = string | number | boolean | null | undefined | ReadonlyArray<string | number>

/**
 * What `schema` must be: any Standard Schema, which every zod v4 schema is (full `zod` or
 * `zod/mini`). Validating through `~standard` keeps zod itself out of this module, so pages
 * that need no schema (sign-in) do not load it.
 */
export interface ResponseSchema<T> {
  readonly '~standard': {
    readonly validate: (
      value: unknown,
    ) =>
      | { readonly value: T; readonly issues?: undefined }
      | { readonly issues: ReadonlyArray<unknown> }
      | Promise<{ readonly value: T; readonly issues?: undefined } | { readonly issues: ReadonlyArray<unknown> }>
  }
}

export interface ApiOptions<T> {
  method?: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE'
  query?: Record<string, QueryValue>
  body?: unknown
  /**
   * Any zod v4 schema (full `zod` or `zod/mini`), or a function that builds it (lazySchema): then it
   * is built when the answer arrives, not when the request starts; its output type is what `api()` resolves to.
   */
  schema?: ResponseSchema<T> | (() => ResponseSchema<T>)
  signal?: AbortSignal
  /** false for the public endpoints (/api/auth/*, /api/plans): no Authorization header, no refresh. */
  auth?: boolean
  /**
   * false: a 429 is not waited out but thrown at once (with retryAfterMs), for forms a person submits
   * (sign-in, sign-up, reset), which show the wait as a countdown instead of a long spinner.
   */
  retryThrottled?: boolean
  /** fetch's keepalive: the request outlives the page (a save made just before the person leaves). */
  keepalive?: boolean
}

export class ApiError extends Error {
  readonly status: number
  readonly detail: string
  readonly code: string | undefined
  readonly validationCode: string | undefined
  /** The 400's field errors with their codes (`fieldErrors` gives them as sentences). */
  readonly fieldIssues: Record<string, ErrorIssue[]>
  /** Milliseconds the service asked us to wait (429 Retry-After), when it said. */
  readonly retryAfterMs: number | undefined
  readonly body: Record<string, unknown>
  readonly requestId: string | undefined

  constructor(status: number, body: unknown, opts: { retryAfterMs?: number; requestId?: string } = {}) {
    const obj = (body && typeof body === 'object' ? body : {}) as Record<string, unknown>
    const detail = typeof obj.detail === 'string' ? obj.detail : `Request failed with status ${status}`
    super(detail)
    this.name = 'ApiError'
    this.status = status
    this.detail = detail
    this.body = obj
    this.code = typeof obj.code === 'string' ? obj.code : undefined
    this.validationCode = typeof obj.validation_code === 'string' ? obj.validation_code : undefined
    this.fieldIssues = fieldIssues(obj)
    this.retryAfterMs = opts.retryAfterMs
    this.requestId = opts.requestId
  }

  /** Field → sentences in the person's language (translated codes; unknown ones as the service wrote them). */
  get fieldErrors(): Record<string, string[]> {
    return Object.fromEntries(Object.entries(this.fieldIssues).map(([field, issues]) => [field, issues.map(translateIssue)]))
  }

  /** The whole answer as one issue: its code, its numbers (retry_after, required_credits…) and its detail. */
  get issue(): ErrorIssue {
    const params = Object.fromEntries(
      Object.entries(this.body).filter(
        (p): p is [string, string | number] => p[0] !== 'code' && (typeof p[1] === 'number' || typeof p[1] === 'string'),
      ),
    )
    return { message: this.detail, params, ...(this.code ? { code: this.code } : {}) }
  }

  /** 429 after every attempt: the UI says "the service is busy". */
  get isBusy(): boolean {
    return this.status === 429
  }
}

/** Codes the client itself puts on ApiError (no HTTP status behind them). */
export const CLIENT_CODES = {
  sessionEnded: 'session_ended',
  invalidResponse: 'invalid_response',
} as const

export function buildUrl(path: string, query?: Record<string, QueryValue>): string {
  const p = path.startsWith('/') ? path : `/${path}`
  const params = new URLSearchParams()
  for (const [k, v] of Object.entries(query ?? {})) {
    if (v === undefined || v === null || v === '' || v === false) continue
    if (Array.isArray(v)) for (const item of v) params.append(k, String(item))
    else params.set(k, String(v))
  }
  const qs = params.toString()
  return `${env.VITE_API_BASE_URL}${p}${qs ? `?${qs}` : ''}`
}

export interface AuthHandlers {
  /** The current access token, getting one first (via the refresh token) when there is none in memory. */
  getAccessToken: () => Promise<string | null>
  /**
   * Called after a 401 with the token that failed. Resolves to a fresh access token (one refresh
   * however many callers ask at once) or rejects with ApiError when the session is over.
   */
  refreshAccessToken: (failedToken: string | null) => Promise<string>
}

let authHandlers: AuthHandlers = {
  getAccessToken: async () => null,
  refreshAccessToken: () => Promise.reject(new ApiError(401, { detail: 'Not signed in.', code: CLIENT_CODES.sessionEnded })),
}

export function setAuthHandlers(handlers: AuthHandlers) {
  authHandlers = handlers
}

/** 429 handling: at most this many attempts in all, then ApiError(429). */
export const MAX_ATTEMPTS = 3
const BACKOFF_BASE_MS = 500
const BACKOFF_CAP_MS = 8_000
/** A Retry-After longer than this is not waited out inside a request; the caller is told instead. */
export const MAX_RETRY_AFTER_MS = 30_000

/** Retry-After is either delta-seconds or an HTTP date (RFC 9110 10.2.3). */
export function parseRetryAfter(value: string | null, now: number = Date.now()): number | undefined {
  if (!value) return undefined
  const trimmed = value.trim()
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000
  const date = Date.parse(trimmed)
  if (Number.isNaN(date)) return undefined
  return Math.max(0, date - now)
}

/** "Full jitter" (AWS architecture blog): a uniform wait between 0 and the capped exponential. */
export const fullJitter = (attempt: number, random: () => number = Math.random) =>
  Math.floor(random() * Math.min(BACKOFF_CAP_MS, BACKOFF_BASE_MS * 2 ** attempt))

function sleep(ms: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve, reject) => {
    if (signal?.aborted) return reject(signal.reason)
    const timer = setTimeout(() => {
      signal?.removeEventListener('abort', onAbort)
      resolve()
    }, ms)
    const onAbort = () => {
      clearTimeout(timer)
      reject(signal?.reason)
    }
    signal?.addEventListener('abort', onAbort, { once: true })
  })
}

export async function api<T = unknown>(path: string, options: ApiOptions<T> = {}): Promise<T> {
  const { method = 'GET', query, body, schema, signal, auth = true, retryThrottled = true, keepalive } = options
  const url = buildUrl(path, query)

  const send = (token: string | null, requestId: string) => {
    const headers: Record<string, string> = { Accept: 'application/json', 'X-Request-ID': requestId }
    if (body !== undefined) headers['Content-Type'] = 'application/json'
    if (token) headers.Authorization = `Bearer ${token}`
    return fetch(url, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), signal, keepalive })
  }

  for (let attempt = 0; ; attempt++) {
    const requestId = crypto.randomUUID()
    let token = auth ? await authHandlers.getAccessToken() : null
    let res = await send(token, requestId)

    if (res.status === 401 && auth && token) {
      // expired or revoked access token: one shared refresh, then this request once more
      token = await authHandlers.refreshAccessToken(token)
      res = await send(token, requestId)
    }

    if (res.status === 429) {
      const retryAfterMs = parseRetryAfter(res.headers.get('Retry-After'))
      const wait = retryAfterMs ?? fullJitter(attempt)
      if (retryThrottled && attempt + 1 < MAX_ATTEMPTS && wait <= MAX_RETRY_AFTER_MS) {
        await res.text().catch(() => '')
        await sleep(wait, signal)
        continue
      }
      const throttled = await readBody(res)
      await loadErrorStrings()
      // the body's retry_after (seconds) when the header is missing
      const bodyWait = throttled && typeof throttled === 'object' ? (throttled as { retry_after?: unknown }).retry_after : undefined
      throw new ApiError(429, throttled, {
        retryAfterMs: retryAfterMs ?? (typeof bodyWait === 'number' ? bodyWait * 1000 : undefined),
        requestId,
      })
    }

    if (!res.ok) {
      const failure = await readBody(res)
      await loadErrorStrings()
      throw new ApiError(res.status, failure, { requestId })
    }
    if (res.status === 204) return undefined as T
    const data = await readBody(res)
    if (!schema) return data as T
    const parsed = await ('~standard' in schema ? schema : schema())['~standard'].validate(data)
    if (parsed.issues) {
      console.error(`Unexpected response from ${method} ${path}`, parsed.issues)
      throw new ApiError(
        res.status,
        { detail: 'The service answered in an unexpected shape.', code: CLIENT_CODES.invalidResponse },
        { requestId },
      )
    }
    return parsed.value
  }
}

async function readBody(res: Response): Promise<unknown> {
  const text = await res.text()
  if (!text) return undefined
  try {
    return JSON.parse(text)
  } catch {
    return { detail: text.slice(0, 200) }
  }
}

/**
 * A schema built on its first use rather than when its module is evaluated: the modules of the
 * first page are evaluated while a slow phone starts it, and a schema waits for a response anyway
 * (zod builds every check of a schema when it is created, and its code is compiled on first use).
 * Hand `api()` the function itself, not its result: the schema is then built when the answer is
 * read, not in the render that starts the request.
 */
export function lazySchema<T>(build: () => T): () => T {
  let schema: T | undefined
  return () => (schema ??= build())
}
