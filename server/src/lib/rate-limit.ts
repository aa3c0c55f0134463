import type { MiddlewareHandler } from 'hono'
import type { AppEnv } from '../app-env.ts'
import { HttpError } from './errors.ts'

/**
 * Fixed one-minute window per credential (decisions.md: RATE_LIMIT_PER_MINUTE, default 600).
 * Runs after requireAuth; unauthenticated routes are counted by client address.
 */
export function rateLimit(): MiddlewareHandler<AppEnv> {
  const windows = new Map<string, { start: number; count: number }>()
  return async (c, next) => {
    const { clock, config } = c.var.deps
    const who = c.get('credential') ?? `ip:${c.req.header('x-forwarded-for') ?? 'local'}`
    const now = clock.now().getTime()
    let w = windows.get(who)
    if (!w || now - w.start >= 60_000) {
      w = { start: now, count: 0 }
      windows.set(who, w)
      if (windows.size > 10_000) for (const [k, v] of windows) if (now - v.start >= 60_000) windows.delete(k)
    }
    w.count += 1
    if (w.count > config.rateLimitPerMinute) {
      const retryAfter = Math.max(1, Math.ceil((w.start + 60_000 - now) / 1000))
      throw new HttpError(429, { detail: `Request was throttled. Expected available in ${retryAfter} seconds.` }, {
        'Retry-After': String(retryAfter),
      })
    }
    await next()
  }
}
