import { createReadStream } from 'node:fs'
import { stat } from 'node:fs/promises'
import { Readable } from 'node:stream'
import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi'
import type { AppEnv } from '../app-env.ts'
import { authed, security } from '../lib/authed.ts'
import { HttpError, gone, notFound } from '../lib/errors.ts'
import { refuseReadOnlyKey } from '../lib/key-scope.ts'
import { signDownload, startExport, verifyDownloadSignature, type ExportRow } from '../lib/exports.ts'
import { rateLimit } from '../lib/rate-limit.ts'
import { EXPORT_COLUMNS } from '../lib/file-locale.ts'
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
} from '../lib/schemas.ts'

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

export function registerExportRoutes(app: OpenAPIHono<AppEnv>) {
  const fileLimit = rateLimit()
  app.use('/api/files/*', fileLimit)

  const ownExport = async (c: { var: AppEnv['Variables'] }, id: number): Promise<ExportRow> => {
    const row = (
      await c.var.deps.db.query<ExportRow>("SELECT * FROM searches WHERE id = $1 AND user_id = $2 AND kind = 'export'", [id, c.var.user.id])
    ).rows[0]
    if (!row) throw notFound('Export not found.')
    return row
  }

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
      options: { skipOwned: body.skip_owned === true, columns: body.columns ?? null, fileLocale: body.file_locale ?? null },
      apiKey: c.var.apiKey,
    })
    kickExports()
    return c.json(started, 202)
  })

  app.openapi(statusRoute, async (c) => {
    const row = await ownExport(c, c.req.valid('param').search_id)
    return c.json(
      {
        search_id: row.id,
        status: (row.status ?? 'PENDING') as z.infer<typeof StatusSchema>['status'],
        progress: row.progress,
        processed_count: row.processed_count,
        lead_count: row.lead_count,
        error: row.error,
      },
      200,
    )
  })

  app.openapi(completedRoute, async (c) => {
    const row = await ownExport(c, c.req.valid('param').search_id)
    if (row.status !== 'COMPLETED' || !row.expires_at || !row.filename) {
      throw new HttpError(409, { detail: `The export is not completed (status ${row.status}).`, code: 'conflict', status: row.status })
    }
    const expiresAt = new Date(row.expires_at)
    if (expiresAt <= c.var.deps.clock.now()) throw gone(`The download link expired at ${expiresAt.toISOString()}.`)
    const expires = Math.floor(expiresAt.getTime() / 1000)
    const sig = signDownload(c.var.deps.config.secret, row.user_id, row.id, expires)
    // from the configured public address, never from the request's Host header
    const origin = c.var.deps.config.publicUrl
    const size = Number(row.file_size_bytes ?? 0)
    return c.json(
      {
        download_url: `${origin}/api/files/${row.id}/?expires=${expires}&sig=${sig}`,
        filename: row.filename,
        file_size_bytes: size,
        file_size_mb: Math.round((size / (1024 * 1024)) * 100) / 100,
        expires_at: expiresAt.toISOString(),
      },
      200,
    )
  })

  app.openapi(fileRoute, async (c) => {
    const { search_id } = c.req.valid('param')
    const { expires, sig } = c.req.valid('query')
    const { db, clock, config } = c.var.deps
    const row = (
      await db.query<ExportRow>("SELECT * FROM searches WHERE id = $1 AND kind = 'export' AND status = 'COMPLETED'", [search_id])
    ).rows[0]
    // An unknown id answers like a bad signature: the link must not reveal which exports exist.
    if (!row || !row.file_path || !verifyDownloadSignature(config.secret, row.user_id, row.id, Number(expires), sig)) {
      throw new HttpError(403, { detail: 'Invalid download signature.', code: 'forbidden' })
    }
    if (Number(expires) * 1000 <= clock.now().getTime() || (row.expires_at && new Date(row.expires_at) <= clock.now())) {
      throw gone('This download link has expired.')
    }
    let size: number
    try {
      size = (await stat(row.file_path)).size
    } catch {
      throw notFound('File not found.')
    }
    const format = row.export_format === 'excel' ? 'excel' : 'csv'
    const body = Readable.toWeb(createReadStream(row.file_path)) as ReadableStream<Uint8Array>
    const filename = row.filename ?? `export-${row.id}.${format === 'excel' ? 'xlsx' : 'csv'}`
    return new Response(body, {
      status: 200,
      headers: {
        'Content-Type': CONTENT_TYPES[format],
        'Content-Length': String(size),
        'Content-Disposition': `attachment; filename="${filename.replace(/["\\\r\n]/g, '_')}"`,
        'Cache-Control': 'private, no-store',
        'X-Content-Type-Options': 'nosniff',
      },
    })
  })
}
