import type { MiddlewareHandler } from 'hono'
import type { AppEnv } from '../../app-env.ts'
import { requireAuth } from './credentials.ts'
import { rateLimit } from '../../lib/rate-limit.ts'

/**
 * Middleware for every protected route: `createRoute({ ..., middleware: authed, security })`.
 * Typed as mutable arrays: createRoute does not accept readonly tuples.
 */
export const authed: MiddlewareHandler<AppEnv>[] = [requireAuth, rateLimit()]
export const security: Record<string, string[]>[] = [{ bearer: [] }, { token: [] }]
