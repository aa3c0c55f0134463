import { describe, expect, it } from 'vitest'
import { exportPhase, isTerminal, pollInterval, progressPercent } from './export-status'

describe('exportPhase', () => {
  it.each([
    ['PENDING', 'pending'],
    ['pending', 'pending'],
    ['PROCESSING', 'running'],
    ['processing', 'running'],
    ['COMPLETED', 'completed'],
    ['completed', 'completed'],
    ['Completed', 'completed'],
    ['FAILED', 'failed'],
    ['failed', 'failed'],
    ['QUEUED_FOR_GPU', 'running'],
    ['COMPLETE', 'completed'],
    ['done', 'completed'],
    ['error', 'failed'],
    ['Cancelled', 'failed'],
    ['in progress', 'running'],
    ['', 'running'],
    [null, 'running'],
  ] as const)('%s → %s', (status, phase) => {
    expect(exportPhase(status)).toBe(phase)
  })

  it('only completed and failed end the polling', () => {
    expect(isTerminal('completed')).toBe(true)
    expect(isTerminal('FAILED')).toBe(true)
    expect(isTerminal('something-new')).toBe(false)
    expect(pollInterval('COMPLETED', 0)).toBe(false)
    expect(pollInterval('PROCESSING', 0)).toBe(2000)
    expect(pollInterval(undefined, 0)).toBe(2000)
  })

  it('backs off after failed polls, capped at 30 s', () => {
    expect(pollInterval('PROCESSING', 1)).toBe(4000)
    expect(pollInterval('PROCESSING', 2)).toBe(8000)
    expect(pollInterval('PROCESSING', 10)).toBe(30000)
  })

  it('polls a status it does not know ever more slowly, up to a minute', () => {
    expect(pollInterval('archived', 0, 0)).toBe(2000)
    expect(pollInterval('archived', 0, 5)).toBe(4000)
    expect(pollInterval('archived', 0, 15)).toBe(16000)
    expect(pollInterval('archived', 0, 100)).toBe(60000)
    // a known running status keeps its 2 s however long it runs
    expect(pollInterval('PROCESSING', 0, 100)).toBe(2000)
  })

  it('computes progress from progress, or from counts, and 100 when done', () => {
    expect(progressPercent({ status: 'PROCESSING', progress: 42.4 })).toBe(42)
    expect(progressPercent({ status: 'PROCESSING', progress: null, processed_count: 25, lead_count: 100 })).toBe(25)
    expect(progressPercent({ status: 'completed', progress: 10 })).toBe(100)
    expect(progressPercent({ status: 'PENDING' })).toBe(0)
  })
})
