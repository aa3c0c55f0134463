import { ApiError, buildUrl } from '@/lib/api-client'
import { loadErrorStrings } from '@/lib/error-codes'
import { refreshAccessToken } from '@/lib/session'

/**
 * The two calls of the lists that api() cannot make, an upload that reports its progress
 * (XMLHttpRequest) and the report file read as a blob, send the same bearer token: the one in
 * memory (or a fresh one after a reload), and after a 401 a refreshed one, once, as api() does.
 * The token goes in the Authorization header, never in an address.
 */
export async function withToken<R extends { status: number }>(send: (authorization: string) => Promise<R>): Promise<R> {
  const token = await refreshAccessToken(null)
  const answer = await send(`Bearer ${token}`)
  if (answer.status !== 401) return answer
  return send(`Bearer ${await refreshAccessToken(token)}`)
}

/** A failed answer as api() would throw it: its code and field errors in the person's language. */
export async function failure(status: number, text: string, requestId: string): Promise<ApiError> {
  let body: unknown
  try {
    body = text ? JSON.parse(text) : undefined
  } catch {
    body = { detail: text.slice(0, 200) }
  }
  await loadErrorStrings()
  return new ApiError(status, body, { requestId })
}

export const listUrl = (listId: string, rest = '') => buildUrl(`/api/lists/${encodeURIComponent(listId)}/${rest}`)
