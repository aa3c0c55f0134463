import type { ZodError } from 'zod'
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
      return { code: issue.format === 'email' ? 'invalid_email' : 'invalid_format' }
    case 'invalid_value':
      return { code: 'invalid_choice' }
    case 'unrecognized_keys':
      return { code: 'unknown_field' }
    case 'invalid_type':
      return issue.input === undefined ? { code: 'required' } : { code: 'invalid_type' }
    case 'custom': {
      // refinements name their code as `params: {code, ...}` (e.g. too_many_values with its limit)
      const { code, ...params } = (issue.params ?? {}) as Record<string, string | number>
      return typeof code === 'string' ? { code, params } : { code: 'invalid' }
    }
    default:
      return { code: 'invalid' }
  }
}

/** zod issues → decisions.md's `errors` (with codes); issues without a path go to non_field_errors. */
export function zodErrorsToFields(error: ZodError): FieldErrors {
  const out: FieldErrors = {}
  for (const issue of error.issues) {
    const field = issue.path.length ? issue.path.join('.') : 'non_field_errors'
    ;(out[field] ??= []).push({ ...issueCode(issue), message: issue.message })
  }
  return out
}
