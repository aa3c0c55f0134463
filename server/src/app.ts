import { RESPONSE_ALREADY_SENT } from '@hono/node-server/utils/response'
import { bodyLimit } from 'hono/body-limit'
import type { Context } from 'hono'
import { HTTPException } from 'hono/http-exception'
import type { AppEnv, Deps } from './app-env.ts'
import { describeError, HttpError, sqlState } from './lib/errors.ts'
import type { ErrorCode } from './lib/error-codes.ts'
import { rateLimit } from './lib/rate-limit.ts'
import { openApiApp } from './lib/openapi-app.ts'
import { apiModules } from './routes/index.ts'
import { isListUpload } from './modules/lists/limits.ts'
import { jsonAnswer, NEVER_COMPRESSED } from './lib/json-answer.ts'
import { interfaceProfile } from './interface-profile.ts'
import { serveDashboard } from './static.ts'
import { serveOpenApiDocument } from './openapi.ts'

export const MAX_BODY_BYTES = 1024 * 1024

/** The `code` of an error body that names none of its own (lib/errors.ts). */
/** The code of an HTTPException (thrown by middleware, e.g. malformed JSON), by status. */
const STATUS_CODES: Partial<Record<number, ErrorCode>> = {
  400: 'bad_request',
  401: 'not_authenticated',
  403: 'forbidden',
  404: 'not_found',
  409: 'conflict',
  410: 'link_expired',
  413: 'body_too_large',
  415: 'unsupported_media_type',
  429: 'throttled',
  503: 'unavailable',
}

export function createApp(deps: Deps) {
  const app = openApiApp()

  app.use('*', async (c, next) => {
    c.set('deps', deps)
    await next()
    // a request whose body did not arrive in time was answered 408 beside the app (lib/body-deadline.ts):
    // the handler's own answer, which follows, is not written (@hono/node-server's marker)
    if ((c.env as { outgoing?: { headersSent: boolean } } | undefined)?.outgoing?.headersSent) c.res = RESPONSE_ALREADY_SENT
  })
  // Every API answer: never cached by a browser or proxy (they carry account data), never sniffed.
  // Set on the answer's own headers: `c.header()` after the handler would rebuild the answer around
  // a web stream of its body (Hono), the slow path for every request.
  app.use('/api/*', async (c, next) => {
    await next()
    const headers = c.res.headers
    if (!headers.has('Cache-Control')) headers.set('Cache-Control', 'no-store')
    headers.set('X-Content-Type-Options', 'nosniff')
  })
  // JSON answers of 1 KB or more gzip-compressed when the client accepts it (a 100-row preview
  // shrinks ≈ 10×). Only JSON: export files keep their Content-Length (download progress) and an
  // XLSX file is a zip already.
  // Never the answers that carry a secret (tokens, a new API key, a webhook signing secret): compressed secrets beside text an
  // attacker can put into the same answer leak through the compressed size (BREACH).
  app.use('/api/*', async (c, next) => {
    c.json = jsonAnswer(c, !NEVER_COMPRESSED.test(c.req.path))
    await next()
  })
  // 413 from Content-Length before anything touches the body: reading it would make
  // @hono/node-server wrap it in a paused stream and destroy the socket 500 ms after the answer,
  // breaking the client's next request on that keep-alive connection. `Connection: close` ends the
  // connection cleanly instead (the client's unsent body is not read). A chunked body without a
  // length is counted as it arrives and cut off at the limit the same way.
  const tooLarge = (c: Context<AppEnv>) =>
    c.json({ detail: 'Request body is larger than 1 MB.', code: 'body_too_large' }, 413, { Connection: 'close' })
  const chunkedLimit = bodyLimit({ maxSize: MAX_BODY_BYTES, onError: tooLarge })
  app.use('/api/*', async (c, next) => {
    // a list's file (up to 50 MB) streams to disk under the upload's own limit (modules/lists/upload.ts)
    if (isListUpload(c.req.method, c.req.path)) return next()
    const length = c.req.header('content-length')
    if (length !== undefined) {
      const n = Number(length)
      if (!Number.isFinite(n) || n < 0)
        return c.json({ detail: 'Invalid Content-Length.', code: 'bad_request' }, 400, { Connection: 'close' })
      if (n > MAX_BODY_BYTES) return tooLarge(c)
      return next()
    }
    // no length and no Transfer-Encoding: no body at all (RFC 9112 6.3), nothing to count
    if (c.req.header('transfer-encoding') === undefined) return next()
    return chunkedLimit(c, next)
  })

  // The documents anyone may fetch cost CPU (the schema ≈ 50 ms to build): a budget per address.
  const publicLimit = rateLimit((config) => config.limits.public)
  app.use('/api/*', async (c, next) => {
    if (/^\/api\/(plans|schema)\/?$/.test(c.req.path)) return publicLimit(c, next)
    await next()
  })

  // SERVICE_PROFILE=interface: what the interface promises and nothing more, in one layer in front of
  // every route (after the body limit, whose bodies it reads; after the compression, which it replaces)
  if (deps.config.serviceProfile === 'interface') app.use('/api/*', interfaceProfile(app))

  // each module's routes, copied into this app's router and OpenAPI registry (routes/index.ts)
  for (const module of apiModules(deps.config)) app.route('/', module)

  serveOpenApiDocument(app)

  app.notFound((c) => {
    if (c.req.path.startsWith('/api/')) return c.json({ detail: 'Not found.', code: 'not_found' }, 404)
    return serveDashboard(c, deps.config.distDir)
  })

  app.onError((err, c) => {
    if (err instanceof HttpError) {
      for (const [k, v] of Object.entries(err.headers)) c.header(k, v)
      return c.json(err.body, err.status)
    }
    if (err instanceof HTTPException) {
      // e.g. malformed JSON from the body validator
      return c.json({ detail: err.message || 'Bad request.', code: STATUS_CODES[err.status] ?? 'server_error' }, err.status)
    }
    const code = sqlState(err)
    if (code === '22021' || code === '22P05') {
      // Backstop for schemas.ts's NUL check: text PostgreSQL cannot store is the caller's input, not our fault.
      return c.json({ detail: 'The request contains characters that cannot be stored (such as U+0000).', code: 'invalid_characters' }, 400)
    }
    // Never the error object: database errors carry the query's params (secrets included).
    console.error(`[${c.req.method} ${c.req.path}] ${describeError(err)}`)
    return c.json({ detail: 'Internal server error.', code: 'server_error' }, 500)
  })

  return app
}

export type App = ReturnType<typeof createApp>
