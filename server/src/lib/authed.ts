import { requireAuth } from './auth.ts'
import { rateLimit } from './rate-limit.ts'

/** Middleware for every protected route: `createRoute({ ..., middleware: authed, security })`. */
export const authed = [requireAuth, rateLimit()] as const
export const security = [{ bearer: [] }, { token: [] }]
