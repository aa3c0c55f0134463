import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi'
import type { AppEnv } from '../app-env.ts'
import { authed, security } from '../lib/authed.ts'
import { HttpError, notFound } from '../lib/errors.ts'
import { downloadDelta, type ExportRow } from '../lib/exports.ts'
import { refuseReadOnlyKey } from '../lib/key-scope.ts'
import { authErrors, idParam, INT32_MAX, jsonBody, jsonError, safeString } from '../lib/schemas.ts'

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
    api_key: z
      .object({ id: z.string(), token_key: z.string() })
      .nullable()
      .optional()
      .openapi({ description: 'Extension `scoped_api_keys`: the API key that started the export (null: a signed-in session).', 'x-extension': true }),
  })
  .openapi('HistoryEntry')

type HistoryEntry = z.infer<typeof HistoryEntrySchema>

/** An export row with the prefix of the key that started it (LEFT JOIN api_keys). */
type EntryRow = ExportRow & { api_key_token_key?: string | null }
const ENTRY_SELECT = 'SELECT s.*, k.token_key AS api_key_token_key FROM searches s LEFT JOIN api_keys k ON k.id = s.api_key_id'

function toEntry(r: EntryRow): HistoryEntry {
  return {
    search_id: r.id,
    filters: r.filters && typeof r.filters === 'object' ? (r.filters as Record<string, unknown>) : {},
    created_at: new Date(r.created_at).toISOString(),
    status: (r.status ?? 'PENDING') as HistoryEntry['status'],
    progress: r.progress,
    lead_count: r.lead_count,
    credits_charged: r.credits_charged,
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
  last_exported_at: z
    .string()
    .nullable()
    .optional()
    .openapi({ format: 'date-time', description: 'Newest snapshot among the original and its fresh-data exports: leads up to it are bought.' }),
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
    query: z.object({ page: positiveIntQuery('page', 1, INT32_MAX), page_size: positiveIntQuery('page_size', 20, 100) }).strict(),
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

/** The same list at another page, on the configured public address (never the request's Host). */
function pageUrl(publicUrl: string, requestUrl: string, page: number): string {
  const asked = new URL(requestUrl)
  const u = new URL(asked.pathname + asked.search, `${publicUrl}/`)
  u.searchParams.set('page', String(page))
  return u.toString()
}

export function registerHistoryRoutes(app: OpenAPIHono<AppEnv>) {
  app.openapi(listRoute, async (c) => {
    const { page, page_size } = c.req.valid('query')
    const { db } = c.var.deps
    const userId = c.var.user.id
    const count =
      (await db.query<{ n: number }>("SELECT count(*)::int AS n FROM searches WHERE user_id = $1 AND kind = 'export'", [userId]))
        .rows[0]?.n ?? 0
    const pages = Math.max(1, Math.ceil(count / page_size))
    if (page > pages) throw notFound('Invalid page.')
    const { rows } = await db.query<EntryRow>(
      `${ENTRY_SELECT} WHERE s.user_id = $1 AND s.kind = 'export'
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
      throw new HttpError(409, { detail: `Only a failed export can be retried (status ${exists.rows[0].status}).`, code: 'conflict', status: exists.rows[0].status })
    }
    kickExports()
    return c.json({ search_id, status: 'PENDING' }, 202)
  })
}
