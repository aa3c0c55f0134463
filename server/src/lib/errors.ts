import type { ContentfulStatusCode } from 'hono/utils/http-status'
import type { ErrorCode } from './error-codes.ts'

/**
 * Error bodies (decisions.md, plus machine codes): every body keeps its English `detail` and carries a
 * snake_case `code` with its parameters beside it (`{detail, code: "throttled", retry_after: 42}`), so a
 * client can translate it; 400 bodies keep `errors: {field: [message]}` and add
 * `error_codes: {field: [{code, ...params}]}`, index for index.
 */
export class HttpError extends Error {
  constructor(
    readonly status: ContentfulStatusCode,
    readonly body: { detail: string; code: ErrorCode } & Record<string, unknown>,
    readonly headers: Record<string, string> = {},
  ) {
    super(body.detail)
  }
}

/** One field error: what a person reads (English) and what a client translates. */
export interface FieldIssue {
  code: ErrorCode
  message: string
  params?: Record<string, string | number>
}

/** Field → issues as the service writes them; a bare string is a message with code `invalid`. */
export type FieldErrors = Record<string, Array<string | FieldIssue>>

export function fieldErrorBody(errors: FieldErrors, detail = 'Invalid input.') {
  const messages: Record<string, string[]> = {}
  const codes: Record<string, Array<{ code: ErrorCode } & Record<string, string | number>>> = {}
  for (const [field, list] of Object.entries(errors)) {
    for (const item of list) {
      const issue: FieldIssue = typeof item === 'string' ? { code: 'invalid', message: item } : item
      ;(messages[field] ??= []).push(issue.message)
      ;(codes[field] ??= []).push({ ...issue.params, code: issue.code })
    }
  }
  return { detail, code: 'invalid_input' as const, errors: messages, error_codes: codes }
}

export const badRequest = (errors: FieldErrors, detail = 'Invalid input.') => new HttpError(400, fieldErrorBody(errors, detail))
export const notFound = (detail = 'Not found.') => new HttpError(404, { detail, code: 'not_found' })
export const unauthorized = (detail = 'Authentication credentials were not provided.') =>
  new HttpError(401, { detail, code: 'not_authenticated' })
export const tokenNotValid = (detail = 'Given token not valid for any token type') =>
  new HttpError(401, { detail, code: 'token_not_valid' })
export const gone = (detail: string, code: ErrorCode = 'link_expired') => new HttpError(410, { detail, code })

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
