import type { z } from 'zod'
import { env } from '@/config/env'

/**
 * The one way the dashboard talks to the lead-data service.
 * CONTRACT (features rely on it): `api(path, options)` resolves to the zod-parsed body, or
 * `undefined` for 204; any non-2xx rejects with ApiError. Paths are written like '/api/companies'
 * and always sent with the trailing slash.
 *
 * NOTE (foundation issue): token refresh on 401, 429 back-off and cross-tab coordination are added
 * here, in the fetch layer, not in React Query's retry.
 */
export type QueryValue = string | number | boolean | null | undefined | ReadonlyArray<string | number>

export interface ApiOptions<T> {
  method?: 'GET' | 'POST' | 'PATCH' | 'PUT' | 'DELETE'
  query?: Record<string, QueryValue>
  body?: unknown
  schema?: z.ZodType<T>
  signal?: AbortSignal
  /** false for the public endpoints (/api/auth/*, /api/plans): no Authorization header, no refresh. */
  auth?: boolean
}

export class ApiError extends Error {
  readonly status: number
  readonly detail: string
  readonly code: string | undefined
  readonly validationCode: string | undefined
  readonly fieldErrors: Record<string, string[]>
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
    this.fieldErrors = normalizeFieldErrors(obj)
    this.retryAfterMs = opts.retryAfterMs
    this.requestId = opts.requestId
  }
}

/** `{errors: {f: [..]}}` (reference) or DRF-style top-level `{f: [..]}`. */
function normalizeFieldErrors(obj: Record<string, unknown>): Record<string, string[]> {
  const source =
    obj.errors && typeof obj.errors === 'object' ? (obj.errors as Record<string, unknown>) : obj
  const out: Record<string, string[]> = {}
  for (const [k, v] of Object.entries(source)) {
    if (k === 'detail' || k === 'code') continue
    if (Array.isArray(v) && v.every((x) => typeof x === 'string')) out[k] = v
    else if (typeof v === 'string' && source !== obj) out[k] = [v]
  }
  return out
}

export function buildUrl(path: string, query?: Record<string, QueryValue>): string {
  let p = path.startsWith('/') ? path : `/${path}`
  if (!p.endsWith('/')) p += '/'
  const params = new URLSearchParams()
  for (const [k, v] of Object.entries(query ?? {})) {
    if (v === undefined || v === null || v === '' || v === false) continue
    if (Array.isArray(v)) for (const item of v) params.append(k, String(item))
    else params.set(k, String(v))
  }
  const qs = params.toString()
  return `${env.VITE_API_BASE_URL}${p}${qs ? `?${qs}` : ''}`
}

let accessTokenGetter: () => string | null = () => null
/** Set by the session module (lib/auth): where the access token comes from. */
export function setAccessTokenGetter(getter: () => string | null) {
  accessTokenGetter = getter
}

export async function api<T = unknown>(path: string, options: ApiOptions<T> = {}): Promise<T> {
  const { method = 'GET', query, body, schema, signal, auth = true } = options
  const headers: Record<string, string> = { Accept: 'application/json' }
  if (body !== undefined) headers['Content-Type'] = 'application/json'
  const requestId = crypto.randomUUID()
  headers['X-Request-ID'] = requestId
  const token = auth ? accessTokenGetter() : null
  if (token) headers.Authorization = `Bearer ${token}`
  const res = await fetch(buildUrl(path, query), {
    method,
    headers,
    body: body === undefined ? undefined : JSON.stringify(body),
    signal,
  })
  if (!res.ok) throw new ApiError(res.status, await readBody(res), { requestId })
  if (res.status === 204) return undefined as T
  const data = await readBody(res)
  return schema ? schema.parse(data) : (data as T)
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
