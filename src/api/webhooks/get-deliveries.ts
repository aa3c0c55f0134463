import { queryOptions } from '@tanstack/react-query'
import { z } from 'zod/mini'
import { api } from '@/lib/api-client'
import { webhookKeys } from './keys'

const attemptSchema = z.object({
  at: z.string(),
  attempt: z.number(),
  status_code: z.nullable(z.number()),
  /** What went wrong as a category (`timeout`, `tls_failed`…), translated on the page; `error` is its English. */
  error_code: z.nullish(z.string()),
  error: z.nullable(z.string()),
  duration_ms: z.number(),
})

export const deliverySchema = z.object({
  id: z.number(),
  event_id: z.string(),
  event_type: z.string(),
  status: z.enum(['pending', 'delivering', 'succeeded', 'failed']),
  attempts: z.number(),
  last_status_code: z.nullable(z.number()),
  last_error_code: z.nullish(z.string()),
  last_error: z.nullable(z.string()),
  last_attempt_at: z.nullable(z.string()),
  /** When the next try is due (pending only). */
  next_attempt_at: z.nullable(z.string()),
  created_at: z.string(),
  attempt_log: z._default(z.array(attemptSchema), []),
})
export type Delivery = z.infer<typeof deliverySchema>

/** The deliveries the page shows per endpoint, newest first. */
export const DELIVERIES_SHOWN = 10

export function getDeliveries(id: string, { signal }: { signal?: AbortSignal } = {}) {
  return api(`/api/user/webhooks/${encodeURIComponent(id)}/deliveries/`, {
    query: { limit: DELIVERIES_SHOWN },
    schema: z.array(deliverySchema),
    signal,
  })
}

/** Polled this long at most after it was last armed (the page opened, a test was sent, "Refresh"). */
export const POLL_WINDOW_MS = 10 * 60_000
/** Polled at least this long after a test was sent, whatever the list says. */
export const AFTER_TEST_MS = 15_000
const FAST_MS = 2_000
const SLOWEST_MS = 60_000

/**
 * When to look again, or false to stop: often while a delivery is being sent (or right after a test
 * was sent), at its next try while one waits for a retry, never once every delivery has settled. And
 * never past the poll window, so a page left open does not poll for ever (a retry hours away shows
 * its time, and "Refresh" or a test arms the window again).
 */
export function nextPollMs(
  deliveries: readonly Delivery[] | undefined,
  now: number,
  poll: { armedAt: number; testSentAt: number | null },
): number | false {
  if (now - poll.armedAt > POLL_WINDOW_MS) return false
  if (poll.testSentAt !== null && now - poll.testSentAt < AFTER_TEST_MS) return FAST_MS
  if (!deliveries) return false
  if (deliveries.some((d) => d.status === 'delivering')) return FAST_MS
  const dues = deliveries
    .filter((d) => d.status === 'pending')
    .map((d) => (d.next_attempt_at ? new Date(d.next_attempt_at).getTime() : now))
  if (!dues.length) return false
  const wait = Math.min(...dues) - now + 1_000
  return Math.min(SLOWEST_MS, Math.max(FAST_MS, wait))
}

export const deliveriesOptions = (
  id: string,
  poll: { armedAt: number; testSentAt: number | null } = { armedAt: Date.now(), testSentAt: null },
) =>
  queryOptions({
    queryKey: webhookKeys.deliveries(id),
    queryFn: ({ signal }) => getDeliveries(id, { signal }),
    refetchInterval: (q) => nextPollMs(q.state.data, Date.now(), poll),
  })
