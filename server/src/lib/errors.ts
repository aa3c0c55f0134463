import type { ContentfulStatusCode } from 'hono/utils/http-status'

/** Thrown by route code; app.ts turns it into the JSON error bodies of decisions.md. */
export class HttpError extends Error {
  constructor(
    readonly status: ContentfulStatusCode,
    readonly body: { detail: string } & Record<string, unknown>,
    readonly headers: Record<string, string> = {},
  ) {
    super(body.detail)
  }
}

export const badRequest = (errors: Record<string, string[]>, detail = 'Invalid input.') =>
  new HttpError(400, { detail, errors })
export const notFound = (detail = 'Not found.') => new HttpError(404, { detail })
export const unauthorized = (detail = 'Authentication credentials were not provided.') =>
  new HttpError(401, { detail })
export const tokenNotValid = (detail = 'Given token not valid for any token type') =>
  new HttpError(401, { detail, code: 'token_not_valid' })
export const gone = (detail: string) => new HttpError(410, { detail })

/** The PostgreSQL SQLSTATE of a database error (pg and PGlite both carry it as `code`), if any. */
export function sqlState(err: unknown): string | undefined {
  const code = typeof err === 'object' && err !== null ? (err as { code?: unknown }).code : undefined
  return typeof code === 'string' ? code : undefined
}

/**
 * One log line for an error: name, message and code only. Database errors also carry `query`,
 * `params` (a failed sign-up's carried the password hash) and `detail` ("Failing row contains …"),
 * so the error object itself is never logged.
 */
export function describeError(err: unknown): string {
  if (!(err instanceof Error)) return `non-error thrown (${typeof err})`
  const code = sqlState(err)
  return `${err.name}: ${err.message}${code ? ` (code ${code})` : ''}`
}
