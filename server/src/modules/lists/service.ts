import { rm } from 'node:fs/promises'
import path from 'node:path'
import type { Db, Queryable } from '../../db/db.ts'
import { z } from '@hono/zod-openapi'
import { badRequest, HttpError, notFound } from '../../lib/errors.ts'
import { plainText } from '../../lib/schemas.ts'
import { zodErrorsToFields } from '../../lib/validation.ts'
import { ListFileError } from './file-errors.ts'
import { MAX_LISTS } from './limits.ts'
import { canMatch, LIST_FIELDS, proposeMapping, type ListField, type Mapping } from './mapping.ts'
import type { RowStatus, Rule } from './match.ts'
import { readTable, receiveUpload } from './upload.ts'

/** Namespace of the advisory lock that counts an account's lists one upload at a time. */
const LIST_LOCK = 27_001
/** Rows written per statement while a file is read. */
const INSERT_BATCH = 5000
/** An upload cut off by a crash leaves its list `uploading`: after this, the account's next upload removes it. */
const STALE_UPLOAD_MS = 60 * 60 * 1000

export type ListStatus = 'uploading' | 'uploaded' | 'queued' | 'matching' | 'matched' | 'failed' | 'cancelled'

export interface ListRow {
  id: number
  user_id: number
  name: string
  status: ListStatus
  file_type: 'csv' | 'xlsx'
  encoding: string | null
  delimiter: string | null
  headers: string[]
  proposed_mapping: Mapping
  mapping: Mapping | null
  default_country: string | null
  total_rows: number
  matched_rows: number
  attempts: number
  error: string | null
  created_at: Date | string
  completed_at: Date | string | null
}

const iso = (d: Date | string | null) => (d === null ? null : new Date(d).toISOString())

/** A list as the API shows it. */
export function listView(l: ListRow) {
  return {
    id: l.id,
    name: l.name,
    // `uploading` lists are never read (ownList, listLists)
    status: l.status as Exclude<ListStatus, 'uploading'>,
    file_type: l.file_type,
    encoding: l.encoding,
    delimiter: l.delimiter,
    headers: l.headers,
    proposed_mapping: l.proposed_mapping,
    mapping: l.mapping,
    default_country: l.default_country,
    total_rows: l.total_rows,
    matched_rows: l.matched_rows,
    error: l.error,
    created_at: iso(l.created_at)!,
    completed_at: iso(l.completed_at),
  }
}

/** The caller's list, or 404 (also for another account's: lists are private). */
export async function ownList(q: Queryable, userId: number, id: number): Promise<ListRow> {
  const row = (await q.query<ListRow>(`SELECT * FROM lists WHERE id = $1 AND user_id = $2 AND status <> 'uploading'`, [id, userId])).rows[0]
  if (!row) throw notFound('No such list.')
  return row
}

export async function listLists(q: Queryable, userId: number) {
  const { rows } = await q.query<ListRow>(`SELECT * FROM lists WHERE user_id = $1 AND status <> 'uploading' ORDER BY id DESC`, [userId])
  return rows.map(listView)
}

/** The form's text fields beside the file. */
const UploadFields = z.object({
  name: plainText().max(100),
  default_country: z
    .string()
    .refine((v) => /^[A-Z]{2}$/.test(v), { message: 'Not a two-letter country code.', params: { code: 'invalid_country_code' } })
    .nullable(),
})

/**
 * An upload: the file streamed to a temporary file, read as a table (read-csv.ts, read-xlsx.ts), its
 * rows written in batches to a list that stays hidden (`uploading`) until the last one is written, so
 * a file refused half-way (too many rows, an unreadable cell) leaves nothing behind.
 */
export async function uploadList(db: Db, opts: { userId: number; req: Request; dataDir: string; now: Date }) {
  const upload = await receiveUpload(opts.req, path.join(opts.dataDir, 'uploads'))
  let listId: number | null = null
  try {
    const form = UploadFields.safeParse({
      name: (upload.fields.name ?? '').trim() || upload.filename.replace(/\.[^.]*$/, '').trim() || 'List',
      default_country: (upload.fields.default_country ?? '').trim().toUpperCase() || null,
    })
    if (!form.success) throw badRequest(zodErrorsToFields(form.error))
    const { name, default_country: country } = form.data
    const table = await readTable(upload.path)
    listId = await createList(db, opts.userId, {
      name,
      fileType: table.fileType,
      encoding: table.encoding,
      delimiter: table.delimiter,
      headers: table.headers,
      mapping: proposeMapping(table.headers),
      country,
      now: opts.now,
    })
    let rowNo = 0
    let batch: string[][] = []
    const flush = async () => {
      if (!batch.length) return
      await db.query(
        `INSERT INTO list_rows (list_id, row_no, cells)
         SELECT $1, $2 + r.n, r.cells FROM jsonb_array_elements($3::jsonb) WITH ORDINALITY AS r(cells, n)`,
        [listId, rowNo - batch.length, JSON.stringify(batch)],
      )
      batch = []
    }
    for await (const row of table.rows) {
      rowNo++
      batch.push(row)
      if (batch.length >= INSERT_BATCH) await flush()
    }
    await flush()
    if (rowNo === 0) throw new ListFileError({ code: 'file_empty', message: 'The file has a header row but no data rows.' })
    const { rows } = await db.query<ListRow>(`UPDATE lists SET status = 'uploaded', total_rows = $2 WHERE id = $1 RETURNING *`, [
      listId,
      rowNo,
    ])
    return listDetail(db, rows[0]!)
  } catch (err) {
    if (listId !== null) await db.query('DELETE FROM lists WHERE id = $1', [listId]).catch(() => undefined)
    if (err instanceof ListFileError) throw err.toHttp()
    throw err
  } finally {
    await rm(upload.path, { force: true })
  }
}

async function createList(
  db: Db,
  userId: number,
  l: {
    name: string
    fileType: string
    encoding: string | null
    delimiter: string | null
    headers: string[]
    mapping: Mapping
    country: string | null
    now: Date
  },
): Promise<number> {
  return db.tx(async (q) => {
    // one upload of the account at a time passes the count, so two at once cannot both be the 20th
    await q.query('SELECT pg_advisory_xact_lock($1, $2)', [LIST_LOCK, userId])
    await q.query(`DELETE FROM lists WHERE user_id = $1 AND status = 'uploading' AND created_at < $2`, [
      userId,
      new Date(l.now.getTime() - STALE_UPLOAD_MS),
    ])
    const { rows } = await q.query<{ n: number }>('SELECT count(*)::int AS n FROM lists WHERE user_id = $1', [userId])
    if (rows[0]!.n >= MAX_LISTS) {
      throw new HttpError(409, {
        detail: `An account can hold ${MAX_LISTS} lists. Delete one first.`,
        code: 'list_limit',
        limit: MAX_LISTS,
      })
    }
    const inserted = await q.query<{ id: number }>(
      `INSERT INTO lists (user_id, name, status, file_type, encoding, delimiter, headers, proposed_mapping, default_country, created_at)
       VALUES ($1, $2, 'uploading', $3, $4, $5, $6, $7, $8, $9) RETURNING id`,
      [userId, l.name, l.fileType, l.encoding, l.delimiter, l.headers, JSON.stringify(l.mapping), l.country, l.now],
    )
    return inserted.rows[0]!.id
  })
}

/** A list with its first 10 rows (the mapping step's preview) and its enrichment exports, newest first. */
export async function listDetail(q: Queryable, list: ListRow) {
  const [{ rows }, enrichments] = await Promise.all([
    q.query<{ row_no: number; cells: string[] }>('SELECT row_no, cells FROM list_rows WHERE list_id = $1 ORDER BY row_no LIMIT 10', [
      list.id,
    ]),
    q.query<{ id: number; status: string | null; lead_count: number; created_at: Date | string }>(
      `SELECT id, status, lead_count, created_at FROM searches
        WHERE list_id = $1 AND user_id = $2 AND kind = 'export' ORDER BY id DESC`,
      [list.id, list.user_id],
    ),
  ])
  return {
    ...listView(list),
    preview: rows.map((r) => ({ row_no: r.row_no, cells: r.cells })),
    enrichments: enrichments.rows.map((e) => ({
      search_id: e.id,
      status: (e.status ?? 'PENDING') as 'PENDING' | 'PROCESSING' | 'COMPLETED' | 'FAILED',
      lead_count: e.lead_count,
      created_at: iso(e.created_at)!,
    })),
  }
}

/**
 * Confirms a mapping (validated against the list's columns) and queues the matching job; a list
 * matched before is matched again from its first row, its manual matches too.
 */
export async function confirmMapping(
  db: Db,
  userId: number,
  id: number,
  body: { mapping: Record<string, number | null>; default_country?: string | null },
) {
  const list = await ownList(db, userId, id)
  if (list.status === 'queued' || list.status === 'matching') {
    throw new HttpError(409, { detail: 'The list is being matched; cancel it first.', code: 'conflict', status: list.status })
  }
  const mapping: Mapping = {}
  const errors: Record<string, Array<{ code: 'invalid_choice' | 'duplicate_value'; message: string }>> = {}
  const used = new Set<number>()
  for (const [field, column] of Object.entries(body.mapping)) {
    if (!(LIST_FIELDS as readonly string[]).includes(field)) {
      ;(errors[`mapping.${field}`] ??= []).push({ code: 'invalid_choice', message: `Unknown field; one of ${LIST_FIELDS.join(', ')}.` })
    } else if (column !== null) {
      if (column >= list.headers.length) {
        ;(errors[`mapping.${field}`] ??= []).push({ code: 'invalid_choice', message: `The file has no column ${column}.` })
      } else if (used.has(column)) {
        ;(errors[`mapping.${field}`] ??= []).push({ code: 'duplicate_value', message: `Column ${column} is mapped twice.` })
      } else {
        used.add(column)
        mapping[field as ListField] = column
      }
    }
  }
  if (Object.keys(errors).length) throw badRequest(errors)
  if (!canMatch(mapping)) {
    throw badRequest({
      mapping: [{ code: 'mapping_incomplete', message: 'Map a name and a city, a website, an email address or a phone.' }],
    })
  }
  const country = body.default_country === undefined ? list.default_country : body.default_country
  const { rows } = await db.tx(async (q) => {
    await q.query(
      `UPDATE list_rows SET status = NULL, company_id = NULL, rule = NULL, confidence = NULL, candidates = NULL WHERE list_id = $1`,
      [id],
    )
    return q.query<ListRow>(
      `UPDATE lists SET mapping = $2, default_country = $3, status = 'queued', matched_rows = 0, attempts = 0, error = NULL,
              completed_at = NULL, due_at = now(), lease_owner = NULL, lease_until = NULL
        WHERE id = $1 AND status NOT IN ('queued', 'matching') RETURNING *`,
      [id, JSON.stringify(mapping), country],
    )
  })
  if (!rows[0]) throw new HttpError(409, { detail: 'The list is being matched; cancel it first.', code: 'conflict', status: 'matching' })
  return listView(rows[0])
}

/** Stops a queued or running match: the worker's lease goes with it, so its next write finds nothing. */
export async function cancelMatching(q: Queryable, userId: number, id: number) {
  const list = await ownList(q, userId, id)
  const { rows } = await q.query<ListRow>(
    `UPDATE lists SET status = 'cancelled', lease_owner = NULL, lease_until = NULL
      WHERE id = $1 AND status IN ('queued', 'matching') RETURNING *`,
    [id],
  )
  if (!rows[0])
    throw new HttpError(409, { detail: `The list is not being matched (status ${list.status}).`, code: 'conflict', status: list.status })
  return listView(rows[0])
}

export async function deleteList(q: Queryable, userId: number, id: number) {
  await ownList(q, userId, id)
  // an enrichment export being written reads the list's rows: it was paid for, so it finishes first
  const writing = await q.query(
    `SELECT 1 FROM searches WHERE list_id = $1 AND user_id = $2 AND kind = 'export' AND status IN ('PENDING', 'PROCESSING') LIMIT 1`,
    [id, userId],
  )
  if (writing.rows.length) {
    throw new HttpError(409, {
      detail: 'The list is being filled in: delete it once that export has finished.',
      code: 'conflict',
      status: 'enriching',
    })
  }
  // its rows go with it (ON DELETE CASCADE); its file was removed once read
  await q.query('DELETE FROM lists WHERE id = $1 AND user_id = $2', [id, userId])
}

/** Counts by status and, of the matched rows, by rule. */
export async function matchReport(q: Queryable, userId: number, id: number) {
  const list = await ownList(q, userId, id)
  const { rows } = await q.query<{ status: RowStatus | null; rule: Rule | null; n: number }>(
    'SELECT status, rule, count(*)::int AS n FROM list_rows WHERE list_id = $1 GROUP BY status, rule',
    [id],
  )
  const counts = { matched: 0, ambiguous: 0, unmatched: 0, pending: 0 }
  const byRule: Record<Rule, number> = { domain: 0, phone: 0, name_city: 0, manual: 0 }
  for (const r of rows) {
    counts[r.status ?? 'pending'] += r.n
    if (r.status === 'matched' && r.rule) byRule[r.rule] += r.n
  }
  return { list_id: id, status: list.status, total_rows: list.total_rows, matched_rows: list.matched_rows, ...counts, by_rule: byRule }
}

export const ROWS_PAGE_SIZE = 50

/** A company as a row shows it: enough for a person to tell it from the others of its name. */
interface CompanyBrief {
  company_id: number
  name: string
  city: string | null
  street: string | null
  postal_code: string | null
  website: string | null
}

interface RowWithMatch {
  row_no: number
  cells: string[]
  status: RowStatus | null
  rule: Rule | null
  confidence: number | null
  /** An ambiguous row's candidates, best first. */
  candidates: CompanyBrief[] | null
  company_id: number | null
  company_name: string | null
  company_city: string | null
  company_street: string | null
  company_postal_code: string | null
}

const ROWS_SQL = `SELECT r.row_no, r.cells, r.status, r.rule, r.confidence, r.company_id,
                         c.name AS company_name, l3.name AS company_city, c.address AS company_street, c.zipcode AS company_postal_code,
                         CASE WHEN r.candidates IS NOT NULL THEN
                           (SELECT json_agg(json_build_object('company_id', k.id, 'name', k.name, 'city', kl.name, 'street', k.address,
                                                              'postal_code', k.zipcode, 'website', k.website) ORDER BY u.n)
                              FROM unnest(r.candidates) WITH ORDINALITY AS u(id, n)
                              JOIN companies k ON k.id = u.id
                              LEFT JOIN level3_locations kl ON kl.id = k.level3_id)
                         END AS candidates
                    FROM list_rows r
                    LEFT JOIN companies c ON c.id = r.company_id
                    LEFT JOIN level3_locations l3 ON l3.id = c.level3_id`

const rowView = (r: RowWithMatch) => ({
  row_no: r.row_no,
  cells: r.cells,
  status: r.status,
  match:
    r.company_id === null || r.rule === null || r.confidence === null
      ? null
      : {
          company_id: r.company_id,
          name: r.company_name,
          city: r.company_city,
          street: r.company_street,
          postal_code: r.company_postal_code,
          rule: r.rule,
          confidence: r.confidence,
        },
  candidates: r.candidates ?? [],
})

export async function listRows(q: Queryable, userId: number, id: number, opts: { status?: RowStatus; page: number }) {
  await ownList(q, userId, id)
  const where = `r.list_id = $1${opts.status ? ' AND r.status = $4' : ''}`
  const params: unknown[] = [id, ROWS_PAGE_SIZE, (opts.page - 1) * ROWS_PAGE_SIZE, ...(opts.status ? [opts.status] : [])]
  const [{ rows }, total] = await Promise.all([
    q.query<RowWithMatch>(`${ROWS_SQL} WHERE ${where} ORDER BY r.row_no LIMIT $2 OFFSET $3`, params),
    q.query<{ n: number }>(`SELECT count(*)::int AS n FROM list_rows r WHERE ${where.replace('$4', '$2')}`, [
      id,
      ...(opts.status ? [opts.status] : []),
    ]),
  ])
  return { count: total.rows[0]!.n, page: opts.page, page_size: ROWS_PAGE_SIZE, results: rows.map(rowView) }
}

/** Un-matches a row (company_id null) or matches it by hand to a company. */
export async function setRowMatch(q: Queryable, userId: number, id: number, rowNo: number, companyId: number | null) {
  const list = await ownList(q, userId, id)
  if (list.status === 'queued' || list.status === 'matching') {
    throw new HttpError(409, { detail: 'The list is being matched; wait for it to finish.', code: 'conflict', status: list.status })
  }
  if (companyId !== null) {
    const exists = await q.query('SELECT 1 FROM companies WHERE id = $1', [companyId])
    if (!exists.rows.length) throw badRequest({ company_id: [{ code: 'invalid_id', message: 'No such company.' }] })
  }
  const { rows } = await q.query<{ row_no: number }>(
    `UPDATE list_rows SET status = $3, company_id = $4, rule = $5, confidence = $6, candidates = NULL
      WHERE list_id = $1 AND row_no = $2 RETURNING row_no`,
    [
      id,
      rowNo,
      companyId === null ? 'unmatched' : 'matched',
      companyId,
      companyId === null ? null : 'manual',
      companyId === null ? null : 1,
    ],
  )
  if (!rows.length) throw notFound('No such row.')
  const row = (await q.query<RowWithMatch>(`${ROWS_SQL} WHERE r.list_id = $1 AND r.row_no = $2`, [id, rowNo])).rows[0]!
  return rowView(row)
}

/** The report file's rows, in row order, a batch at a time (routes.ts writes them as CSV as they come). */
export async function* reportRows(q: Queryable, id: number, batch = 5000): AsyncGenerator<RowWithMatch[]> {
  for (let after = 0; ;) {
    const { rows } = await q.query<RowWithMatch>(`${ROWS_SQL} WHERE r.list_id = $1 AND r.row_no > $2 ORDER BY r.row_no LIMIT $3`, [
      id,
      after,
      batch,
    ])
    if (!rows.length) return
    yield rows
    after = rows[rows.length - 1]!.row_no
  }
}

/**
 * Suppression (issue 27, `exclude_lists` on every search: modules/search/filters.ts): the companies
 * matched by the account's lists `listIds` (matched rows, manual matches included). `sql` is the
 * condition on a companies alias `c` that leaves them out, an anti-join on `list_rows_company`;
 * `matched` selects their ids (for counting what was left out). Both take the same parameters,
 * numbered from `firstParam`. The lists are narrowed to the account's first, so lists of another
 * account match nothing even if a caller forgot to refuse them.
 */
export function listsExcludeWhere(
  listIds: number[],
  userId: number,
  firstParam: number,
): { sql: string; matched: string; params: unknown[] } {
  const lists = `ARRAY(SELECT l.id FROM lists l WHERE l.id = ANY($${firstParam}::int[]) AND l.user_id = $${firstParam + 1})`
  return {
    sql: `NOT EXISTS (SELECT 1 FROM list_rows lr WHERE lr.list_id = ANY(${lists}) AND lr.company_id = c.id AND lr.status = 'matched')`,
    matched: `SELECT lr.company_id FROM list_rows lr WHERE lr.list_id = ANY(${lists}) AND lr.status = 'matched' AND lr.company_id IS NOT NULL`,
    params: [listIds, userId],
  }
}
