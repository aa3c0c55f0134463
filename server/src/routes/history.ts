import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi'
import type { AppEnv } from '../app-env.ts'
import { authed, security } from '../lib/authed.ts'
import { badRequest, HttpError, notFound } from '../lib/errors.ts'
import { booleanLike } from '../lib/filters.ts'
import { downloadDelta, type ExportRow } from '../lib/exports.ts'
import { refuseReadOnlyKey } from '../lib/key-scope.ts'
import { authErrors, chargedFromSchema, idParam, INT32_MAX, jsonBody, jsonError, plainText, safeString } from '../lib/schemas.ts'
import type { ChargedFrom } from '../lib/credits.ts'

const iso = (d: Date | null) => (d ? new Date(d).toISOString() : null)

const HistoryEntrySchema = z
  .object({
    search_id: z.number().int(),
    filters: z.record(z.string(), z.unknown()),
    created_at: z.string().openapi({ format: 'date-time' }),
    status: z.enum(['PENDING', 'PROCESSING', 'COMPLETED', 'FAILED']),
    progress: z.number().int(),
    lead_count: z.number().int(),
    credits_charged: z.number().int(),
    charged_from: chargedFromSchema('which balances paid this export’s `credits_charged` (the credits that expire first are spent first).')
      .nullable()
      .optional(),
    export_format: z.enum(['csv', 'excel']),
    capped: z.boolean(),
    max_leads: z.number().int().nullable(),
    delta_of: z.number().int().nullable(),
    filename: z.string().nullable(),
    file_size_bytes: z.number().int().nullable(),
    completed_at: z.string().nullable().openapi({ format: 'date-time' }),
    expires_at: z.string().nullable().openapi({ format: 'date-time' }),
    error: z.string().nullable(),
    file_removed: z.boolean().optional().openapi({
      description: 'Extension: true once the file was deleted after its link expired (the entry stays).',
    }),
    api_key: z.object({ id: z.string(), token_key: z.string() }).nullable().optional().openapi({
      description: 'Extension `scoped_api_keys`: the API key that started the export (null: a signed-in session).',
      'x-extension': true,
    }),
    name: z
      .string()
      .nullable()
      .optional()
      .openapi({ description: 'Extension `watched_searches`: the name the account gave this search.', 'x-extension': true }),
    watched: z.boolean().optional().openapi({
      description: 'Extension `watched_searches`: the account follows new leads for this search (original exports only).',
      'x-extension': true,
    }),
  })
  .openapi('HistoryEntry')

/** Watched searches one account may hold: the dashboard asks one free dry run per watched search. */
export const MAX_WATCHED = 20
export const MAX_NAME = 80

type HistoryEntry = z.infer<typeof HistoryEntrySchema>

/** An export row with the prefix of the key that started it (LEFT JOIN api_keys) and the balances that paid it. */
type EntryRow = ExportRow & {
  api_key_token_key?: string | null
  name?: string | null
  watched?: boolean
  charged_from?: ChargedFrom | string | null
}
const ENTRY_SELECT = `SELECT s.*, k.token_key AS api_key_token_key,
       (SELECT CASE WHEN count(*) > 0 THEN json_build_object('subscription', sum(ch.from_subscription)::int, 'purchased', sum(ch.from_purchased)::int) END
          FROM credit_charges ch WHERE ch.search_id = s.id) AS charged_from
  FROM searches s LEFT JOIN api_keys k ON k.id = s.api_key_id`

const chargedFrom = (v: EntryRow['charged_from']): ChargedFrom | null =>
  typeof v === 'string' ? (JSON.parse(v) as ChargedFrom) : (v ?? null)

function toEntry(r: EntryRow): HistoryEntry {
  return {
    search_id: r.id,
    filters: r.filters && typeof r.filters === 'object' ? (r.filters as Record<string, unknown>) : {},
    created_at: new Date(r.created_at).toISOString(),
    status: (r.status ?? 'PENDING') as HistoryEntry['status'],
    progress: r.progress,
    lead_count: r.lead_count,
    credits_charged: r.credits_charged,
    charged_from: chargedFrom(r.charged_from),
    export_format: r.export_format ?? 'csv',
    capped: r.capped,
    max_leads: r.max_leads,
    delta_of: r.delta_of,
    filename: r.filename,
    file_size_bytes: r.file_size_bytes === null ? null : Number(r.file_size_bytes),
    completed_at: iso(r.completed_at),
    expires_at: iso(r.expires_at),
    error: r.error,
    file_removed: r.file_removed_at !== null && r.file_removed_at !== undefined,
    api_key: r.api_key_id && r.api_key_token_key ? { id: r.api_key_id, token_key: r.api_key_token_key } : null,
    name: r.name ?? null,
    watched: r.watched === true,
  }
}

const positiveIntQuery = (name: string, fallback: number, max: number) =>
  safeString()
    .optional()
    .transform((v, ctx) => {
      if (v === undefined || v.trim() === '') return fallback
      if (!/^\d{1,10}$/.test(v.trim()) || Number(v) < 1 || Number(v) > max) {
        ctx.addIssue({ code: 'custom', message: `Must be an integer from 1 to ${max}.`, params: { code: 'out_of_range', min: 1, max } })
        return z.NEVER
      }
      return Number(v)
    })
    .openapi({ param: { name, in: 'query' }, type: 'integer', minimum: 1, maximum: max, default: fallback })

const PageSchema = z
  .object({
    count: z.number().int(),
    next: z.string().nullable(),
    previous: z.string().nullable(),
    results: z.array(HistoryEntrySchema),
  })
  .openapi('HistoryPage')

const FreshnessSchema = z.object({
  original_exported_at: z.string().nullable().openapi({ format: 'date-time' }),
  last_exported_at: z.string().nullable().optional().openapi({
    format: 'date-time',
    description: 'Newest snapshot among the original and its fresh-data exports: leads up to it are bought.',
  }),
  original_lead_count: z.number().int(),
  current_total: z.number().int(),
  new_since_export: z.number().int().openapi({ description: 'Companies created after last_exported_at.' }),
  capped: z.boolean(),
})

const DeltaResultSchema = z
  .object({
    status: z.enum(['validated', 'started', 'rejected']),
    validation_code: z.enum(['ok', 'no_new_leads', 'insufficient_credits', 'fresh_exports_not_allowed', 'not_completed']),
    detail: z.string().optional().openapi({ description: 'Why the request was rejected, for a person (rejected answers).' }),
    search_id: z.number().int(),
    lead_count: z.number().int(),
    required_credits: z.number().int(),
    available_credits: z.number().int().openapi({ description: 'Balance now: after the charge when `started`.' }),
    freshness: FreshnessSchema,
    freshness_checked_at: z.string().openapi({ format: 'date-time' }),
    charged_from: chargedFromSchema('with `started`, which balances paid (the credits that expire first are spent first).').optional(),
  })
  .openapi('DeltaExportResult')

const delta = { content: { 'application/json': { schema: DeltaResultSchema } } }
const params = z.object({ search_id: idParam('search_id') })

const listRoute = createRoute({
  method: 'get',
  path: '/api/user/search-history',
  tags: ['History'],
  summary: 'The caller’s exports, newest first',
  middleware: authed,
  security,
  request: {
    query: z
      .object({
        page: positiveIntQuery('page', 1, INT32_MAX),
        page_size: positiveIntQuery('page_size', 20, 100),
        watched: booleanLike.openapi({
          param: { name: 'watched', in: 'query' },
          description: 'Extension `watched_searches`: `true` lists watched searches only.',
          'x-extension': true,
        }),
      })
      .strict(),
  },
  responses: {
    200: { description: 'A page of history', content: { 'application/json': { schema: PageSchema } } },
    400: jsonError('Invalid page or page_size'),
    404: jsonError('Page out of range'),
    ...authErrors,
  },
})

const entryRoute = createRoute({
  method: 'get',
  path: '/api/user/search-history/{search_id}',
  tags: ['History'],
  summary: 'One history entry',
  middleware: authed,
  security,
  request: { params },
  responses: {
    200: { description: 'Entry', content: { 'application/json': { schema: HistoryEntrySchema } } },
    400: jsonError('Invalid id'),
    404: jsonError('No such export of the caller'),
    ...authErrors,
  },
})

const deltaRoute = createRoute({
  method: 'post',
  path: '/api/user/search-history/{search_id}/download-delta',
  tags: ['History'],
  summary: 'Fresh data for an earlier export (dry_run validates only)',
  description:
    'Uncapped original: companies created after what the search has already bought (the original export, then its newest fresh-data export), charge = their number. Capped original: a full-expansion export, charge = current total − credits charged so far for it (the original and its fresh-data exports). `{"dry_run": true}` validates and charges nothing; `{}` starts the export when valid. Rejected answers carry `detail`.',
  middleware: authed,
  security,
  request: {
    params,
    body: jsonBody(z.object({ dry_run: z.boolean().optional() }).strict().openapi('DeltaRequest'), false),
  },
  responses: {
    200: { description: 'Validated (`ok`), or rejected with `no_new_leads`', ...delta },
    202: { description: 'Started: the new export’s id is in search_id', ...delta },
    400: jsonError('Invalid input'),
    403: {
      description:
        'Rejected: `insufficient_credits` or `fresh_exports_not_allowed`. Extension `scoped_api_keys` (a starting request only): `code: api_key_read_only`, or `api_key_cap_reached` past the key’s monthly cap.',
      ...delta,
    },
    404: jsonError('No such export of the caller'),
    409: { description: 'Rejected: `not_completed`', ...delta },
    ...authErrors,
  },
})

const retryRoute = createRoute({
  method: 'post',
  path: '/api/user/search-history/{search_id}/retry',
  tags: ['History'],
  summary: 'Requeue a failed export, at no new charge',
  middleware: authed,
  security,
  request: { params, body: jsonBody(z.object({}).strict().openapi('RetryRequest'), false) },
  responses: {
    202: {
      description: 'Requeued',
      content: { 'application/json': { schema: z.object({ search_id: z.number().int(), status: z.string() }).openapi('RetryResult') } },
    },
    400: jsonError('Invalid input'),
    403: jsonError('Extension `scoped_api_keys`: a read-only key (`code: api_key_read_only`)'),
    404: jsonError('No such export of the caller'),
    409: jsonError('Only a failed export can be retried'),
    ...authErrors,
  },
})

const patchRoute = createRoute({
  method: 'patch',
  path: '/api/user/search-history/{search_id}',
  tags: ['History'],
  summary: 'Name or watch a search (extension `watched_searches`)',
  description: `Sets \`name\` (1–${MAX_NAME} characters; null or "" removes it) and/or \`watched\`. Only an original export can be watched (not a fresh-data export of one), and an account watches at most ${MAX_WATCHED} searches (\`watch_limit\`).`,
  middleware: authed,
  security,
  'x-extension': true,
  request: {
    params,
    body: jsonBody(
      z
        .object({
          name: plainText().max(MAX_NAME).nullable().optional(),
          watched: z.boolean().optional(),
        })
        .strict()
        .openapi('HistoryEntryPatch'),
    ),
  },
  responses: {
    200: { description: 'The entry as it is now', content: { 'application/json': { schema: HistoryEntrySchema } } },
    400: jsonError('Invalid input, a fresh-data export to watch, or `watch_limit`'),
    403: jsonError('Extension `scoped_api_keys`: a read-only key (`code: api_key_read_only`)'),
    404: jsonError('No such export of the caller'),
    ...authErrors,
  },
})

/** The same list at another page, on the configured public address (never the request's Host). */
function pageUrl(publicUrl: string, requestUrl: string, page: number): string {
  const asked = new URL(requestUrl)
  const u = new URL(asked.pathname + asked.search, `${publicUrl}/`)
  u.searchParams.set('page', String(page))
  return u.toString()
}

export function registerHistoryRoutes(app: OpenAPIHono<AppEnv>) {
  app.openapi(listRoute, async (c) => {
    const { page, page_size, watched } = c.req.valid('query')
    const { db } = c.var.deps
    const userId = c.var.user.id
    const only = watched ? ' AND s.watched' : ''
    const count =
      (
        await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM searches s WHERE s.user_id = $1 AND s.kind = 'export'${only}`, [
          userId,
        ])
      ).rows[0]?.n ?? 0
    const pages = Math.max(1, Math.ceil(count / page_size))
    if (page > pages) throw notFound('Invalid page.')
    const { rows } = await db.query<EntryRow>(
      `${ENTRY_SELECT} WHERE s.user_id = $1 AND s.kind = 'export'${only}
        ORDER BY s.created_at DESC, s.id DESC LIMIT $2 OFFSET $3`,
      [userId, page_size, (page - 1) * page_size],
    )
    return c.json(
      {
        count,
        next: page < pages ? pageUrl(c.var.deps.config.publicUrl, c.req.url, page + 1) : null,
        previous: page > 1 ? pageUrl(c.var.deps.config.publicUrl, c.req.url, page - 1) : null,
        results: rows.map(toEntry),
      },
      200,
    )
  })

  app.openapi(entryRoute, async (c) => {
    const { search_id } = c.req.valid('param')
    const row = (
      await c.var.deps.db.query<EntryRow>(`${ENTRY_SELECT} WHERE s.id = $1 AND s.user_id = $2 AND s.kind = 'export'`, [
        search_id,
        c.var.user.id,
      ])
    ).rows[0]
    if (!row) throw notFound('Export not found.')
    return c.json(toEntry(row), 200)
  })

  app.openapi(patchRoute, async (c) => {
    const { search_id } = c.req.valid('param')
    const body = c.req.valid('json')
    refuseReadOnlyKey(c, 'name or watch a search')
    const userId = c.var.user.id
    const name = body.name === undefined ? undefined : body.name?.trim() || null
    const row = await c.var.deps.db.tx(async (q) => {
      // the account row is the lock: two requests watching at once cannot pass the limit together
      await q.query('SELECT id FROM users WHERE id = $1 FOR UPDATE', [userId])
      const entry = (
        await q.query<{ delta_of: number | null; watched: boolean }>(
          "SELECT delta_of, watched FROM searches WHERE id = $1 AND user_id = $2 AND kind = 'export'",
          [search_id, userId],
        )
      ).rows[0]
      if (!entry) throw notFound('Export not found.')
      if (body.watched === true && !entry.watched) {
        if (entry.delta_of !== null) {
          throw badRequest({ watched: [`This is a fresh-data export of #${entry.delta_of}: watch that search instead.`] })
        }
        const n = (
          await q.query<{ n: number }>("SELECT count(*)::int AS n FROM searches WHERE user_id = $1 AND kind = 'export' AND watched", [
            userId,
          ])
        ).rows[0]!.n
        if (n >= MAX_WATCHED) {
          throw badRequest({
            watched: [
              {
                code: 'watch_limit',
                message: `You already watch ${MAX_WATCHED} searches: stop watching one first.`,
                params: { limit: MAX_WATCHED },
              },
            ],
          })
        }
      }
      await q.query(
        'UPDATE searches SET name = CASE WHEN $3 THEN $4 ELSE name END, watched = coalesce($5, watched) WHERE id = $1 AND user_id = $2',
        [search_id, userId, name !== undefined, name ?? null, body.watched ?? null],
      )
      return (await q.query<EntryRow>(`${ENTRY_SELECT} WHERE s.id = $1 AND s.user_id = $2`, [search_id, userId])).rows[0]!
    })
    return c.json(toEntry(row), 200)
  })

  app.openapi(deltaRoute, async (c) => {
    const { search_id } = c.req.valid('param')
    const body = c.req.valid('json') ?? {}
    const dryRun = body.dry_run === true
    if (!dryRun) refuseReadOnlyKey(c, 'start a fresh-data export')
    const { db, clock, kickExports } = c.var.deps
    const { httpStatus, body: result } = await downloadDelta(db, {
      userId: c.var.user.id,
      searchId: search_id,
      dryRun,
      now: clock.now(),
      apiKey: c.var.apiKey,
    })
    if (result.status === 'started') kickExports()
    return c.json(result, httpStatus)
  })

  app.openapi(retryRoute, async (c) => {
    const { search_id } = c.req.valid('param')
    refuseReadOnlyKey(c, 'retry an export')
    const { db, kickExports } = c.var.deps
    const userId = c.var.user.id
    const { rows } = await db.query<{ id: number }>(
      `UPDATE searches SET status = 'PENDING', error = NULL, progress = 0, processed_count = 0
        WHERE id = $1 AND user_id = $2 AND kind = 'export' AND status = 'FAILED' RETURNING id`,
      [search_id, userId],
    )
    if (!rows.length) {
      const exists = await db.query<{ status: string }>("SELECT status FROM searches WHERE id = $1 AND user_id = $2 AND kind = 'export'", [
        search_id,
        userId,
      ])
      if (!exists.rows[0]) throw notFound('Export not found.')
      throw new HttpError(409, {
        detail: `Only a failed export can be retried (status ${exists.rows[0].status}).`,
        code: 'conflict',
        status: exists.rows[0].status,
      })
    }
    kickExports()
    return c.json({ search_id, status: 'PENDING' }, 202)
  })
}
