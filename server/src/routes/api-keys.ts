import { randomBytes, randomUUID } from 'node:crypto'
import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi'
import type { AppEnv } from '../app-env.ts'
import { hashApiKey } from '../lib/auth.ts'
import { authed, security } from '../lib/authed.ts'
import { badRequest, HttpError, notFound } from '../lib/errors.ts'
import { authErrors, jsonBody, jsonError, refuseNul, safeString } from '../lib/schemas.ts'

const BASE62 = '0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz'
export const API_KEY_PREFIX_LENGTH = 8

/** `lds_` + 40 base62 characters (~238 bits), drawn without modulo bias. */
export function newApiKey(): string {
  let out = ''
  while (out.length < 40) {
    for (const b of randomBytes(48)) {
      if (b < 248 && out.length < 40) out += BASE62[b % 62]
    }
  }
  return `lds_${out}`
}

const ApiKeySchema = z
  .object({
    id: z.string(),
    token_key: z.string().openapi({ description: 'The first characters of the key.' }),
    created: z.string().openapi({ format: 'date-time' }),
    expiry: z.string().nullable().openapi({ format: 'date-time' }),
  })
  .openapi('ApiKey')

const CreateBody = z
  .object({
    expiry: z.iso
      .datetime({ offset: true, message: 'Must be an ISO 8601 date-time, e.g. 2027-01-31T00:00:00Z.' })
      .refine(...refuseNul)
      .nullable()
      .optional()
      .openapi({ description: 'ISO 8601 date-time; omit (or null) for a key that does not expire.' }),
  })
  .openapi('ApiKeyCreate')

interface KeyRow {
  id: string
  token_key: string
  created_at: Date
  expiry: Date | null
}
const toJson = (k: KeyRow) => ({
  id: k.id,
  token_key: k.token_key,
  created: new Date(k.created_at).toISOString(),
  expiry: k.expiry ? new Date(k.expiry).toISOString() : null,
})

const listRoute = createRoute({
  method: 'get',
  path: '/api/user/api-keys',
  tags: ['API Keys'],
  summary: 'The caller’s keys (active and expired; revoked keys are gone)',
  middleware: authed,
  security,
  responses: { 200: { description: 'Keys, newest first', content: { 'application/json': { schema: z.array(ApiKeySchema) } } }, ...authErrors },
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
    400: jsonError('Invalid input (e.g. an expiry in the past), or the account already holds the maximum of active keys (`api_key_limit` with `limit`, default 25)'),
    403: jsonError('Called with an API key: keys cannot make keys (`code: api_key_not_allowed`)'),
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
  request: { params: z.object({ key_id: safeString().max(100).openapi({ param: { name: 'key_id', in: 'path' } }) }) },
  responses: { 204: { description: 'Revoked' }, 404: jsonError('No such key of the caller'), ...authErrors },
})

export function registerApiKeyRoutes(app: OpenAPIHono<AppEnv>) {
  app.openapi(listRoute, async (c) => {
    const { rows } = await c.var.deps.db.query<KeyRow>(
      'SELECT id, token_key, created_at, expiry FROM api_keys WHERE user_id = $1 AND revoked_at IS NULL ORDER BY created_at DESC, id',
      [c.var.user.id],
    )
    return c.json(rows.map(toJson), 200)
  })

  app.openapi(createKeyRoute, async (c) => {
    const body = c.req.valid('json') ?? {}
    const { db, clock } = c.var.deps
    const now = clock.now()
    const expiry = body.expiry ? new Date(body.expiry) : null
    if (expiry && expiry <= now) throw badRequest({ expiry: [{ code: 'expiry_in_past', message: 'The expiry must be in the future.' }] })
    // A stolen key must not mint a successor that outlives its revocation.
    if (c.var.credential.startsWith('key:')) {
      throw new HttpError(403, { detail: 'API keys cannot create API keys. Sign in with the password to do that.', code: 'api_key_not_allowed' })
    }
    const token = newApiKey()
    const limit = c.var.deps.config.maxApiKeys
    const row = await db.tx(async (q) => {
      // The account row lock serialises concurrent creations, so two at once cannot both pass the cap.
      await q.query('SELECT id FROM users WHERE id = $1 FOR UPDATE', [c.var.user.id])
      const active = (
        await q.query<{ n: number }>(
          'SELECT count(*)::int AS n FROM api_keys WHERE user_id = $1 AND revoked_at IS NULL AND (expiry IS NULL OR expiry > $2)',
          [c.var.user.id, now],
        )
      ).rows[0]!.n
      if (active >= limit) {
        throw badRequest(
          { non_field_errors: [{ code: 'api_key_limit', message: `An account can hold at most ${limit} active API keys: revoke one first.`, params: { limit } }] },
          `An account can hold at most ${limit} active API keys.`,
        )
      }
      const { rows } = await q.query<KeyRow>(
        `INSERT INTO api_keys (id, user_id, token_key, key_hash, created_at, expiry) VALUES ($1, $2, $3, $4, $5, $6)
         RETURNING id, token_key, created_at, expiry`,
        [randomUUID(), c.var.user.id, token.slice(0, API_KEY_PREFIX_LENGTH), hashApiKey(token), now, expiry],
      )
      return rows[0]!
    })
    return c.json({ token, api_key: toJson(row) }, 201)
  })

  app.openapi(revokeRoute, async (c) => {
    const { key_id } = c.req.valid('param')
    const { db, clock } = c.var.deps
    const { rows } = await db.query(
      'UPDATE api_keys SET revoked_at = $3 WHERE id = $1 AND user_id = $2 AND revoked_at IS NULL RETURNING id',
      [key_id, c.var.user.id, clock.now()],
    )
    if (!rows.length) throw notFound('API key not found.')
    return c.body(null, 204)
  })
}
