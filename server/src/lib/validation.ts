import type { ZodError } from 'zod'

/** zod issues → decisions.md's `errors: {field: [message, ...]}`; issues without a path go to non_field_errors. */
export function zodErrorsToFields(error: ZodError): Record<string, string[]> {
  const out: Record<string, string[]> = {}
  for (const issue of error.issues) {
    const field = issue.path.length ? issue.path.join('.') : 'non_field_errors'
    ;(out[field] ??= []).push(issue.message)
  }
  return out
}
