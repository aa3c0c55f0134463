import { describe, expect, it } from 'vitest'
import { fakeDelivery } from '@/testing/webhook-handlers'
import { AFTER_TEST_MS, nextPollMs, POLL_WINDOW_MS, type Delivery } from './get-deliveries'

const now = Date.parse('2026-03-02T10:00:00.000Z')
const armed = { armedAt: now - 1_000, testSentAt: null }
const d = (over: Partial<Delivery>): Delivery => fakeDelivery(over)

describe('nextPollMs: the deliveries are polled only while something is under way, and never for ever', () => {
  it('stops once every delivery has settled, or when there are none', () => {
    expect(nextPollMs([d({ status: 'succeeded' }), d({ status: 'failed' })], now, armed)).toBe(false)
    expect(nextPollMs([], now, armed)).toBe(false)
    expect(nextPollMs(undefined, now, armed)).toBe(false)
  })

  it('polls often while one is being sent or is due now', () => {
    expect(nextPollMs([d({ status: 'delivering' })], now, armed)).toBe(2_000)
    expect(nextPollMs([d({ status: 'pending', attempts: 0, next_attempt_at: new Date(now).toISOString() })], now, armed)).toBe(2_000)
  })

  it('waits for the next try of a retry, at most a minute between looks', () => {
    const in20s = d({ status: 'pending', attempts: 1, next_attempt_at: new Date(now + 20_000).toISOString() })
    expect(nextPollMs([in20s], now, armed)).toBe(21_000)
    const in2h = d({ status: 'pending', attempts: 4, next_attempt_at: new Date(now + 2 * 3600_000).toISOString() })
    expect(nextPollMs([in2h, in20s], now, armed)).toBe(21_000)
    expect(nextPollMs([in2h], now, armed)).toBe(60_000)
  })

  it('polls for a few seconds after a test was sent, even before its delivery is listed', () => {
    const sent = { armedAt: now - 1_000, testSentAt: now - 1_000 }
    expect(nextPollMs([], now, sent)).toBe(2_000)
    expect(nextPollMs([], now + AFTER_TEST_MS, sent)).toBe(false)
  })

  it('stops after the poll window, whatever is pending (a later test or Refresh arms it again)', () => {
    const pending = [d({ status: 'delivering' })]
    expect(nextPollMs(pending, now + POLL_WINDOW_MS - 2_000, armed)).toBe(2_000)
    expect(nextPollMs(pending, now + POLL_WINDOW_MS, armed)).toBe(false)
  })
})
