import type { MiddlewareHandler } from 'hono'
import { getConnInfo } from '@hono/node-server/conninfo'
import type { AppEnv } from '../app-env.ts'
import { HttpError } from './errors.ts'

/** The client's socket address (not X-Forwarded-For, which any client could set to dodge the limit). */
function clientAddress(c: Parameters<MiddlewareHandler<AppEnv>>[0]): string {
  try {
    return getConnInfo(c).remote.address ?? 'unknown'
  } catch {
    return 'unknown' // not served by @hono/node-server (app.request in a unit test)
  }
}

/**
 * Fixed one-minute window per credential (decisions.md: RATE_LIMIT_PER_MINUTE, default 600).
 * Runs after requireAuth; unauthenticated routes (login, sign-up, password reset, signed file
 * links) are counted by client address. Each call makes its own set of counters, so e.g. the auth
 * routes share one budget per address that the API's budget does not touch.
 */
export function rateLimit(): MiddlewareHandler<AppEnv> {
  // Counters per running service (tests run several in one process, each with its own clock and limit).
  const perService = new WeakMap<object, Map<string, { start: number; count: number }>>()
  return async (c, next) => {
    const { clock, config } = c.var.deps
    let windows = perService.get(c.var.deps)
    if (!windows) {
      windows = new Map()
      perService.set(c.var.deps, windows)
    }
    const who = c.get('credential') ?? `ip:${clientAddress(c)}`
    const now = clock.now().getTime()
    let w = windows.get(who)
    if (!w || now - w.start >= 60_000 || now < w.start) {
      w = { start: now, count: 0 }
      windows.set(who, w)
      if (windows.size > 10_000) for (const [k, v] of windows) if (now - v.start >= 60_000) windows.delete(k)
    }
    w.count += 1
    if (w.count > config.rateLimitPerMinute) {
      const retryAfter = Math.max(1, Math.ceil((w.start + 60_000 - now) / 1000))
      throw new HttpError(429, { detail: `Request was throttled. Expected available in ${retryAfter} seconds.`, code: 'throttled', retry_after: retryAfter }, {
        'Retry-After': String(retryAfter),
      })
    }
    await next()
  }
}
