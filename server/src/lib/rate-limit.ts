import type { Context, MiddlewareHandler } from 'hono'
import { getConnInfo } from '@hono/node-server/conninfo'
import type { AppEnv, Deps } from '../app-env.ts'
import type { Config } from '../config.ts'
import { HttpError } from './errors.ts'

/** The client's socket address (not X-Forwarded-For, which any client could set to dodge the limit). */
export function clientAddress(c: Context<AppEnv>): string {
  try {
    return getConnInfo(c).remote.address ?? 'unknown'
  } catch {
    return 'unknown' // not served by @hono/node-server (app.request in a unit test)
  }
}

export function throttled(retryAfter: number, detail = `Request was throttled. Expected available in ${retryAfter} seconds.`) {
  return new HttpError(429, { detail, code: 'throttled', retry_after: retryAfter }, { 'Retry-After': String(retryAfter) })
}

/**
 * Fixed one-minute windows, one set per budget and per running service (tests run several services
 * in one process, each with its own clock). In memory: with several instances each counts its own
 * share, so N instances allow up to N × the limit per minute; the sign-in back-off that must hold
 * across instances lives in the database instead (lib/backoff.ts, login_failures).
 */
export class WindowCounter {
  private readonly perService = new WeakMap<object, Map<string, { start: number; count: number }>>()

  /** Counts one hit for `key`; the seconds to wait when it is over `limit`, else 0. */
  hit(deps: Deps, key: string, limit: number): number {
    let windows = this.perService.get(deps)
    if (!windows) {
      windows = new Map()
      this.perService.set(deps, windows)
    }
    const now = deps.clock.now().getTime()
    let w = windows.get(key)
    if (!w || now - w.start >= 60_000 || now < w.start) {
      w = { start: now, count: 0 }
      windows.set(key, w)
      if (windows.size > 10_000) for (const [k, v] of windows) if (now - v.start >= 60_000) windows.delete(k)
    }
    w.count += 1
    return w.count > limit ? Math.max(1, Math.ceil((w.start + 60_000 - now) / 1000)) : 0
  }

  /** Whether `key` is already over `limit` in its current window (counts nothing). */
  over(deps: Deps, key: string, limit: number): number {
    const w = this.perService.get(deps)?.get(key)
    const now = deps.clock.now().getTime()
    if (!w || now - w.start >= 60_000 || now < w.start || w.count < limit) return 0
    return Math.max(1, Math.ceil((w.start + 60_000 - now) / 1000))
  }
}

/**
 * A per-minute budget (decisions.md: RATE_LIMIT_PER_MINUTE, default 600, for the API). Behind
 * requireAuth it counts per ACCOUNT: every key and token of one account share one budget, so making
 * more keys buys no more requests. Without a signed-in caller (sign-in, sign-up, reset, public
 * documents, signed file links) it counts per client address. Each call makes its own budget, so
 * e.g. a flood of reset requests cannot use up the address's sign-in budget.
 */
export function rateLimit(limit: (config: Config) => number = (config) => config.rateLimitPerMinute): MiddlewareHandler<AppEnv> {
  const counter = new WindowCounter()
  return async (c, next) => {
    const user = c.get('user')
    const who = user ? `user:${user.id}` : `ip:${clientAddress(c)}`
    const deps = c.get('deps') // not c.var: Hono builds a new object of every variable on each c.var
    const wait = counter.hit(deps, who, limit(deps.config))
    if (wait) throw throttled(wait)
    await next()
  }
}

/**
 * Failed authentications per client address (wrong or revoked keys and tokens, malformed headers):
 * they never reach an account's budget, so they get their own; past it, the address gets 429 before
 * any credential is checked.
 */
export const failedAuth = new WindowCounter()
