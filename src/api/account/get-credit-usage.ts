import { queryOptions } from '@tanstack/react-query'
import { z } from 'zod/mini'
import { api, ApiError } from '@/lib/api-client'
import { readLocalExports } from '@/lib/local-exports'
import { accountKeys } from './keys'

const usagePageSchema = z.object({
  count: z.number().check(z.int()),
  next: z.nullish(z.string()),
  results: z.array(
    z.object({
      created_at: z.string(),
      credits_charged: z.pipe(
        z.nullish(z.number()),
        z.transform((v) => v ?? 0),
      ),
      // extension scoped_api_keys: the key that started the export (absent or null: the dashboard)
      api_key: z.nullish(z.object({ token_key: z.string() })),
    }),
  ),
})

const PAGE_SIZE = 100
/** Enough for any realistic quarter; the chart says what it covers. */
const MAX_PAGES = 20

export interface WeekUsage {
  /** Monday 00:00 local time of the week. */
  start: Date
  credits: number
  /** The same credits by what started the exports: an API key's prefix, or '' for a signed-in session. */
  bySource: Record<string, number>
}

type UsageEntry = { created_at: string; credits_charged: number; api_key?: { token_key: string } | null }

/** Monday 00:00 (local) of the week holding `d`. */
export function startOfWeek(d: Date): Date {
  const s = new Date(d.getFullYear(), d.getMonth(), d.getDate())
  const mondayOffset = (s.getDay() + 6) % 7
  s.setDate(s.getDate() - mondayOffset)
  return s
}

/** Sums credits charged per week over the last `weeks` weeks (oldest first), empty weeks included. */
export function bucketByWeek(entries: UsageEntry[], weeks: number, now: Date): WeekUsage[] {
  const current = startOfWeek(now)
  const buckets: WeekUsage[] = []
  for (let i = weeks - 1; i >= 0; i--) {
    const start = new Date(current)
    start.setDate(current.getDate() - i * 7)
    buckets.push({ start, credits: 0, bySource: {} })
  }
  const first = buckets[0]!.start.getTime()
  for (const e of entries) {
    const at = new Date(e.created_at)
    if (Number.isNaN(at.getTime()) || at.getTime() < first) continue
    const wk = startOfWeek(at).getTime()
    const bucket = buckets.find((b) => b.start.getTime() === wk)
    if (!bucket) continue
    bucket.credits += e.credits_charged
    const source = e.api_key?.token_key ?? ''
    bucket.bySource[source] = (bucket.bySource[source] ?? 0) + e.credits_charged
  }
  return buckets
}

/**
 * Pages through the history (newest first) until it is older than the window. The window ends at
 * the later of our clock and the newest export, so a service clock ahead of the browser's (clock
 * skew, or a test clock) does not push recent spending out of the chart.
 */
export async function getWeeklyUsage(
  weeks: number,
  { signal, now = new Date(), account }: { signal?: AbortSignal; now?: Date; account?: string | undefined } = {},
): Promise<{ weeks: WeekUsage[]; source: 'service' | 'browser' }> {
  const entries: UsageEntry[] = []
  let anchor = now
  let from: Date | null = null
  for (let page = 1; page <= MAX_PAGES; page++) {
    let data: z.output<typeof usagePageSchema>
    try {
      data = await api('/api/user/search-history/', {
        query: { page, page_size: PAGE_SIZE },
        schema: usagePageSchema,
        signal,
      })
    } catch (e) {
      // no list at this service (the interface has none): what this browser started, said as such
      if (page === 1 && account !== undefined && e instanceof ApiError && e.status === 404) {
        const local = readLocalExports(account).map((x) => ({ created_at: x.created_at, credits_charged: x.credits_charged ?? 0 }))
        return { weeks: bucketByWeek(local, weeks, now), source: 'browser' }
      }
      throw e
    }
    entries.push(...data.results)
    if (!from) {
      const newest = data.results[0] ? new Date(data.results[0].created_at) : null
      if (newest && !Number.isNaN(newest.getTime()) && newest > anchor) anchor = newest
      from = startOfWeek(anchor)
      from.setDate(from.getDate() - (weeks - 1) * 7)
    }
    const oldest = data.results.at(-1)
    if (!data.next || !oldest || new Date(oldest.created_at).getTime() < from.getTime()) break
  }
  return { weeks: bucketByWeek(entries, weeks, anchor), source: 'service' }
}

export const weeklyUsageOptions = (weeks: number, account: string | undefined) =>
  queryOptions({
    queryKey: accountKeys.weeklyUsage(weeks, account),
    queryFn: ({ signal }) => getWeeklyUsage(weeks, { signal, account }),
  })
