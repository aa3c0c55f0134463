import { randomBytes, randomUUID } from 'node:crypto'
import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi'
import type { AppEnv, KeyScope } from '../app-env.ts'
import { hashApiKey } from '../lib/auth.ts'
import { authed, security } from '../lib/authed.ts'
import { capPeriodStart, KEY_SCOPES, keySpend } from '../lib/key-scope.ts'
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

interface KeyRow {
  id: string
  token_key: string
  created_at: Date
  expiry: Date | null
  scope: KeyScope
  monthly_credit_cap: number | null
}
const KEY_COLUMNS = 'id, token_key, created_at, expiry, scope, monthly_credit_cap'
const toJson = (k: KeyRow, spent: number, periodStart: Date) => ({
  id: k.id,
  token_key: k.token_key,
  created: new Date(k.created_at).toISOString(),
  expiry: k.expiry ? new Date(k.expiry).toISOString() : null,
  scope: k.scope,
  monthly_credit_cap: k.monthly_credit_cap,
  credits_spent_this_period: spent,
  period_start: periodStart.toISOString(),
})

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

export function registerApiKeyRoutes(app: OpenAPIHono<AppEnv>) {
  app.openapi(listRoute, async (c) => {
    const { db, clock } = c.var.deps
    const now = clock.now()
    const { rows } = await db.query<KeyRow>(
      `SELECT ${KEY_COLUMNS} FROM api_keys WHERE user_id = $1 AND revoked_at IS NULL ORDER BY created_at DESC, id`,
      [c.var.user.id],
    )
    const spent = await keySpend(
      db,
      rows.map((r) => r.id),
      now,
    )
    return c.json(
      rows.map((r) => toJson(r, spent.get(r.id) ?? 0, capPeriodStart(now))),
      200,
    )
  })

  app.openapi(createKeyRoute, async (c) => {
    const body = c.req.valid('json') ?? {}
    const { db, clock } = c.var.deps
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
    const token = newApiKey()
    const limit = c.var.deps.config.maxApiKeys
    const row = await db.tx(async (q) => {
      // The account row lock serialises concurrent creations, so two at once cannot both pass the cap.
      const account = (
        await q.query<{ email_confirmed_at: Date | null }>('SELECT email_confirmed_at FROM users WHERE id = $1 FOR UPDATE', [c.var.user.id])
      ).rows[0]
      // a key outlives the session that made it: only for an account whose address is confirmed
      if (!account?.email_confirmed_at) {
        throw new HttpError(403, {
          detail: 'Confirm your email address first: API keys are for confirmed accounts.',
          code: 'email_not_confirmed',
        })
      }
      const active = (
        await q.query<{ n: number }>(
          'SELECT count(*)::int AS n FROM api_keys WHERE user_id = $1 AND revoked_at IS NULL AND (expiry IS NULL OR expiry > $2)',
          [c.var.user.id, now],
        )
      ).rows[0]!.n
      if (active >= limit) {
        throw badRequest(
          {
            non_field_errors: [
              {
                code: 'api_key_limit',
                message: `An account can hold at most ${limit} active API keys: revoke one first.`,
                params: { limit },
              },
            ],
          },
          `An account can hold at most ${limit} active API keys.`,
        )
      }
      const { rows } = await q.query<KeyRow>(
        `INSERT INTO api_keys (id, user_id, token_key, key_hash, created_at, expiry, scope, monthly_credit_cap)
         VALUES ($1, $2, $3, $4, $5, $6, $7, $8) RETURNING ${KEY_COLUMNS}`,
        [
          randomUUID(),
          c.var.user.id,
          token.slice(0, API_KEY_PREFIX_LENGTH),
          hashApiKey(token),
          now,
          expiry,
          body.scope ?? 'export',
          body.monthly_credit_cap ?? null,
        ],
      )
      return rows[0]!
    })
    return c.json({ token, api_key: toJson(row, 0, capPeriodStart(now)) }, 201)
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
    const { rows } = await db.query(
      'UPDATE api_keys SET revoked_at = $3 WHERE id = $1 AND user_id = $2 AND revoked_at IS NULL RETURNING id',
      [key_id, c.var.user.id, clock.now()],
    )
    if (!rows.length) throw notFound('API key not found.')
    return c.body(null, 204)
  })
}
