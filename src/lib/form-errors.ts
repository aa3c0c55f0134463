import type { FieldValues, Path, UseFormSetError } from 'react-hook-form'
import { ApiError } from './api-client'

/**
 * Puts the service's 400 field errors (`{errors: {field: [msg]}}`) on the form's own fields.
 * Returns true when at least one field got a message, so the caller shows a general error otherwise.
 */
export function applyFieldErrors<T extends FieldValues>(error: unknown, setError: UseFormSetError<T>, fields: readonly Path<T>[]): boolean {
  if (!(error instanceof ApiError)) return false
  let applied = false
  for (const [field, messages] of Object.entries(error.fieldErrors)) {
    const name = fields.find((f) => f === field)
    if (name && messages[0]) {
      setError(name, { type: 'server', message: messages.join(' ') }, { shouldFocus: !applied })
      applied = true
    }
  }
  return applied
}
