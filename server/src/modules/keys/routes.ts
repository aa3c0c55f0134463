import { createRoute, z } from '@hono/zod-openapi'
import { badRequest, HttpError } from '../../lib/errors.ts'
import { openApiApp } from '../../lib/openapi-app.ts'
import { authErrors, jsonBody, jsonError, refuseControl, refuseNul, safeString } from '../../lib/schemas.ts'
import { authed, security } from '../auth/authed.ts'
import { KEY_SCOPES } from './scope.ts'
import { createKey, listKeys, MAX_KEY_NAME, revokeKey } from './service.ts'

const ApiKeySchema = z
  .object({
    id: z.string(),
    token_key: z.string().openapi({ description: 'The first characters of the key.' }),
    name: z.string().nullable().optional().openapi({
      description: 'Extension `api_key_names`: the name its maker gave the key; null for none.',
      'x-extension': true,
    }),
    created: z.string().openapi({ format: 'date-time' }),
    expiry: z.string().nullable().openapi({ format: 'date-time' }),
    scope: z.enum(KEY_SCOPES).optional().openapi({
      description: 'Extension `scoped_api_keys`: `read` (search, preview, history, downloads) or `export` (also starts exports).',
      'x-extension': true,
    }),
    monthly_credit_cap: z.number().int().nullable().optional().openapi({
      description: 'Extension `scoped_api_keys`: credits the key may spend per calendar month (UTC); null for no cap.',
      'x-extension': true,
    }),
    credits_spent_this_period: z.number().int().optional().openapi({
      description: 'Extension `scoped_api_keys`: credits charged this calendar month (UTC) by exports the key started.',
      'x-extension': true,
    }),
    period_start: z
      .string()
      .optional()
      .openapi({ format: 'date-time', description: 'Extension `scoped_api_keys`: where this period began.', 'x-extension': true }),
  })
  .openapi('ApiKey')

const CreateBody = z
  .object({
    // trimmed first, so that a name pasted with a line break at its end is not refused for it
    name: z
      .string()
      .trim()
      .refine(...refuseNul)
      .refine(...refuseControl)
      .min(1, { message: 'Must not be empty: omit the name (or send null) for a key without one.' })
      .max(MAX_KEY_NAME, { message: `Must be at most ${MAX_KEY_NAME} characters.` })
      .nullable()
      .optional()
      .openapi({
        description: `Extension \`api_key_names\`: what the key is for ("CRM sync"), 1–${MAX_KEY_NAME} characters once trimmed; omit (or null) for none.`,
        'x-extension': true,
      }),
    expiry: z.iso
      .datetime({ offset: true, message: 'Must be an ISO 8601 date-time, e.g. 2027-01-31T00:00:00Z.' })
      .refine(...refuseNul)
      .nullable()
      .optional()
      .openapi({ description: 'ISO 8601 date-time; omit (or null) for a key that does not expire.' }),
    scope: z
      .enum(KEY_SCOPES, { message: 'Must be "read" or "export".' })
      .optional()
      .openapi({ description: 'Extension `scoped_api_keys`: what the key may do (default `export`).', 'x-extension': true }),
    monthly_credit_cap: z
      .number({ message: 'Must be a whole number of credits.' })
      .int({ message: 'Must be a whole number of credits.' })
      .min(1)
      .max(1_000_000_000)
      .nullable()
      .optional()
      .openapi({
        description: 'Extension `scoped_api_keys`: at most this many credits per calendar month (UTC); omit or null for none.',
        'x-extension': true,
      }),
  })
  .openapi('ApiKeyCreate')

const listRoute = createRoute({
  method: 'get',
  path: '/api/user/api-keys',
  tags: ['API Keys'],
  summary: 'The caller’s keys (active and expired; revoked keys are gone)',
  middleware: authed,
  security,
  responses: {
    200: { description: 'Keys, newest first', content: { 'application/json': { schema: z.array(ApiKeySchema) } } },
    ...authErrors,
  },
})

const createKeyRoute = createRoute({
  method: 'post',
  path: '/api/user/api-keys',
  tags: ['API Keys'],
  summary: 'Create a key; the full key is returned only here',
  middleware: authed,
  security,
  request: { body: jsonBody(CreateBody, false) },
  responses: {
    201: {
      description: 'Created',
      content: { 'application/json': { schema: z.object({ token: z.string(), api_key: ApiKeySchema }).openapi('ApiKeyCreated') } },
    },
    400: jsonError(
      'Invalid input (e.g. an expiry in the past), or the account already holds the maximum of active keys (`api_key_limit` with `limit`, default 25)',
    ),
    403: jsonError(
      "Called with an API key: keys cannot make keys (`code: api_key_not_allowed`); or the account's address is not confirmed yet (`email_not_confirmed`)",
    ),
    ...authErrors,
  },
})

const revokeRoute = createRoute({
  method: 'delete',
  path: '/api/user/api-keys/{key_id}',
  tags: ['API Keys'],
  summary: 'Revoke a key (permanent, immediate)',
  middleware: authed,
  security,
  request: {
    params: z.object({
      key_id: safeString()
        .max(100)
        .openapi({ param: { name: 'key_id', in: 'path' } }),
    }),
  },
  responses: {
    204: { description: 'Revoked' },
    403: jsonError('Called with another API key: a key can revoke only itself (`code: api_key_not_allowed`)'),
    404: jsonError('No such key of the caller'),
    ...authErrors,
  },
})

export function apiKeyRoutes() {
  const app = openApiApp()

  app.openapi(listRoute, async (c) => {
    const { db, clock } = c.var.deps
    return c.json(await listKeys(db, c.var.user.id, clock.now()), 200)
  })

  app.openapi(createKeyRoute, async (c) => {
    const body = c.req.valid('json') ?? {}
    const { db, clock, config } = c.var.deps
    const now = clock.now()
    const expiry = body.expiry ? new Date(body.expiry) : null
    if (expiry && expiry <= now) throw badRequest({ expiry: [{ code: 'expiry_in_past', message: 'The expiry must be in the future.' }] })
    // A stolen key must not mint a successor that outlives its revocation.
    if (c.var.credential.startsWith('key:')) {
      throw new HttpError(403, {
        detail: 'API keys cannot create API keys. Sign in with the password to do that.',
        code: 'api_key_not_allowed',
      })
    }
    const key = { expiry, scope: body.scope ?? 'export', monthlyCreditCap: body.monthly_credit_cap ?? null, name: body.name ?? null }
    return c.json(await createKey(db, c.var.user.id, key, config.maxApiKeys, now), 201)
  })

  app.openapi(revokeRoute, async (c) => {
    const { key_id } = c.req.valid('param')
    const { db, clock } = c.var.deps
    // A stolen key must not lock its owner's other programs out: a key can revoke only itself.
    if (c.var.apiKey && c.var.apiKey.id !== key_id) {
      throw new HttpError(403, {
        detail: 'An API key can revoke only itself. Sign in with the password to revoke other keys.',
        code: 'api_key_not_allowed',
      })
    }
    await revokeKey(db, c.var.user.id, key_id, clock.now())
    return c.body(null, 204)
  })

  return app
}
