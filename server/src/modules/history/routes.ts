import { createRoute, z } from '@hono/zod-openapi'
import { openApiApp } from '../../lib/openapi-app.ts'
import { authErrors, chargedFromSchema, idParam, INT32_MAX, jsonBody, jsonError, plainText, safeString } from '../../lib/schemas.ts'
import { authed, security } from '../auth/authed.ts'
import { downloadDelta, retryExport } from '../exports/service.ts'
import { refuseReadOnlyKey } from '../keys/scope.ts'
import { booleanLike } from '../search/filters.ts'
import { EXPORT_STATUSES, historyEntry, historyPage, MAX_NAME, MAX_QUERY, MAX_WATCHED, updateEntry, type HistorySearch } from './service.ts'

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
    list: z.object({ id: z.number().int(), name: z.string() }).optional().openapi({
      description:
        'Extension `lists`: the list this export filled in (POST /api/lists/{id}/enrichment/); its `filters` are empty. Such exports are left out of the history list and shown with their list.',
      'x-extension': true,
    }),
  })
  .openapi('HistoryEntry')

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

/** Extension `history_search`: the list narrowed by the service, so paging and `count` stay those of the matches. */
const textQuery = safeString()
  .max(MAX_QUERY, `At most ${MAX_QUERY} characters.`)
  .optional()
  .openapi({
    param: { name: 'q', in: 'query' },
    description: `Extension \`history_search\`: exports whose name, places or categories (in any language the service knows them by) hold this text, case and accents aside, or whose number does ("12" or "#12"). At most ${MAX_QUERY} characters.`,
    'x-extension': true,
  })

const countryQuery = safeString()
  .optional()
  .transform((v, ctx) => {
    if (v === undefined || v.trim() === '') return undefined
    if (!/^[a-z]{2}$/i.test(v.trim())) {
      ctx.addIssue({ code: 'custom', message: 'Must be a two-letter country code.', params: { code: 'invalid_country_code' } })
      return z.NEVER
    }
    return v.trim().toUpperCase()
  })
  .openapi({
    param: { name: 'country', in: 'query' },
    type: 'string',
    pattern: '^[A-Za-z]{2}$',
    description: 'Extension `history_search`: exports whose filters hold this country (ISO 3166 alpha-2).',
    'x-extension': true,
  })

const statusQuery = safeString()
  .optional()
  .transform((v, ctx) => {
    if (v === undefined || v.trim() === '') return undefined
    const asked = [...new Set(v.split(',').map((s) => s.trim().toUpperCase()))]
    const unknown = asked.filter((s) => !(EXPORT_STATUSES as readonly string[]).includes(s))
    if (unknown.length > 0) {
      ctx.addIssue({
        code: 'custom',
        message: `Must be one or more of ${EXPORT_STATUSES.join(', ')}, comma-separated.`,
        params: { code: 'invalid_choice' },
      })
      return z.NEVER
    }
    return asked as HistorySearch['statuses']
  })
  .openapi({
    param: { name: 'status', in: 'query' },
    type: 'string',
    example: 'PENDING,PROCESSING',
    description: `Extension \`history_search\`: exports in one of these statuses (${EXPORT_STATUSES.join(', ')}; comma-separated).`,
    'x-extension': true,
  })

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
        q: textQuery,
        country: countryQuery,
        status: statusQuery,
      })
      .strict(),
  },
  responses: {
    200: { description: 'A page of history', content: { 'application/json': { schema: PageSchema } } },
    400: jsonError('Invalid page, page_size, or (extension `history_search`) q, country or status'),
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

/**
 * The account's exports. Fresh data for one (download-delta) and the retry of a failed one are the
 * export module's work (modules/exports/service.ts), asked for here, at the history entry's address.
 */
export function historyRoutes() {
  const app = openApiApp()

  app.openapi(listRoute, async (c) => {
    const { page, page_size, watched, q, country, status } = c.req.valid('query')
    const { db, config } = c.var.deps
    const { count, pages, entries } = await historyPage(db, c.var.user.id, {
      page,
      pageSize: page_size,
      watchedOnly: watched,
      search: { text: q, country, statuses: status },
    })
    return c.json(
      {
        count,
        next: page < pages ? pageUrl(config.publicUrl, c.req.url, page + 1) : null,
        previous: page > 1 ? pageUrl(config.publicUrl, c.req.url, page - 1) : null,
        results: entries,
      },
      200,
    )
  })

  app.openapi(entryRoute, async (c) => c.json(await historyEntry(c.var.deps.db, c.var.user.id, c.req.valid('param').search_id), 200))

  app.openapi(patchRoute, async (c) => {
    const { search_id } = c.req.valid('param')
    const body = c.req.valid('json')
    refuseReadOnlyKey(c, 'name or watch a search')
    const name = body.name === undefined ? undefined : body.name?.trim() || null
    return c.json(await updateEntry(c.var.deps.db, c.var.user.id, search_id, { name, watched: body.watched }), 200)
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
    await retryExport(db, c.var.user.id, search_id)
    kickExports()
    return c.json({ search_id, status: 'PENDING' }, 202)
  })

  return app
}
