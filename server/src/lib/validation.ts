import type { ZodError } from 'zod'
import { isErrorCode } from './error-codes.ts'
import type { FieldErrors, FieldIssue } from './errors.ts'

type Issue = ZodError['issues'][number]

/** A zod issue → the machine code (and its parameters) that clients translate. */
export function issueCode(issue: Issue): Omit<FieldIssue, 'message'> {
  switch (issue.code) {
    case 'too_big':
      return issue.origin === 'string'
        ? { code: 'max_length', params: { limit: Number(issue.maximum) } }
        : { code: 'max_value', params: { limit: Number(issue.maximum) } }
    case 'too_small':
      if (issue.origin === 'string') {
        return Number(issue.minimum) <= 1 ? { code: 'required' } : { code: 'min_length', params: { limit: Number(issue.minimum) } }
      }
      return { code: 'min_value', params: { limit: Number(issue.minimum) } }
    case 'invalid_format':
      return { code: issue.format === 'email' ? 'invalid_email' : issue.format === 'datetime' ? 'invalid_datetime' : 'invalid_format' }
    case 'invalid_value':
      return { code: 'invalid_choice' }
    case 'unrecognized_keys':
      return { code: 'unknown_field' }
    case 'invalid_type':
      return issue.input === undefined ? { code: 'required' } : { code: 'invalid_type' }
    case 'custom': {
      // refinements name their code as `params: {code, ...}` (e.g. too_many_values with its limit)
      const { code, ...params } = (issue.params ?? {}) as Record<string, string | number>
      return isErrorCode(code) ? { code, params } : { code: 'invalid' }
    }
    default:
      return { code: 'invalid' }
  }
}

/**
 * Common misspellings of the parameters of strict endpoints (issue 8: `countries[]=US` used to be
 * ignored and gave an unfiltered, fully charged search). A key ending in `[]` suggests itself without.
 */
const SUGGEST: Record<string, string> = {
  country: 'countries',
  country_code: 'countries',
  countries_code: 'countries',
  categories: 'category',
  category_id: 'category',
  level1: 'level1_location',
  level2: 'level2_location',
  level3: 'level3_location',
  state: 'level1_location',
  states: 'level1_location',
  county: 'level2_location',
  city: 'level3_location',
  cities: 'level3_location',
  phone: 'phone_number',
  has_email: 'email',
  format: 'export_format',
  limit: 'max_leads',
  max: 'max_leads',
  per_page: 'page_size',
  pagesize: 'page_size',
  pge: 'page',
}

export function unknownParameter(key: string): FieldIssue {
  const bare = key.replace(/\[\]$/, '')
  const suggestion = SUGGEST[bare] ?? SUGGEST[bare.toLowerCase()] ?? (bare !== key ? bare : undefined)
  return {
    code: 'unknown_parameter',
    message: `Unknown parameter "${key}".${suggestion ? ` Did you mean "${suggestion}"?` : ''} Unknown parameters are refused rather than ignored, so that a misspelled filter cannot widen a search.`,
    params: suggestion ? { suggestion } : {},
  }
}

/** zod issues → decisions.md's `errors` (with codes); issues without a path go to non_field_errors. */
export function zodErrorsToFields(error: ZodError): FieldErrors {
  const out: FieldErrors = {}
  for (const issue of error.issues) {
    if (issue.code === 'unrecognized_keys') {
      // one entry per unknown key, named by the key itself
      for (const key of issue.keys) (out[[...issue.path, key].join('.')] ??= []).push(unknownParameter(key))
      continue
    }
    const field = issue.path.length ? issue.path.join('.') : 'non_field_errors'
    ;(out[field] ??= []).push({ ...issueCode(issue), message: issue.message })
  }
  return out
}
