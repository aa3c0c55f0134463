/**
 * The export's life as the dashboard understands it. decisions.md: statuses come in any letter
 * case (COMPLETED / completed), and an unknown status means "still running", never a crash.
 */
export type ExportPhase = 'pending' | 'running' | 'completed' | 'failed'

export function exportPhase(status: string | null | undefined): ExportPhase {
  switch ((status ?? '').trim().toUpperCase()) {
    case 'PENDING':
    case 'QUEUED':
      return 'pending'
    case 'COMPLETED':
    case 'COMPLETE':
      return 'completed'
    case 'FAILED':
      return 'failed'
    default:
      return 'running'
  }
}

export const isTerminal = (status: string | null | undefined) => {
  const phase = exportPhase(status)
  return phase === 'completed' || phase === 'failed'
}

export const POLL_MS = 2_000
const MAX_BACKOFF_MS = 30_000

/** Every 2 s while running; doubling after consecutive failures (capped); never once it has ended. */
export function pollInterval(status: string | null | undefined, consecutiveFailures: number): number | false {
  if (status !== undefined && isTerminal(status)) return false
  if (consecutiveFailures <= 0) return POLL_MS
  return Math.min(MAX_BACKOFF_MS, POLL_MS * 2 ** consecutiveFailures)
}

/** 0–100 from `progress`, or from processed/lead counts when progress is missing; 100 once completed. */
export function progressPercent(s: { status: string; progress?: number | null; processed_count?: number | null; lead_count?: number | null }): number {
  if (exportPhase(s.status) === 'completed') return 100
  if (typeof s.progress === 'number' && Number.isFinite(s.progress)) return Math.max(0, Math.min(100, Math.round(s.progress)))
  if (s.lead_count && s.processed_count) return Math.max(0, Math.min(100, Math.round((100 * s.processed_count) / s.lead_count)))
  return 0
}
