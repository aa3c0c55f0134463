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
const ALIASES: Record<string, string> = {
  permission_denied: 'forbidden',
  authentication_failed: 'invalid_credentials',
  gone: 'link_expired',
}

/** The real service's English texts (lib/error-texts.ts), loaded with the error strings. */
let recognised: typeof import('./error-texts').RECOGNISED = []

function recognise(message: string): { code: string; params: Record<string, number> } | undefined {
  const text = message.trim()
  for (const [pattern, code, params] of recognised) {
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
    const messages =
      Array.isArray(value) && value.every((x) => typeof x === 'string')
        ? value
        : typeof value === 'string' && source !== body
          ? [value]
          : null
    if (!messages) continue
    const fieldCodes = Array.isArray(codes[field]) ? (codes[field] as unknown[]) : []
    out[field] = messages.map((message, i) => {
      const entry = fieldCodes[i]
      if (!entry || typeof entry !== 'object') return { message, params: {} }
      const { code, ...params } = entry as Record<string, unknown>
      const clean = Object.fromEntries(
        Object.entries(params).filter((p): p is [string, string | number] => typeof p[1] === 'string' || typeof p[1] === 'number'),
      )
      return { message, params: clean, ...(typeof code === 'string' ? { code } : {}) }
    })
  }
  return out
}

/**
 * Fetches the error sentences and the recognised texts before an error reaches the page (neither is in the first load:
 * a session without errors never downloads them). Never fails: without them the service's text shows.
 */
export function loadErrorStrings(): Promise<void> {
  return Promise.all([
    loadPageNamespaces(['errors']),
    import('./error-texts').then((m) => {
      recognised = m.RECOGNISED
    }),
  ]).then(
    () => undefined,
    () => undefined,
  )
}
