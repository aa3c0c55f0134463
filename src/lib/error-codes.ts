import { i18n, loadPageNamespaces } from './i18n'

/**
 * The service's errors in the person's language (issue 10). The reference service sends a machine
 * code beside each English message (`code`, and `error_codes` on 400s, index for index with
 * `errors`); the real service may send only its English text, so its common messages are
 * recognised too. A code or text we do not know is shown as the service wrote it.
 */
export interface ErrorIssue {
  code?: string
  params: Record<string, string | number>
  /** The service's own words (English), shown when the code is unknown. */
  message: string
}

/** The parameter a code's sentence counts with (its plural forms follow it). */
const COUNT_PARAM: Record<string, string> = {
  throttled: 'retry_after',
  max_length: 'limit',
  min_length: 'limit',
  too_many_values: 'limit',
  password_too_short: 'limit',
  password_too_long: 'limit',
  api_key_limit: 'limit',
}

/** Codes of other services (DRF's) that mean one of ours. */
const ALIASES: Record<string, string> = { permission_denied: 'forbidden', authentication_failed: 'invalid_credentials', gone: 'link_expired' }

/**
 * The English texts of the real service (Django REST framework, simplejwt, Django's password
 * validators) and of the reference service, for answers that carry no code.
 */
const RECOGNISED: Array<[RegExp, string, (m: RegExpExecArray) => Record<string, number>]> = [
  [/^This field (is required|may not be (blank|null))\.$/i, 'required', () => ({})],
  [/^Ensure this field has no more than (\d+) characters?\.$/i, 'max_length', (m) => ({ limit: Number(m[1]) })],
  [/^Ensure this field has at least (\d+) characters?\.$/i, 'min_length', (m) => ({ limit: Number(m[1]) })],
  [/^Ensure this value is less than or equal to (-?\d+)\.$/i, 'max_value', (m) => ({ limit: Number(m[1]) })],
  [/^Ensure this value is greater than or equal to (-?\d+)\.$/i, 'min_value', (m) => ({ limit: Number(m[1]) })],
  [/^Enter a valid email address\.$/i, 'invalid_email', () => ({})],
  [/^(user|account|an account) with this email( address)? already exists\.$/i, 'email_taken', () => ({})],
  [/^This password is too short\. It must contain at least (\d+) characters?\.$/i, 'password_too_short', (m) => ({ limit: Number(m[1]) })],
  [/^This password is too common\.$/i, 'password_too_common', () => ({})],
  [/^This password is entirely numeric\.$/i, 'password_entirely_numeric', () => ({})],
  [/^The password is too similar to the .+\.$/i, 'password_too_similar', () => ({})],
  [/^Given token not valid for any token type$|^Token is invalid or expired$/i, 'token_not_valid', () => ({})],
  [/^No active account found with the given credentials$/i, 'invalid_credentials', () => ({})],
  [/^Authentication credentials were not provided\.$/i, 'not_authenticated', () => ({})],
  [/^You do not have permission to perform this action\.$/i, 'forbidden', () => ({})],
  [/^Request was throttled\. Expected available in (\d+) seconds?\.$/i, 'throttled', (m) => ({ retry_after: Number(m[1]) })],
  [/^(Not found|No \w+ matches the given query)\.$/i, 'not_found', () => ({})],
  [/^"[^"]*" is not a valid choice\.$/i, 'invalid_choice', () => ({})],
  [/^A valid (integer|number) is required\.$/i, 'invalid_type', () => ({})],
  [/^(Datetime|Date) has wrong format\./i, 'invalid_datetime', () => ({})],
]

function recognise(message: string): { code: string; params: Record<string, number> } | undefined {
  const text = message.trim()
  for (const [pattern, code, params] of RECOGNISED) {
    const m = pattern.exec(text)
    if (m) return { code, params: params(m) }
  }
  return undefined
}

/** The person's sentence for one issue: the code translated with its parameters, else the service's text. */
export function translateIssue(issue: ErrorIssue): string {
  const coded = issue.code ? { code: ALIASES[issue.code] ?? issue.code, params: issue.params } : undefined
  // the errors namespace is fetched by the API client before it throws (loadErrorStrings); until it
  // is there, or for a code we do not know, the service's text stands
  return (coded && sentence(coded)) ?? sentence(recognise(issue.message)) ?? issue.message
}

function sentence(known: { code: string; params: Record<string, string | number> } | undefined): string | undefined {
  if (!known) return undefined
  const countParam = COUNT_PARAM[known.code]
  const count = countParam === undefined ? undefined : Number(known.params[countParam])
  if (count !== undefined && !Number.isFinite(count)) return undefined
  const options = { ...known.params, ...(count === undefined ? {} : { count }) }
  const key = `codes.${known.code}`
  if (!i18n.exists(key, { ns: 'errors', ...options })) return undefined
  return String(i18n.getFixedT(null, 'errors')(key as never, options))
}

/**
 * The `errors`/`error_codes` of a 400 (reference: `{errors: {f: [msg]}, error_codes: {f: [{code}]}}`;
 * DRF: `{f: [msg]}` at the top level), as issues per field.
 */
export function fieldIssues(body: Record<string, unknown>): Record<string, ErrorIssue[]> {
  const source = body.errors && typeof body.errors === 'object' ? (body.errors as Record<string, unknown>) : body
  const codes = (body.error_codes && typeof body.error_codes === 'object' ? body.error_codes : {}) as Record<string, unknown>
  const out: Record<string, ErrorIssue[]> = {}
  for (const [field, value] of Object.entries(source)) {
    if (field === 'detail' || field === 'code' || field === 'error_codes') continue
    const messages = Array.isArray(value) && value.every((x) => typeof x === 'string') ? value : typeof value === 'string' && source !== body ? [value] : null
    if (!messages) continue
    const fieldCodes = Array.isArray(codes[field]) ? (codes[field] as unknown[]) : []
    out[field] = messages.map((message, i) => {
      const entry = fieldCodes[i]
      if (!entry || typeof entry !== 'object') return { message, params: {} }
      const { code, ...params } = entry as Record<string, unknown>
      const clean = Object.fromEntries(Object.entries(params).filter((p): p is [string, string | number] => typeof p[1] === 'string' || typeof p[1] === 'number'))
      return { message, params: clean, ...(typeof code === 'string' ? { code } : {}) }
    })
  }
  return out
}

/**
 * Fetches the error sentences before an error reaches the page (English is not in the first load:
 * a session without errors never downloads them). Never fails: without them the service's text shows.
 */
export function loadErrorStrings(): Promise<void> {
  return loadPageNamespaces(['errors']).catch(() => undefined)
}
