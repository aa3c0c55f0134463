import { createReadStream } from 'node:fs'
import { Readable } from 'node:stream'
import { createRoute, z } from '@hono/zod-openapi'
import { openApiApp } from '../../lib/openapi-app.ts'
import { rateLimit } from '../../lib/rate-limit.ts'
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
import { refuseReadOnlyKey } from '../keys/scope.ts'
import { downloadLink, exportFile } from './downloads.ts'
import { EMAIL_COLUMNS, EXPORT_COLUMNS, MAX_EMAIL_COLUMNS } from './file-locale.ts'
import { exportProgress, startExport } from './service.ts'

const StartBody = z
  .object({
    search_id: z.number().int().min(1).max(INT32_MAX).openapi({ description: 'A preview’s search_id or an earlier export’s.' }),
    export_format: z.enum(['csv', 'excel']),
    max_leads: z
      .number()
      .int()
      .min(1)
      .max(INT32_MAX)
      .nullable()
      .optional()
      .openapi({ description: 'Cap on the number of leads (and credits).' }),
    skip_owned: z.boolean().optional().openapi({
      description:
        'Extension `skip_owned`: leave out the matching leads this account already received in an earlier export (by place_id); the cap and the charge count only the others.',
      'x-extension': true,
    }),
    columns: z
      .array(z.enum(EXPORT_COLUMNS))
      .min(1)
      .max(EXPORT_COLUMNS.length)
      .superRefine((list, ctx) => {
        const seen = new Set<string>()
        for (const [i, c] of list.entries()) {
          if (seen.has(c))
            ctx.addIssue({ code: 'custom', path: [i], message: `The column ${c} is listed twice.`, params: { code: 'duplicate_value' } })
          seen.add(c)
        }
      })
      .optional()
      .openapi({
        description: 'Extension `export_columns`: the lead fields the file holds, in this order (default: all).',
        'x-extension': true,
      }),
    file_locale: z.enum(LANGUAGES).optional().openapi({
      description:
        'Extension `file_locale`: headers in this language, the CSV separator and decimal mark its spreadsheets expect (`;` and `,` where the decimal mark is a comma), a UTF-8 byte order mark; a right-to-left sheet for Hebrew.',
      'x-extension': true,
    }),
    email_columns: z
      .enum(EMAIL_COLUMNS)
      .optional()
      .openapi({
        description: `Extension \`email_columns\`: \`joined\` (default) writes a lead's emails in one cell, separated by \`;\`; \`split\` writes one per column (\`email_1\`, \`email_2\`, …; "Email 1"… in a \`file_locale\` file), as many as the most emails a lead of the export has, at most ${MAX_EMAIL_COLUMNS}: the last column holds a lead's further emails, \`;\`-joined. Kept for the export's retry and fresh-data exports.`,
        'x-extension': true,
      }),
  })
  .strict() // an unknown field (`format`, `limit`) is a 400 naming it: a misspelled cap must not export everything
  .openapi('ExportRequest')

const StartedSchema = z
  .object({
    search_id: z.number().int(),
    status: z.string(),
    lead_count: z.number().int(),
    credits_charged: z.number().int(),
    charged_from: chargedFromSchema('which balances paid (the credits that expire first are spent first).').optional(),
    skipped_owned: z
      .number()
      .int()
      .optional()
      .openapi({ description: 'With `skip_owned`: matching leads left out because the account has them.' }),
  })
  .openapi('ExportStarted')

const StatusSchema = z
  .object({
    search_id: z.number().int(),
    status: z.enum(['PENDING', 'PROCESSING', 'COMPLETED', 'FAILED']),
    progress: z.number().int().min(0).max(100),
    processed_count: z.number().int(),
    lead_count: z.number().int(),
    error: z.string().nullable(),
  })
  .openapi('ExportStatus')

const DescriptorSchema = z
  .object({
    download_url: z.string().openapi({ description: 'Signed, time-limited; carries no auth token.' }),
    filename: z.string(),
    file_size_bytes: z.number().int(),
    file_size_mb: z.number(),
    expires_at: z.string().openapi({ format: 'date-time' }),
  })
  .openapi('DownloadDescriptor')

const searchIdParams = z.object({ search_id: idParam('search_id') })

const startRoute = createRoute({
  method: 'post',
  path: '/api/download-csv',
  tags: ['Download'],
  summary: 'Start an export (charges 1 credit per lead, at once)',
  description:
    'Charged once, at start, from the credits that expire first: subscription credits expire at the period’s end, each purchased lot at its own date, lots that never expire go last (extension `credit_order`; `charged_from` says which balances paid).',
  middleware: authed,
  security,
  request: { body: jsonBody(StartBody) },
  responses: {
    202: { description: 'Queued and charged', content: { 'application/json': { schema: StartedSchema } } },
    400: jsonError('Invalid input, or nothing to export'),
    403: {
      description:
        'Not enough credits; nothing charged. Extension `scoped_api_keys`: `code: api_key_read_only` for a read-only key, `api_key_cap_reached` (with `cap`, `spent`, `required_credits`) when the key’s monthly cap would be passed.',
      content: { 'application/json': { schema: InsufficientCreditsSchema } },
    },
    404: jsonError('No such search of the caller'),
    ...authErrors,
  },
})

const statusRoute = createRoute({
  method: 'get',
  path: '/api/download-status/{search_id}',
  tags: ['Download'],
  summary: 'Progress of an export',
  middleware: authed,
  security,
  request: { params: searchIdParams },
  responses: {
    200: { description: 'Status', content: { 'application/json': { schema: StatusSchema } } },
    400: jsonError('Invalid id'),
    404: jsonError('No such export of the caller'),
    ...authErrors,
  },
})

const completedRoute = createRoute({
  method: 'get',
  path: '/api/download-completed-csv/{search_id}',
  tags: ['Download'],
  summary: 'Signed download link of a completed export',
  middleware: authed,
  security,
  request: { params: searchIdParams },
  responses: {
    200: { description: 'Download descriptor', content: { 'application/json': { schema: DescriptorSchema } } },
    400: jsonError('Invalid id'),
    404: jsonError('No such export of the caller'),
    409: jsonError('The export is not completed'),
    410: jsonError('The download link has expired'),
    ...authErrors,
  },
})

const fileRoute = createRoute({
  method: 'get',
  path: '/api/files/{search_id}',
  tags: ['Download'],
  summary: 'The export file (signed link from download-completed-csv)',
  request: {
    params: searchIdParams,
    query: z.object({
      expires: safeString()
        .regex(/^\d{1,12}$/, { message: 'Must be epoch seconds.' })
        .openapi({ description: 'Epoch seconds.' }),
      sig: safeString().max(128).openapi({ description: 'HMAC-SHA256 signature.' }),
    }),
  },
  responses: {
    200: {
      description: 'The file, as an attachment',
      content: {
        'text/csv': { schema: z.string() },
        'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet': { schema: z.string().openapi({ format: 'binary' }) },
      },
    },
    400: jsonError('Invalid input'),
    403: jsonError('Bad signature (or no such export)'),
    404: jsonError('The file is no longer on disk'),
    410: jsonError('The link has expired'),
    429: jsonError('Rate limit exceeded'),
  },
})

const CONTENT_TYPES = {
  csv: 'text/csv; charset=utf-8',
  excel: 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet',
} as const

/** Starting an export and fetching its file; fresh data and retries are asked at the history entry (modules/history/routes.ts). */
export function exportRoutes() {
  const app = openApiApp()
  // the signed file links carry no account: a budget per client address
  app.use('/api/files/*', rateLimit())

  app.openapi(startRoute, async (c) => {
    const body = c.req.valid('json')
    refuseReadOnlyKey(c, 'start an export')
    const { db, clock, kickExports } = c.var.deps
    const started = await startExport(db, {
      userId: c.var.user.id,
      searchId: body.search_id,
      format: body.export_format,
      maxLeads: body.max_leads ?? null,
      now: clock.now(),
      options: {
        skipOwned: body.skip_owned === true,
        columns: body.columns ?? null,
        fileLocale: body.file_locale ?? null,
        emailColumns: body.email_columns ?? 'joined',
      },
      apiKey: c.var.apiKey,
    })
    kickExports()
    return c.json(started, 202)
  })

  app.openapi(statusRoute, async (c) => c.json(await exportProgress(c.var.deps.db, c.var.user.id, c.req.valid('param').search_id), 200))

  app.openapi(completedRoute, async (c) => {
    const { db, clock, config } = c.var.deps
    return c.json(await downloadLink(db, config, c.var.user.id, c.req.valid('param').search_id, clock), 200)
  })

  app.openapi(fileRoute, async (c) => {
    const { db, clock, config } = c.var.deps
    const file = await exportFile(db, config.secret, c.req.valid('param').search_id, c.req.valid('query'), clock)
    const body = Readable.toWeb(createReadStream(file.path)) as ReadableStream<Uint8Array>
    return new Response(body, {
      status: 200,
      headers: {
        'Content-Type': CONTENT_TYPES[file.format],
        'Content-Length': String(file.size),
        'Content-Disposition': `attachment; filename="${file.filename.replace(/["\\\r\n]/g, '_')}"`,
        'Cache-Control': 'private, no-store',
        'X-Content-Type-Options': 'nosniff',
      },
    })
  })

  return app
}
