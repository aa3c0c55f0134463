/**
 * Build-time settings. Checked by hand rather than with zod: this module is on every page's
 * first load, and one optional string does not need a schema library.
 */
function baseUrl(value: unknown): string {
  if (value === undefined || value === null) return ''
  if (typeof value !== 'string') throw new Error('VITE_API_BASE_URL must be a string')
  return value.trim().replace(/\/+$/, '')
}

export const env = {
  /** Base address of the lead-data service; empty means the dashboard's own origin (npm start). */
  VITE_API_BASE_URL: baseUrl(import.meta.env.VITE_API_BASE_URL),
} as const
