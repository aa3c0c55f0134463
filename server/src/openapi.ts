import type { OpenAPIHono } from '@hono/zod-openapi'
import type { AppEnv } from './app-env.ts'
import { requireAuth } from './modules/auth/credentials.ts'
import { unknownQueryBody } from './lib/strict-query.ts'

type Document = ReturnType<OpenAPIHono<AppEnv>['getOpenAPI31Document']>
type PathItem = NonNullable<Document['paths']>[string]
type Operation = NonNullable<PathItem['get']>
type SecurityRequirement = NonNullable<Operation['security']>[number]

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const

/** The schemes requireAuth reads (part 5 of the interface). */
const ACCOUNT_SCHEMES = new Set(['bearer', 'token'])
const SIGNED_IN: SecurityRequirement[] = [{ bearer: [] }, { token: [] }]
const PASSWORD_SIGN_IN: SecurityRequirement[] = [{ bearer: [] }]

/**
 * Operations that refuse every API key (403 `api_key_not_allowed`, in their handlers): a stolen key
 * must not change how the account signs in, mint keys, or plant a webhook that outlives it. Not here:
 * the ones that refuse a key only some of what they do (an email change, revoking another key).
 */
const PASSWORD_SIGN_IN_ONLY = new Set([
  'POST /api/user/password',
  'POST /api/user/api-keys',
  'POST /api/user/webhooks',
  'DELETE /api/user/webhooks/{id}',
  'POST /api/user/webhooks/{id}/rotate-secret',
  'POST /api/user/webhooks/{id}/resume',
])

/** Where the name derived from the path reads badly: the interface's export paths say "csv" for Excel files too. */
const OPERATION_IDS: Record<string, string> = {
  'POST /api/download-csv': 'startExport',
  'GET /api/download-status/{search_id}': 'getExportStatus',
  'GET /api/download-completed-csv/{search_id}': 'getExportDownloadLink',
  'GET /api/files/{search_id}': 'downloadExportFile',
  'POST /api/user/password': 'changePassword',
  'POST /api/token/refresh': 'refreshToken',
}

/**
 * `GET /api/user/search-history/{search_id}` → `getUserSearchHistoryBySearchId`: the method, then the
 * path's words; a parameter only when it ends the path (the others sit between words that already
 * tell the operations apart).
 */
function derivedOperationId(method: string, path: string): string {
  const segments = path.split('/').filter((s) => s !== '' && s !== 'api')
  const words = segments.filter((s) => !s.startsWith('{')).flatMap((s) => s.split(/[^A-Za-z0-9]+/))
  const last = segments.at(-1)
  if (last?.startsWith('{')) words.push('by', ...last.slice(1, -1).split('_'))
  return [method, ...words.filter(Boolean).map((w) => w[0]!.toUpperCase() + w.slice(1))].join('')
}

/**
 * The generated document, completed where the route declarations cannot know: each operation's name,
 * its security as the middleware in front of it enforces it, the service's address.
 */
function buildOpenApiDocument(app: OpenAPIHono<AppEnv>): Document {
  const document = app.getOpenAPI31Document({
    openapi: '3.1.0',
    info: { title: 'Lead-data service (reference)', version: 'v1' },
    // the paths start at the root of the origin this document is served from
    servers: [{ url: '/', description: 'This service' }],
  })
  const operations = Object.entries(document.paths ?? {}).flatMap(([path, item]) =>
    METHODS.flatMap((method) => {
      const operation = item[method]
      return operation ? [{ key: `${method.toUpperCase()} ${path}`, method, path, operation }] : []
    }),
  )
  const keys = new Set(operations.map((o) => o.key))
  for (const key of [...PASSWORD_SIGN_IN_ONLY, ...Object.keys(OPERATION_IDS)]) {
    if (!keys.has(key)) throw new Error(`openapi.ts names ${key}, which is not an operation of the service.`)
  }

  const names = new Map<string, string>()
  for (const { key, method, path, operation } of operations) {
    operation.operationId ??= OPERATION_IDS[key] ?? derivedOperationId(method, path)
    const taken = names.get(operation.operationId)
    if (taken) throw new Error(`${key} and ${taken} are both named ${operation.operationId}: name one in OPERATION_IDS.`)
    names.set(operation.operationId, key)

    if (guardedByRequireAuth(app, method, path)) {
      operation.security = PASSWORD_SIGN_IN_ONLY.has(key) ? PASSWORD_SIGN_IN : SIGNED_IN
    } else {
      // a route that checks a credential of its own (the page snapshots' service token) declares it;
      // the account schemes are only true behind requireAuth
      operation.security = (operation.security ?? []).filter((r) => !Object.keys(r).some((scheme) => ACCOUNT_SCHEMES.has(scheme)))
    }

    // strictQueries (lib/strict-query.ts) answers this on every operation
    const responses = (operation.responses ??= {})
    responses['400'] ??= {
      description: 'A query parameter this operation does not declare (`code: unknown_parameter`)',
      content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
    }
  }
  return document
}

/** Whether requireAuth runs before the operation's handler: registered with the route, or by `use` over its path. */
function guardedByRequireAuth(app: OpenAPIHono<AppEnv>, method: string, path: string): boolean {
  const honoPath = path.replaceAll(/\/{(.+?)}/g, '/:$1') // as @hono/zod-openapi registers it
  return app.routes.some(
    (r) =>
      r.handler === requireAuth &&
      (r.method === method.toUpperCase() || r.method === 'ALL') &&
      (r.path === honoPath || (r.path.endsWith('/*') && honoPath.startsWith(r.path.slice(0, -1)))),
  )
}

/** `GET /api/schema/`: the OpenAPI 3.1 document of every route, and the security schemes it names. */
export function serveOpenApiDocument(app: OpenAPIHono<AppEnv>): void {
  app.openAPIRegistry.registerComponent('securitySchemes', 'bearer', {
    type: 'http',
    scheme: 'bearer',
    description:
      '`Bearer <access token>` from sign-in. Where an operation lists `token` too, an API key is accepted here as well (`Bearer <API key>`).',
  })
  app.openAPIRegistry.registerComponent('securitySchemes', 'token', {
    type: 'apiKey',
    in: 'header',
    name: 'Authorization',
    description: '`Token <API key>`',
  })

  // Built once, on first request (every route is registered by then), not on every request.
  let document: Document | undefined
  app.get('/api/schema', (c) => {
    const unknown = unknownQueryBody(c.req.url)
    if (unknown) return c.json(unknown, 400)
    return c.json((document ??= buildOpenApiDocument(app)))
  })
}
