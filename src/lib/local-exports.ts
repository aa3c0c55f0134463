/**
 * The exports this account started in this browser: History's list when the service has none (the
 * interface has no list of past exports; decisions.md: "falls back to what it can know itself, and
 * says so"). Per account, in localStorage; search ids, filters, format and time only, never a token.
 */
export interface LocalExport {
  search_id: string
  /** The search as the service's query names it (countries, category, level1_location, …, email: true). */
  filters: Record<string, unknown>
  export_format: string
  max_leads: number | null
  /** ISO 8601, when the export was started. */
  created_at: string
  lead_count?: number | undefined
  credits_charged?: number | undefined
  /** The export a fresh-data export was made from. */
  delta_of?: string | undefined
}

/** Enough for months of exports; the oldest go first. */
export const MAX_LOCAL_EXPORTS = 200

const storageKey = (account: string) => `leads.exports.v1.${account}`

function isLocalExport(v: unknown): v is LocalExport {
  if (!v || typeof v !== 'object') return false
  const e = v as Record<string, unknown>
  return (
    typeof e.search_id === 'string' &&
    typeof e.created_at === 'string' &&
    typeof e.export_format === 'string' &&
    !!e.filters &&
    typeof e.filters === 'object'
  )
}

/** Newest first. Storage that is missing, full, blocked or written by someone else gives an empty list. */
export function readLocalExports(account: string): LocalExport[] {
  try {
    const raw = localStorage.getItem(storageKey(account))
    const parsed: unknown = raw ? JSON.parse(raw) : []
    return Array.isArray(parsed) ? parsed.filter(isLocalExport) : []
  } catch {
    return []
  }
}

export function recordLocalExport(account: string, entry: LocalExport): void {
  const rest = readLocalExports(account).filter((e) => e.search_id !== entry.search_id)
  try {
    localStorage.setItem(storageKey(account), JSON.stringify([entry, ...rest].slice(0, MAX_LOCAL_EXPORTS)))
  } catch {
    // private mode or a full quota: the export itself is unaffected, only this browser's list misses it
  }
}

export const findLocalExport = (account: string, searchId: string) => readLocalExports(account).find((e) => e.search_id === searchId)
