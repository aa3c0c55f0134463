import type { OpenAPIHono } from '@hono/zod-openapi'
import type { Context, MiddlewareHandler } from 'hono'
import { matchedRoutes } from 'hono/route'
import type { AppEnv } from './app-env.ts'
import { prepared } from './db/db.ts'
import { requireAuth } from './modules/auth/credentials.ts'
import { HttpError } from './lib/errors.ts'
import { jsonAnswer, NEVER_COMPRESSED } from './lib/json-answer.ts'
import { INT32_MAX } from './lib/schemas.ts'

/**
 * SERVICE_PROFILE=interface (issue 20): the reference service answering exactly what
 * lead-data-service-interface.md promises and nothing more, so that the dashboard can be tested
 * against "the real service's interface as written". One layer in front of the routes, which stay
 * as they are:
 *
 * - the extensions are gone: every route documented with `x-extension` (read from the OpenAPI
 *   registry), the history list and entry, and /api/schema/ (which describes the reference) → 404;
 * - ids are opaque strings (`"s-123"`) both ways; a bare number in a request is refused;
 * - the request's own search_id names the export: a preview's id addresses the newest export the
 *   calling account started from that search (status, download, retry, download-delta);
 * - answers are cut to the fields the interface lists, typed the way it allows (decimal strings,
 *   a paginated list, no body), and not enough credits is a 402 with only `detail`.
 *
 * A request that needs translating (an id in its path, a body to check) is authenticated here first,
 * then handed to the reference routes as a new internal request with numeric ids; those routes
 * authenticate, rate-limit and scope it to the caller again, so this layer never widens access.
 */

type Ctx = Context<AppEnv>
type Json = unknown
type JsonObject = Record<string, unknown>

/** An answer as seen here: `body` undefined means none at all. */
interface Answer {
  status: number
  body: Json | undefined
}

/** What a translated request tells the layer that shapes its answer. */
interface Note {
  dryRun?: boolean
}

interface Endpoint {
  /**
   * Runs after the caller is authenticated, before the reference: answers itself (a refusal), asks
   * for the request to be forwarded in the reference's terms, or lets it through unchanged.
   */
  request?: (c: Ctx, route: Route) => Promise<Response | Forward | undefined>
  /** The reference's answer → the interface's; undefined keeps the default (errors cut to `detail`). */
  answer?: (a: Answer, note: Note) => Answer | undefined
}

/** The reference route that answers: its path as the router writes it (`/api/x/:id`) and its parameters. */
interface Route {
  path: string
  params: Record<string, string>
}

interface Forward {
  forward: { path?: string; body?: string; note?: Note }
}

// ---- ids ----

const OPAQUE_ID = /^s-([1-9]\d{0,9})$/

/** How a search id leaves the service. */
export const opaqueId = (id: unknown): unknown => (typeof id === 'number' ? `s-${id}` : id)

/** A search id as a client sends it back, or null when it is not one this profile hands out (a bare number included). */
export function parseOpaqueId(value: unknown): number | null {
  if (typeof value !== 'string') return null
  const m = OPAQUE_ID.exec(value)
  if (!m) return null
  const n = Number(m[1])
  return n <= INT32_MAX ? n : null
}

/**
 * The export an id addresses for the caller: an export of theirs is itself; a preview of theirs is
 * the newest export they started from it (not a fresh-data export of one: those are addressed by the
 * id download-delta answered). Another account's search, or a preview never exported: none.
 */
const EXPORT_OF = prepared(
  `SELECT CASE WHEN s.kind = 'export' THEN s.id ELSE (
            SELECT e.id FROM searches e
             WHERE e.user_id = $2 AND e.kind = 'export' AND e.source_search_id = s.id AND e.delta_of IS NULL
             ORDER BY e.created_at DESC, e.id DESC LIMIT 1) END AS export_id
     FROM searches s
    WHERE s.id = $1 AND s.user_id = $2`,
)

async function exportOf(c: Ctx, raw: string | undefined): Promise<number | null> {
  const id = parseOpaqueId(raw)
  if (id === null) return null
  const { rows } = await c.var.deps.db.query<{ export_id: number | null }>(EXPORT_OF, [id, c.var.user.id])
  return rows[0]?.export_id ?? null
}

// ---- shapes ----

const isObject = (v: unknown): v is JsonObject => typeof v === 'object' && v !== null && !Array.isArray(v)

function pick(o: Json, keys: readonly string[]): JsonObject {
  if (!isObject(o)) return {}
  const out: JsonObject = {}
  for (const k of keys) if (k in o) out[k] = o[k]
  return out
}

// interface 2.1–2.7
const USER_FIELDS = [
  'id',
  'email',
  'first_name',
  'last_name',
  'subscription_plan',
  'total_credits',
  'remaining_credits',
  'purchased_credits_available',
  'purchased_credits_expiring_soon',
  'current_period_start',
  'current_period_end',
  'can_download_fresh_exports',
  'preferred_language',
] as const
const PLAN_FIELDS = [
  'plan_type',
  'monthly_credits',
  'price_per_month',
  'link_expiration_days',
  'product_id',
  'price_id',
  'is_active',
  'is_sellable',
  'allows_fresh_exports',
  'created_at',
  'updated_at',
] as const
const LOGIN_USER_FIELDS = ['id', 'email', 'first_name', 'last_name', 'remaining_credits', 'subscription_plan'] as const
const API_KEY_FIELDS = ['id', 'token_key', 'created', 'expiry'] as const
const DESCRIPTOR_FIELDS = ['download_url', 'filename', 'file_size_bytes', 'file_size_mb', 'expires_at'] as const
const DELTA_FIELDS = [
  'status',
  'validation_code',
  'search_id',
  'lead_count',
  'required_credits',
  'available_credits',
  'freshness',
  'freshness_checked_at',
] as const
const LEVEL2_FIELDS = ['id', 'name', 'code', 'level1_id', 'level1_name'] as const
const CITY_FIELDS = ['id', 'name', 'code'] as const
/** decisions.md's reference shape of an export request; `skip_owned`, `columns`, `file_locale` are extensions. */
const EXPORT_REQUEST_FIELDS = new Set(['search_id', 'export_format', 'max_leads'])

const user = (u: Json): JsonObject => {
  const out = pick(u, USER_FIELDS)
  if (isObject(out.subscription_plan)) out.subscription_plan = pick(out.subscription_plan, PLAN_FIELDS)
  return out
}

/** The login's smaller user (interface 2.1, last paragraph): `id` a string, the plan by its name. */
const loginUser = (u: Json): JsonObject => {
  const out = pick(u, LOGIN_USER_FIELDS)
  if (typeof out.id === 'number') out.id = String(out.id)
  if (isObject(out.subscription_plan)) out.subscription_plan = out.subscription_plan.plan_type
  return out
}

/** How Django REST Framework writes a DecimalField with two places: "4.50". */
const decimalString = (v: unknown) => (typeof v === 'number' ? v.toFixed(2) : v)

const isInsufficientCredits = (body: Json) =>
  isObject(body) && (body.validation_code === 'insufficient_credits' || body.code === 'insufficient_credits')

/**
 * Error bodies as part 7 and decisions.md write them: `detail`, the per-field `errors` of a 400, and
 * `code` only where part 7 names one (`token_not_valid`). The machine codes are an extension.
 */
function interfaceError(status: number, body: Json): Json {
  if (!isObject(body) || typeof body.detail !== 'string') return body
  return {
    detail: body.detail,
    ...(status === 400 && isObject(body.errors) ? { errors: body.errors } : {}),
    ...(status === 401 && body.code === 'token_not_valid' ? { code: body.code } : {}),
  }
}

const ok = (a: Answer) => a.status >= 200 && a.status < 300

/** A request that names its search: the export it addresses, forwarded in the reference's terms. */
async function byExportId(c: Ctx, route: Route): Promise<Response | Forward> {
  const exportId = await exportOf(c, route.params.search_id)
  if (exportId === null) return notFoundAnswer(c)
  const path = route.path.replace(':search_id', String(exportId)) + (c.req.path.endsWith('/') ? '/' : '')
  if (c.req.method === 'GET' || c.req.method === 'HEAD') return { forward: { path } }
  const body = await c.req.text()
  const json = parseJson(body)
  return { forward: { path, body, note: { dryRun: isObject(json) && json.dry_run === true } } }
}

function parseJson(text: string): Json | undefined {
  try {
    return JSON.parse(text) as Json
  } catch {
    return undefined
  }
}

const unknownFieldErrors = (body: JsonObject, allowed: (k: string) => boolean): Record<string, string[]> => {
  const errors: Record<string, string[]> = {}
  for (const k of Object.keys(body)) if (!allowed(k)) errors[k] = ['This field is not part of this service.']
  return errors
}

/** By the reference route that answers, as the OpenAPI registry writes it (`GET /api/download-status/{search_id}`). */
const ENDPOINTS: Record<string, Endpoint> = {
  'GET /api/companies': {
    // decisions.md's facts: totalCount, a search_id and the sample rows
    answer: (a) =>
      ok(a) && isObject(a.body)
        ? {
            status: a.status,
            body: {
              totalCount: a.body.totalCount,
              search_id: opaqueId(a.body.search_id),
              results: Array.isArray(a.body.results)
                ? a.body.results.map((r: Json) => (isObject(r) ? { ...r, rating: decimalString(r.rating) } : r))
                : a.body.results,
            },
          }
        : undefined,
  },
  'POST /api/download-csv': {
    request: async (c) => {
      const text = await c.req.text()
      const body = parseJson(text)
      // not a JSON object: the reference refuses it in its own words
      if (!isObject(body)) return undefined
      const errors = unknownFieldErrors(body, (k) => EXPORT_REQUEST_FIELDS.has(k))
      const searchId = 'search_id' in body ? parseOpaqueId(body.search_id) : undefined
      if (searchId === null) errors.search_id = ['Must be a search_id this service gave, such as "s-12".']
      if (Object.keys(errors).length) return fieldErrors(c, errors)
      return { forward: { body: JSON.stringify(searchId === undefined ? body : { ...body, search_id: searchId }) } }
    },
    // the answer's shape is "not shown": accepted, nothing more
    answer: (a) =>
      a.status === 403 && isInsufficientCredits(a.body)
        ? { status: 402, body: pick(a.body, ['detail']) }
        : ok(a)
          ? { status: a.status, body: undefined }
          : undefined,
  },
  'GET /api/download-status/{search_id}': {
    request: byExportId,
    answer: (a) => (ok(a) ? { status: a.status, body: pick(a.body, ['status']) } : undefined),
  },
  'GET /api/download-completed-csv/{search_id}': {
    request: byExportId,
    answer: (a) => (ok(a) ? { status: a.status, body: pick(a.body, DESCRIPTOR_FIELDS) } : undefined),
  },
  'POST /api/user/search-history/{search_id}/retry': {
    request: byExportId,
    answer: (a) => (ok(a) ? { status: 204, body: undefined } : undefined),
  },
  'POST /api/user/search-history/{search_id}/download-delta': {
    request: byExportId,
    answer: (a, note) => {
      if (!isObject(a.body) || !('validation_code' in a.body)) return undefined
      // starting (not a dry run) without the credits is the same refusal as an export's start
      if (!note.dryRun && a.body.validation_code === 'insufficient_credits') return { status: 402, body: pick(a.body, ['detail']) }
      const body = pick(a.body, DELTA_FIELDS)
      body.search_id = opaqueId(body.search_id)
      return { status: a.status, body }
    },
  },
  'GET /api/user/profile': { answer: (a) => (ok(a) ? { status: a.status, body: user(a.body) } : undefined) },
  'PATCH /api/user/profile': { answer: (a) => (ok(a) ? { status: a.status, body: user(a.body) } : undefined) },
  'POST /api/auth/login': {
    answer: (a) =>
      ok(a) && isObject(a.body)
        ? { status: a.status, body: { access: a.body.access, refresh: a.body.refresh, user: loginUser(a.body.user) } }
        : undefined,
  },
  'POST /api/token/refresh': {
    answer: (a) => (ok(a) ? { status: a.status, body: pick(a.body, ['access', 'refresh']) } : undefined),
  },
  'GET /api/user/api-keys': {
    answer: (a) =>
      ok(a) && Array.isArray(a.body) ? { status: a.status, body: a.body.map((k: Json) => pick(k, API_KEY_FIELDS)) } : undefined,
  },
  'POST /api/user/api-keys': {
    // part 4.5: `expiry` is the only field; a client sending scopes, caps or a name must see it refused
    request: async (c) => {
      const body = parseJson(await c.req.text()) // read once: the route reads the same text again
      if (!isObject(body)) return undefined
      const errors = unknownFieldErrors(body, (k) => k === 'expiry')
      return Object.keys(errors).length ? fieldErrors(c, errors) : undefined
    },
    answer: (a) =>
      ok(a) && isObject(a.body)
        ? { status: a.status, body: { token: a.body.token, api_key: pick(a.body.api_key, API_KEY_FIELDS) } }
        : undefined,
  },
  'GET /api/locations/level2': {
    // "list response shape: not shown": paginated, as Django REST Framework lists are
    answer: (a) =>
      ok(a) && Array.isArray(a.body)
        ? {
            status: a.status,
            body: { count: a.body.length, next: null, previous: null, results: a.body.map((p: Json) => pick(p, LEVEL2_FIELDS)) },
          }
        : undefined,
  },
  'GET /api/locations/level2/{id}': {
    answer: (a) => (ok(a) ? { status: a.status, body: pick(a.body, LEVEL2_FIELDS) } : undefined),
  },
  'GET /api/cities/{country_alpha2_code}': {
    answer: (a) => (ok(a) && Array.isArray(a.body) ? { status: a.status, body: a.body.map((p: Json) => pick(p, CITY_FIELDS)) } : undefined),
  },
  'GET /api/locations/search': {
    // part 4.6: "status 200 with no response body"
    answer: (a) => (ok(a) ? { status: 200, body: undefined } : undefined),
  },
}

/**
 * Extensions (x-extension) the profile keeps: the links in the mails the service still sends (the
 * sign-up confirmation; the "this wasn't me" link in the notice of an email change). A confirmed
 * address and a password for credential changes are reference behaviour (decisions.md), so the
 * links must work.
 */
const KEPT_EXTENSIONS = new Set(['POST /api/auth/confirm-email', 'GET /api/auth/email-change/cancel', 'POST /api/auth/email-change/cancel'])

/** Paths of the reference that are no extension by the registry but that the interface does not have. */
const NOT_IN_INTERFACE = [
  'GET /api/user/search-history',
  'GET /api/user/search-history/{search_id}',
  'PATCH /api/user/search-history/{search_id}',
  'GET /api/schema',
]

// ---- routes ----

/**
 * The reference route that will answer this request, by the router's own verdict (so no spelling of
 * a path can reach a route without this layer knowing it), as `GET /api/x/{id}`, with its parameters.
 */
function routeOf(c: Ctx): { key: string; route: Route } | undefined {
  const handler = matchedRoutes(c).findLast((r) => r.method !== 'ALL')
  if (!handler) return undefined
  const segments = c.req.path.split('/')
  const params: Record<string, string> = {}
  handler.path.split('/').forEach((part, i) => {
    if (part.startsWith(':')) params[part.slice(1)] = decode(segments[i] ?? '')
  })
  return { key: `${handler.method} ${handler.path.replace(/:([^/]+)/g, '{$1}')}`, route: { path: handler.path, params } }
}

function decode(s: string): string {
  try {
    return decodeURIComponent(s)
  } catch {
    return s
  }
}

/** Every extension route of the registry (minus those kept) and the reference-only paths. */
export function refusedRoutes(app: OpenAPIHono<AppEnv>): string[] {
  const fromRegistry = app.openAPIRegistry.definitions.flatMap((d) =>
    d.type === 'route' && (d.route as Record<string, unknown>)['x-extension'] === true
      ? [`${d.route.method.toUpperCase()} ${d.route.path}`]
      : [],
  )
  return [...new Set([...fromRegistry, ...NOT_IN_INTERFACE])].filter((r) => !KEPT_EXTENSIONS.has(r))
}

/**
 * Query parameters the registry documents with `x-extension` (`within`, `near`, `exclude_lists`, the
 * place search's `lng`…), by operation: on a route the interface has, they are unknown parameters,
 * refused as the reference refuses any unknown one, so a client that sends an extension without the
 * capability fails here as it would against the real service (decisions.md: "nothing of it is sent").
 */
export function extensionQueryParameters(app: OpenAPIHono<AppEnv>): Map<string, Set<string>> {
  const document = app.getOpenAPI31Document({ openapi: '3.1.0', info: { title: 'extensions', version: '1' } })
  const byRoute = new Map<string, Set<string>>()
  for (const [path, item] of Object.entries(document.paths ?? {})) {
    for (const [method, operation] of Object.entries(item ?? {})) {
      const parameters = (operation as { parameters?: unknown[] } | undefined)?.parameters ?? []
      const names = parameters.flatMap((p) => {
        const param = p as { name?: string; in?: string; schema?: Record<string, unknown> } & Record<string, unknown>
        return param.in === 'query' && param.name && (param['x-extension'] === true || param.schema?.['x-extension'] === true)
          ? [param.name]
          : []
      })
      if (names.length) byRoute.set(`${method.toUpperCase()} ${path}`, new Set(names))
    }
  }
  return byRoute
}

// ---- answers ----

const DROPPED_HEADERS = new Set(['content-type', 'content-length', 'content-encoding', 'vary'])

/** JSON as every answer of the service is sent (compressed when large, unless it carries a secret). */
function send(c: Ctx, body: Json, status: number, headers: Record<string, string> = {}): Response {
  const json = jsonAnswer(c, !NEVER_COMPRESSED.test(c.req.path)) as unknown as (b: Json, s: number, h: Record<string, string>) => Response
  return json(body, status, headers)
}

const notFoundAnswer = (c: Ctx) => send(c, { detail: 'Not found.' }, 404)
const fieldErrors = (c: Ctx, errors: Record<string, string[]>) => send(c, { detail: 'Invalid input.', errors }, 400)

/** Replaces the reference's JSON answer by the interface's. */
async function reshape(c: Ctx, endpoint: Endpoint | undefined, note: Note) {
  const res = c.res
  if (!(res.headers.get('content-type') ?? '').startsWith('application/json') || res.headers.has('content-encoding')) return
  const parsed = parseJson(await res.clone().text())
  if (parsed === undefined) return
  const given: Answer = { status: res.status, body: parsed }
  const shaped: Answer = endpoint?.answer?.(given, note) ?? {
    status: given.status,
    body: given.status >= 400 ? interfaceError(given.status, parsed) : parsed,
  }
  const headers: Record<string, string> = {}
  res.headers.forEach((v, k) => {
    if (!DROPPED_HEADERS.has(k)) headers[k] = v
  })
  // cleared first: assigning over an answer merges the old one's headers into the new one (Hono)
  c.res = undefined
  c.res = shaped.body === undefined ? new Response(null, { status: shaped.status, headers }) : send(c, shaped.body, shaped.status, headers)
}

// ---- the layer ----

export function interfaceProfile(app: OpenAPIHono<AppEnv>): MiddlewareHandler<AppEnv> {
  // read on first use: every route is registered by then
  let refused: Set<string> | undefined
  let extensionParameters: Map<string, Set<string>> | undefined
  /** Requests this layer made, in the reference's terms: a client cannot make one (it is an object, not a header). */
  const internal = new WeakMap<Request, Note>()

  return async (c, next) => {
    const found = routeOf(c)
    const endpoint = found && ENDPOINTS[found.key]
    const note = internal.get(c.req.raw)

    if (note === undefined && found) {
      refused ??= new Set(refusedRoutes(app))
      if (refused.has(found.key)) return notFoundAnswer(c)
      extensionParameters ??= extensionQueryParameters(app)
      const extensions = extensionParameters.get(found.key)
      if (extensions) {
        const errors: Record<string, string[]> = {}
        for (const name of new URL(c.req.url).searchParams.keys()) {
          if (extensions.has(name)) errors[name] = ['This parameter is not part of this service.']
        }
        if (Object.keys(errors).length) return fieldErrors(c, errors)
      }
      if (endpoint?.request) {
        let outcome: Response | Forward | undefined
        try {
          // the caller first, as the reference would: an unauthenticated request learns nothing here
          await requireAuth(c, async () => {})
          outcome = await endpoint.request(c, found.route)
        } catch (err) {
          if (!(err instanceof HttpError)) throw err
          return send(c, interfaceError(err.status, err.body), err.status, err.headers)
        }
        if (outcome instanceof Response) return outcome
        if (outcome) return forward(c, outcome.forward)
      }
    }

    // the routes answer plain JSON here; the interface's answer is compressed when it is sent
    c.json = jsonAnswer(c, false)
    await next()
    await reshape(c, endpoint, note ?? {})
  }

  function forward(c: Ctx, to: Forward['forward']): Promise<Response> {
    const url = new URL(c.req.url)
    if (to.path) url.pathname = to.path
    const headers = new Headers(c.req.raw.headers)
    // the body may be a new one: its length is the new request's own
    headers.delete('content-length')
    headers.delete('transfer-encoding')
    const request = new Request(url, { method: c.req.method, headers, body: to.body })
    internal.set(request, to.note ?? {})
    return Promise.resolve(app.fetch(request, c.env))
  }
}
