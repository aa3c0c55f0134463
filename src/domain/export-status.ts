/**
 * The export's life as the dashboard understands it: the one reading of a status, for the export
 * page and History alike. Interface 3.1 names only `COMPLETED`; decisions.md: statuses come in any
 * letter case (COMPLETED / completed), and an unknown status means "still running", never a crash.
 */
export type ExportPhase = 'pending' | 'running' | 'completed' | 'failed'

const PHASES: Record<string, ExportPhase> = {
  PENDING: 'pending',
  QUEUED: 'pending',
  PROCESSING: 'running',
  RUNNING: 'running',
  IN_PROGRESS: 'running',
  STARTED: 'running',
  COMPLETED: 'completed',
  COMPLETE: 'completed',
  DONE: 'completed',
  FINISHED: 'completed',
  SUCCEEDED: 'completed',
  SUCCESS: 'completed',
  FAILED: 'failed',
  FAILURE: 'failed',
  ERROR: 'failed',
  ERRORED: 'failed',
  CANCELLED: 'failed',
  CANCELED: 'failed',
  ABORTED: 'failed',
}

const normalize = (status: string | null | undefined) =>
  (status ?? '')
    .trim()
    .toUpperCase()
    .replace(/[\s-]+/g, '_')

export function exportPhase(status: string | null | undefined): ExportPhase {
  return PHASES[normalize(status)] ?? 'running'
}

/** A status none of the words above: shown as running, but polled ever more slowly (it may never end). */
export const isKnownStatus = (status: string | null | undefined) => normalize(status) in PHASES

export const isTerminal = (status: string | null | undefined) => {
  const phase = exportPhase(status)
  return phase === 'completed' || phase === 'failed'
}

export const POLL_MS = 2_000
const MAX_BACKOFF_MS = 30_000
const MAX_UNKNOWN_MS = 60_000

/**
 * Every 2 s while running; doubling after consecutive failures (capped); never once it has ended.
 * A status the dashboard does not know doubles the wait every 5 answers (up to a minute), so a
 * service's own terminal word ("archived", say) does not keep a tab polling every 2 s forever.
 */
export function pollInterval(status: string | null | undefined, consecutiveFailures: number, answers = 0): number | false {
  if (status !== undefined && isTerminal(status)) return false
  if (consecutiveFailures > 0) return Math.min(MAX_BACKOFF_MS, POLL_MS * 2 ** consecutiveFailures)
  if (status !== undefined && !isKnownStatus(status)) return Math.min(MAX_UNKNOWN_MS, POLL_MS * 2 ** Math.floor(answers / 5))
  return POLL_MS
}

/** 0–100 from `progress`, or from processed/lead counts when progress is missing; 100 once completed. */
export function progressPercent(s: {
  status: string
  progress?: number | null
  processed_count?: number | null
  lead_count?: number | null
}): number {
  if (exportPhase(s.status) === 'completed') return 100
  if (typeof s.progress === 'number' && Number.isFinite(s.progress)) return Math.max(0, Math.min(100, Math.round(s.progress)))
  if (s.lead_count && s.processed_count) return Math.max(0, Math.min(100, Math.round((100 * s.processed_count) / s.lead_count)))
  return 0
}
