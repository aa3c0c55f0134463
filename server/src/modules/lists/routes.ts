import { createRoute, z } from '@hono/zod-openapi'
import { openApiApp } from '../../lib/openapi-app.ts'
import {
  authErrors,
  chargedFromSchema,
  idParam,
  InsufficientCreditsSchema,
  INT32_MAX,
  jsonBody,
  jsonError,
  LANGUAGES,
  safeString,
} from '../../lib/schemas.ts'
import { authed, security } from '../auth/authed.ts'
import { csvField } from '../exports/csv-cell.ts'
import { EXPORT_COLUMNS } from '../exports/file-locale.ts'
import { refuseReadOnlyKey } from '../keys/scope.ts'
import { booleanLike } from '../search/filters.ts'
import { enrichmentQuote, startEnrichment } from './enrich.ts'
import { MAX_FILE_MB, MAX_LISTS, MAX_ROWS } from './limits.ts'
import { LIST_FIELDS } from './mapping.ts'
import {
  cancelMatching,
  confirmMapping,
  deleteList,
  listDetail,
  listLists,
  listRows,
  matchReport,
  ownList,
  reportRows,
  setRowMatch,
  uploadList,
} from './service.ts'

const TAGS = ['Lists']
const EXT = { 'x-extension': true } as const

const MappingSchema = z.object(Object.fromEntries(LIST_FIELDS.map((f) => [f, z.number().int().min(0).optional()]))).openapi('ListMapping', {
  description: 'Field → the index (from 0) of the column that holds it.',
  example: { name: 0, city: 2, website: 3 },
})

const ListSchema = z
  .object({
    id: z.number().int(),
    name: z.string(),
    status: z.enum(['uploaded', 'queued', 'matching', 'matched', 'failed', 'cancelled']),
    file_type: z.enum(['csv', 'xlsx']),
    encoding: z.string().nullable().openapi({ description: 'The text encoding detected (CSV): utf-8, utf-16le, utf-16be, windows-1252.' }),
    delimiter: z.string().nullable().openapi({ description: 'The delimiter detected (CSV).' }),
    headers: z.array(z.string()),
    proposed_mapping: MappingSchema,
    mapping: MappingSchema.nullable(),
    default_country: z.string().nullable(),
    total_rows: z.number().int(),
    matched_rows: z.number().int().openapi({ description: 'Rows the matching job has done so far (progress: matched_rows / total_rows).' }),
    error: z.string().nullable(),
    created_at: z.string().openapi({ format: 'date-time' }),
    completed_at: z.string().nullable().openapi({ format: 'date-time' }),
  })
  .openapi('List')

const ListDetailSchema = ListSchema.extend({
  preview: z.array(z.object({ row_no: z.number().int(), cells: z.array(z.string()) })).openapi({ description: 'The first 10 rows.' }),
  enrichments: z
    .array(
      z.object({
        search_id: z.number().int(),
        status: z.enum(['PENDING', 'PROCESSING', 'COMPLETED', 'FAILED']),
        lead_count: z.number().int(),
        created_at: z.string().openapi({ format: 'date-time' }),
      }),
    )
    .openapi({ description: 'The list’s enrichment exports (POST …/enrichment/), newest first: watched and downloaded like any export.' }),
}).openapi('ListDetail')

const RULES = ['domain', 'phone', 'name_city', 'manual'] as const
const RowSchema = z
  .object({
    row_no: z.number().int(),
    cells: z.array(z.string()),
    status: z.enum(['matched', 'ambiguous', 'unmatched']).nullable().openapi({ description: 'Null until the row is matched.' }),
    match: z
      .object({
        company_id: z.number().int(),
        name: z.string().nullable(),
        city: z.string().nullable(),
        street: z.string().nullable(),
        postal_code: z.string().nullable(),
        rule: z.enum(RULES),
        confidence: z.number(),
      })
      .nullable(),
    candidates: z
      .array(
        z
          .object({
            company_id: z.number().int(),
            name: z.string(),
            city: z.string().nullable(),
            street: z.string().nullable(),
            postal_code: z.string().nullable(),
            website: z.string().nullable(),
          })
          .openapi('ListCandidate'),
      )
      .openapi({ description: 'An ambiguous row’s candidates, best first (at most 5): one can be chosen with …/match/.' }),
  })
  .openapi('ListRow')

const ReportSchema = z
  .object({
    list_id: z.number().int(),
    status: z.string(),
    total_rows: z.number().int(),
    matched_rows: z.number().int(),
    matched: z.number().int(),
    ambiguous: z.number().int(),
    unmatched: z.number().int(),
    pending: z.number().int(),
    by_rule: z.object(Object.fromEntries(RULES.map((r) => [r, z.number().int()]))),
  })
  .openapi('ListReport')

const idParams = z.object({ id: idParam('id') })
const list404 = { 404: jsonError('No such list of the caller'), 400: jsonError('Invalid id') }
const conflict = { 409: jsonError('The list is not in a state that allows this (`code: conflict`, with `status`)') }

const route = <R extends Parameters<typeof createRoute>[0]>(r: R) => createRoute({ tags: TAGS, middleware: authed, security, ...EXT, ...r })

const listRoute = route({
  method: 'get',
  path: '/api/lists',
  summary: 'The account’s lists (extension `lists`)',
  responses: { 200: { description: 'Newest first', content: { 'application/json': { schema: z.array(ListSchema) } } }, ...authErrors },
})

const uploadRoute = route({
  method: 'post',
  path: '/api/lists',
  summary: 'Upload a list: a CSV or XLSX file of businesses (extension `lists`)',
  description: `multipart/form-data, at most ${MAX_FILE_MB} MB and ${MAX_ROWS} data rows, ${MAX_LISTS} lists per account. The first row names the columns; a mapping is proposed from them (in any of the 27 languages) and confirmed with PUT …/mapping/, which starts the matching. CSV: UTF-8 (with or without BOM), UTF-16 with BOM or Windows-1252; delimiter , ; tab or |. Each problem of the file is a 400 whose \`error_codes.file\` names it: \`file_empty\`, \`file_no_header\`, \`file_too_many_rows\`, \`file_too_large\`, \`file_unreadable\`, \`file_type_unsupported\`.`,
  request: {
    body: {
      required: true,
      content: {
        // a plain schema, not zod: the route reads the body itself, as a stream (a validator would buffer it)
        'multipart/form-data': {
          schema: {
            type: 'object',
            required: ['file'],
            properties: {
              file: { type: 'string', format: 'binary' },
              name: { type: 'string', maxLength: 100, description: 'Default: the file’s name.' },
              default_country: { type: 'string', description: 'Two-letter code: the country of phone numbers written without one.' },
            },
          },
        },
      },
    },
  },
  responses: {
    201: { description: 'Uploaded; the mapping waits to be confirmed', content: { 'application/json': { schema: ListDetailSchema } } },
    400: jsonError('A problem of the file (`error_codes.file`) or of a field'),
    403: jsonError('A read-only API key (`code: api_key_read_only`)'),
    409: jsonError(`The account holds ${MAX_LISTS} lists (\`code: list_limit\`, with \`limit\`)`),
    415: jsonError('Not multipart/form-data'),
    ...authErrors,
  },
})

const detailRoute = route({
  method: 'get',
  path: '/api/lists/{id}',
  summary: 'A list, its proposed and confirmed mapping and its first 10 rows',
  request: { params: idParams },
  responses: { 200: { description: 'The list', content: { 'application/json': { schema: ListDetailSchema } } }, ...list404, ...authErrors },
})

const deleteRoute = route({
  method: 'delete',
  path: '/api/lists/{id}',
  summary: 'Delete a list and its rows',
  request: { params: idParams },
  responses: {
    204: { description: 'Deleted' },
    403: jsonError('A read-only API key'),
    ...list404,
    409: jsonError('An enrichment export of the list is being written (`code: conflict`): delete it once that has finished'),
    ...authErrors,
  },
})

const mappingRoute = route({
  method: 'put',
  path: '/api/lists/{id}/mapping',
  summary: 'Confirm the mapping and start matching (free)',
  description:
    'Needs the columns of a name and a city, a website, an email address or a phone (`mapping_incomplete`). Matching runs as a job: poll the list (`matched_rows` of `total_rows`), cancel with …/cancel/.',
  request: {
    params: idParams,
    body: jsonBody(
      z
        .object({
          mapping: z.record(z.string(), z.number().int().min(0).max(INT32_MAX).nullable()),
          default_country: z
            .string()
            .refine((v) => /^[A-Z]{2}$/.test(v), { message: 'Not a two-letter country code.', params: { code: 'invalid_country_code' } })
            .nullable()
            .optional(),
        })
        .strict()
        .openapi('ListMappingRequest'),
    ),
  },
  responses: {
    202: { description: 'Matching queued', content: { 'application/json': { schema: ListSchema } } },
    403: jsonError('A read-only API key'),
    ...list404,
    400: jsonError('Unknown field, no such column, a column twice, or not enough to match by'),
    ...conflict,
    ...authErrors,
  },
})

const cancelRoute = route({
  method: 'post',
  path: '/api/lists/{id}/cancel',
  summary: 'Cancel a queued or running match',
  request: { params: idParams },
  responses: {
    200: { description: 'Cancelled; the rows matched so far keep their match', content: { 'application/json': { schema: ListSchema } } },
    403: jsonError('A read-only API key'),
    ...list404,
    ...conflict,
    ...authErrors,
  },
})

const reportRoute = route({
  method: 'get',
  path: '/api/lists/{id}/report',
  summary: 'Counts of matched, ambiguous and unmatched rows, and of the matched by rule',
  request: { params: idParams },
  responses: { 200: { description: 'The report', content: { 'application/json': { schema: ReportSchema } } }, ...list404, ...authErrors },
})

const pageQuery = safeString()
  .optional()
  .transform((v, ctx) => {
    if (v === undefined || v.trim() === '') return 1
    if (!/^\d{1,10}$/.test(v.trim()) || Number(v) < 1 || Number(v) > INT32_MAX) {
      ctx.addIssue({
        code: 'custom',
        message: `Must be an integer from 1 to ${INT32_MAX}.`,
        params: { code: 'out_of_range', min: 1, max: INT32_MAX },
      })
      return z.NEVER
    }
    return Number(v)
  })
  .openapi({ param: { name: 'page', in: 'query' }, type: 'integer', minimum: 1, default: 1 })

const rowsRoute = route({
  method: 'get',
  path: '/api/lists/{id}/rows',
  summary: 'The rows with their match, 50 a page',
  request: {
    params: idParams,
    query: z.object({ status: z.enum(['matched', 'ambiguous', 'unmatched']).optional(), page: pageQuery }),
  },
  responses: {
    200: {
      description: 'A page of rows in row order',
      content: {
        'application/json': {
          schema: z.object({ count: z.number().int(), page: z.number().int(), page_size: z.number().int(), results: z.array(RowSchema) }),
        },
      },
    },
    ...list404,
    ...authErrors,
  },
})

const rowParams = z.object({
  id: idParam('id'),
  row_no: idParam('row_no'),
})

const rowMatchRoute = route({
  method: 'put',
  path: '/api/lists/{id}/rows/{row_no}/match',
  summary: 'Match a row by hand to a company, or un-match it (company_id null)',
  request: {
    params: rowParams,
    body: jsonBody(
      z
        .object({ company_id: z.number().int().min(1).max(INT32_MAX).nullable() })
        .strict()
        .openapi('ListRowMatchRequest'),
    ),
  },
  responses: {
    200: { description: 'The row', content: { 'application/json': { schema: RowSchema } } },
    400: jsonError('Invalid id, or no such company'),
    403: jsonError('A read-only API key'),
    404: jsonError('No such list of the caller, or no such row'),
    ...conflict,
    ...authErrors,
  },
})

const reportFileRoute = route({
  method: 'get',
  path: '/api/lists/{id}/report.csv',
  summary: 'The rows with their match and confidence, as CSV',
  description:
    'Authenticated like every call (the token in the Authorization header, never in the address). Cells that a spreadsheet would run as a formula are neutralised (docs/security.md).',
  request: { params: idParams },
  responses: {
    200: { description: 'The file, as an attachment', content: { 'text/csv': { schema: z.string() } } },
    ...list404,
    ...authErrors,
  },
})

const EnrichmentQuoteSchema = z
  .object({
    list_id: z.number().int(),
    matched_rows: z.number().int(),
    companies: z.number().int().openapi({ description: 'Distinct companies the matched rows name.' }),
    owned: z.number().int().openapi({ description: 'Of those, the ones the account already has.' }),
    lead_count: z.number().int().openapi({ description: 'The companies charged.' }),
    credits_required: z.number().int(),
    keeps: z.array(z.string()).openapi({ description: 'The file’s own headers, kept with every own cell.' }),
    fills: z.array(z.enum(EXPORT_COLUMNS)).openapi({ description: 'Fields the file lacks: appended as columns, filled for matched rows.' }),
    fills_empty: z.array(z.enum(LIST_FIELDS)).openapi({ description: 'Mapped fields whose empty cells are filled.' }),
  })
  .openapi('ListEnrichmentQuote')

// absent: true, as the enrichment's body defaults it
const skipOwnedQuery = z
  .preprocess((v) => v ?? 'true', booleanLike)
  .openapi({
    param: { name: 'skip_owned', in: 'query' },
    default: 'true',
    description: 'Charge only the matched companies the account does not have yet.',
  })

const quoteRoute = route({
  method: 'get',
  path: '/api/lists/{id}/enrichment',
  summary: 'What filling in the list would cost and write (“Fill in my list”); nothing is charged',
  request: { params: idParams, query: z.object({ skip_owned: skipOwnedQuery }).strict() },
  responses: {
    200: { description: 'The price and the file’s columns', content: { 'application/json': { schema: EnrichmentQuoteSchema } } },
    ...list404,
    400: jsonError('Invalid id or skip_owned'),
    409: jsonError('The list is not matched yet (`code: conflict`, with `status`)'),
    ...authErrors,
  },
})

const enrichRoute = route({
  method: 'post',
  path: '/api/lists/{id}/enrichment',
  summary: 'Fill in the list: an export of its matched companies in the person’s own file (charges at once)',
  description:
    'Charged at start like POST /api/download-csv, 1 credit per matched company the account does not have (`skip_owned`, default) or per matched company (`skip_owned: false`); never for an unmatched or ambiguous row. The file keeps the list’s header, rows, order and every own cell, fills the empty cells of mapped fields, appends the fields it lacks (headers in `file_locale`, as exports’), and ends with `match_status`. Watched and downloaded like any export (download-status, download-completed-csv); retried at the history entry; no fresh data.',
  request: {
    params: idParams,
    body: jsonBody(
      z
        .object({
          skip_owned: z.boolean().optional().openapi({ description: 'Default true.' }),
          export_format: z.enum(['csv', 'excel']).optional().openapi({ description: 'Default csv.' }),
          file_locale: z.enum(LANGUAGES).optional().openapi({ description: 'As POST /api/download-csv.' }),
          expected_credits: z
            .number()
            .int()
            .min(0)
            .max(INT32_MAX)
            .optional()
            .openapi({ description: 'The price the person agreed to: another price now is a 409 `price_changed`, nothing charged.' }),
        })
        .strict()
        .openapi('ListEnrichmentRequest'),
      false,
    ),
  },
  responses: {
    202: {
      description: 'Queued and charged',
      content: {
        'application/json': {
          schema: z
            .object({
              search_id: z.number().int(),
              status: z.string(),
              lead_count: z.number().int(),
              credits_charged: z.number().int(),
              charged_from: chargedFromSchema('which balances paid (the credits that expire first are spent first).').optional(),
              skipped_owned: z.number().int().optional().openapi({ description: 'With skip_owned: matched companies the account has.' }),
            })
            .openapi('ListEnrichmentStarted'),
        },
      },
    },
    400: jsonError('Invalid input'),
    403: {
      description: 'Not enough credits, nothing charged; a read-only key (`code: api_key_read_only`) or a key past its monthly cap.',
      content: { 'application/json': { schema: InsufficientCreditsSchema } },
    },
    404: jsonError('No such list of the caller'),
    409: jsonError(
      'The list is not matched yet (`code: conflict`), or the price is not `expected_credits` (`code: price_changed`, with `credits_required`)',
    ),
    ...authErrors,
  },
})

/** The report file: the list's own columns, then the match of each row, streamed a batch at a time. */
function reportCsv(db: Parameters<typeof reportRows>[0], id: number, headers: string[]): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder()
  const line = (cells: string[]) => `${cells.map((c) => csvField(c, ',')).join(',')}\r\n`
  const batches = reportRows(db, id)
  let started = false
  return new ReadableStream({
    async pull(controller) {
      if (!started) {
        started = true
        // a BOM: spreadsheets then read the file as UTF-8
        controller.enqueue(
          encoder.encode(
            `\ufeff${line(['row', ...headers, 'match_status', 'company_id', 'company_name', 'company_city', 'rule', 'confidence'])}`,
          ),
        )
        return
      }
      const next = await batches.next()
      if (next.done) {
        controller.close()
        return
      }
      const text = next.value
        .map((r) =>
          line([
            String(r.row_no),
            ...headers.map((_, i) => r.cells[i] ?? ''),
            r.status ?? 'pending',
            r.company_id === null ? '' : String(r.company_id),
            r.company_name ?? '',
            r.company_city ?? '',
            r.rule ?? '',
            r.confidence === null ? '' : r.confidence.toFixed(2),
          ]),
        )
        .join('')
      controller.enqueue(encoder.encode(text))
    },
    async cancel() {
      await batches.return(undefined)
    },
  })
}

/** Extension `lists` (issue 27): upload, mapping, matching as a job, the match report. */
export function listRoutes() {
  const app = openApiApp()

  app.openapi(listRoute, async (c) => c.json(await listLists(c.var.deps.db, c.var.user.id), 200))

  app.openapi(uploadRoute, async (c) => {
    refuseReadOnlyKey(c, 'upload lists')
    const { db, config, clock } = c.var.deps
    const list = await uploadList(db, { userId: c.var.user.id, req: c.req.raw, dataDir: config.dataDir, now: clock.now() })
    return c.json(list, 201)
  })

  app.openapi(detailRoute, async (c) => {
    const { db } = c.var.deps
    return c.json(await listDetail(db, await ownList(db, c.var.user.id, c.req.valid('param').id)), 200)
  })

  app.openapi(deleteRoute, async (c) => {
    refuseReadOnlyKey(c, 'delete lists')
    await deleteList(c.var.deps.db, c.var.user.id, c.req.valid('param').id)
    return c.body(null, 204)
  })

  app.openapi(mappingRoute, async (c) => {
    refuseReadOnlyKey(c, 'match lists')
    const { db, kickLists } = c.var.deps
    const list = await confirmMapping(db, c.var.user.id, c.req.valid('param').id, c.req.valid('json'))
    kickLists()
    return c.json(list, 202)
  })

  app.openapi(cancelRoute, async (c) => {
    refuseReadOnlyKey(c, 'cancel matching')
    return c.json(await cancelMatching(c.var.deps.db, c.var.user.id, c.req.valid('param').id), 200)
  })

  app.openapi(reportRoute, async (c) => c.json(await matchReport(c.var.deps.db, c.var.user.id, c.req.valid('param').id), 200))

  app.openapi(rowsRoute, async (c) => {
    const { status, page } = c.req.valid('query')
    return c.json(await listRows(c.var.deps.db, c.var.user.id, c.req.valid('param').id, { status, page }), 200)
  })

  app.openapi(rowMatchRoute, async (c) => {
    refuseReadOnlyKey(c, 'change matches')
    const { id, row_no } = c.req.valid('param')
    return c.json(await setRowMatch(c.var.deps.db, c.var.user.id, id, row_no, c.req.valid('json').company_id), 200)
  })

  app.openapi(quoteRoute, async (c) =>
    c.json(await enrichmentQuote(c.var.deps.db, c.var.user.id, c.req.valid('param').id, c.req.valid('query').skip_owned), 200),
  )

  app.openapi(enrichRoute, async (c) => {
    refuseReadOnlyKey(c, 'fill in lists')
    const body = c.req.valid('json') ?? {}
    const { db, clock, kickExports } = c.var.deps
    const started = await startEnrichment(db, {
      userId: c.var.user.id,
      listId: c.req.valid('param').id,
      skipOwned: body.skip_owned ?? true,
      format: body.export_format ?? 'csv',
      fileLocale: body.file_locale ?? null,
      expectedCredits: body.expected_credits ?? null,
      now: clock.now(),
      apiKey: c.var.apiKey,
    })
    kickExports()
    return c.json(started, 202)
  })

  app.openapi(reportFileRoute, async (c) => {
    const { db } = c.var.deps
    const list = await ownList(db, c.var.user.id, c.req.valid('param').id)
    return new Response(reportCsv(db, list.id, list.headers), {
      status: 200,
      headers: {
        'Content-Type': 'text/csv; charset=utf-8',
        'Content-Disposition': `attachment; filename="list-${list.id}-report.csv"`,
        'Cache-Control': 'private, no-store',
        'X-Content-Type-Options': 'nosniff',
      },
    })
  })

  return app
}
