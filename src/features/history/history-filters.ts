import type { HistoryEntry, HistorySearchParams } from '@/api/history/get-search-history'
import { exportPhase } from '@/domain/export-status'

/** The three states History tells apart: waiting and running read the same here. */
export type HistoryPhase = 'completed' | 'failed' | 'running'
export const HISTORY_PHASES: readonly HistoryPhase[] = ['completed', 'failed', 'running']

export const historyPhase = (status: string): HistoryPhase => {
  const phase = exportPhase(status)
  return phase === 'pending' ? 'running' : phase
}

/** What the person narrows History to, besides "watched only" (which the service itself filters). */
export interface HistoryFilter {
  /** Typed text: matched against the search's name and the export's number. */
  text: string
  /** ISO 3166 alpha-2, upper case; '' for every country. */
  country: string
  status: HistoryPhase | ''
}

export const NO_FILTER: HistoryFilter = { text: '', country: '', status: '' }

export const isFiltering = (f: HistoryFilter) => f.text.trim() !== '' || f.country !== '' || f.status !== ''

/** The filter as the address keeps it (`q`, `country`, `status`), so a reload or a shared link shows the same list. */
export function filterFromParams(params: URLSearchParams): HistoryFilter {
  const status = params.get('status') ?? ''
  const country = (params.get('country') ?? '').toUpperCase()
  return {
    text: params.get('q') ?? '',
    country: /^[A-Z]{2}$/.test(country) ? country : '',
    status: (HISTORY_PHASES as readonly string[]).includes(status) ? (status as HistoryPhase) : '',
  }
}

/** `params` with the filter written in (empty parts removed) and the page reset: a new filter starts at its first page. */
export function withFilter(params: URLSearchParams, f: HistoryFilter): URLSearchParams {
  const next = new URLSearchParams(params)
  const set = (key: string, value: string) => (value ? next.set(key, value) : next.delete(key))
  set('q', f.text)
  set('country', f.country)
  set('status', f.status)
  next.delete('page')
  return next
}

/** The service's statuses of each phase: a service that searches History (extension `history_search`) takes its own words. */
const PHASE_STATUSES: Record<HistoryPhase, readonly string[]> = {
  completed: ['COMPLETED'],
  failed: ['FAILED'],
  running: ['PENDING', 'PROCESSING'],
}

/** The filter as the service's history search takes it. */
export const toServiceSearch = (f: HistoryFilter): HistorySearchParams => ({
  q: f.text,
  country: f.country,
  statuses: f.status ? PHASE_STATUSES[f.status] : [],
})

/**
 * Case- and accent-blind text for matching: "zurich" finds "Zürich", "קפה" finds "קָפֶה". Both sides
 * lose their combining marks the same way, so Thai vowel signs still match themselves.
 */
const fold = (lng: string, s: string) => s.normalize('NFKD').replace(/\p{M}/gu, '').toLocaleLowerCase(lng)

export function matchesFilter(entry: HistoryEntry, f: HistoryFilter, lng: string): boolean {
  if (f.country && !entry.filters.countries.some((c) => c.toUpperCase() === f.country)) return false
  if (f.status && historyPhase(entry.status) !== f.status) return false
  const text = fold(lng, f.text.trim())
  if (!text) return true
  // "#12" or "12" finds export #12, as its label reads
  const number = text.replace(/^#/, '')
  if (number && String(entry.search_id).toLowerCase().includes(number)) return true
  return entry.name ? fold(lng, entry.name).includes(text) : false
}
