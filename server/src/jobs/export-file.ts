import { once } from 'node:events'
import { createWriteStream } from 'node:fs'
import { finished } from 'node:stream/promises'
import type { Queryable } from '../db/db.ts'
import { csvField } from '../modules/exports/csv-cell.ts'
import { fileLayout, MAX_EMAIL_COLUMNS, type ExportColumn, type FileLayout } from '../modules/exports/file-locale.ts'
import { createXlsxWriter } from '../lib/xlsx-writer.ts'

/**
 * An export's file (issue 24): exactly the leads fixed when it was charged (`export_leads`), in id
 * order, as CSV or XLSX, read and written a batch at a time so memory stays flat whatever its size.
 *
 * What made it cost several times a `COPY` of the same rows was the work per cell in this thread: the
 * driver building twenty-odd values per lead, then a function call, an escape and a string per cell.
 * Now the database sends a batch as one text, a lead's fields joined by U+001F (numbers, dates and
 * place names already text), so a lead is one `split`; a field that needs nothing (most) is written
 * as it came, and a CSV line is one `join`.
 */

/**
 * Leads per query. Larger on a PostgreSQL server; on the embedded database one query holds up every
 * other request while it runs (PGlite has one connection), so there a batch stays short.
 */
export const EXPORT_BATCH = { pg: 10_000, pglite: 2_000 } as const

/** What the file is made of: the export's row (modules/exports/service.ts ExportRow) has these. */
export interface ExportFileSpec {
  id: number
  lead_count: number
  export_format: string | null
  file_locale: string | null
  columns: unknown
  /** Extension `email_columns`: `split` writes one email per column. */
  email_columns: string
}

/** Between the fields of a lead as the database sends them (U+001F, unit separator)… */
const FIELDS = '\x1f'
/** …and between the leads of a batch (U+001E, record separator). */
const LEADS = '\x1e'

export type Kind = 'text' | 'number' | 'category' | 'categories'

export const placeJoin = (level: 1 | 2 | 3) => `LEFT JOIN level${level}_locations l${level} ON l${level}.id = c.level${level}_id`

export interface Column {
  sql: string
  kind: Kind
  join?: 1 | 2 | 3
  /**
   * The width of its XLSX column, in characters: about what nine values in ten of the seeded data fit
   * (a longer one wraps into the next cell's room, or is cut at the border when that cell is full).
   * Set once, so the file needs no second pass over its rows.
   */
  width: number
}

/**
 * Each column as the database writes it (never NULL: concat_ws would leave the field out) and what is
 * done with it here. Numbers are written as JavaScript writes them, as when the driver parsed them:
 * PostgreSQL writes a float8 with the same shortest digits (numeric ratings go through float8: `4.0`
 * → `4`), except for exponents and -0 (numberText).
 */
export const COLUMNS: Record<ExportColumn, Column> = {
  name: { sql: 'c.name', kind: 'text', width: 30 },
  email: { sql: "array_to_string(c.emails, ';')", kind: 'text', width: 40 },
  phone: { sql: "coalesce(c.phone, '')", kind: 'text', width: 18 },
  website: { sql: "coalesce(c.website, '')", kind: 'text', width: 40 },
  instagram: { sql: "coalesce(c.instagram, '')", kind: 'text', width: 40 },
  facebook: { sql: "coalesce(c.facebook, '')", kind: 'text', width: 40 },
  address: { sql: "coalesce(c.address, '')", kind: 'text', width: 30 },
  zipcode: { sql: "coalesce(c.zipcode, '')", kind: 'text', width: 10 },
  city: { sql: "coalesce(l3.name, '')", kind: 'text', join: 3, width: 16 },
  level2_location: { sql: "coalesce(l2.name, '')", kind: 'text', join: 2, width: 20 },
  level1_location: { sql: "coalesce(l1.name, '')", kind: 'text', join: 1, width: 20 },
  country: { sql: 'c.country_code', kind: 'text', width: 8 },
  // names in the file's language, looked up here (a subquery per row cost the database more)
  categories: { sql: "array_to_string(c.category_ids, ',')", kind: 'categories', width: 36 },
  main_category: { sql: 'c.main_category_id', kind: 'category', width: 22 },
  rating: { sql: "coalesce(c.rating::float8::text, '')", kind: 'number', width: 8 },
  review_count: { sql: 'c.review_count', kind: 'number', width: 8 },
  latitude: { sql: 'c.latitude', kind: 'number', width: 12 },
  longitude: { sql: 'c.longitude', kind: 'number', width: 12 },
  place_id: { sql: 'c.place_id', kind: 'text', width: 30 },
  collected_at: { sql: `to_char(c.collected_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`, kind: 'text', width: 25 },
}

/**
 * A lead's emails one per column (extension `email_columns`), in their stored order: the n-th email in
 * the n-th column, empty when it has fewer; the last column holds its last emails, `;`-joined as the
 * one cell of a plain file, when it has more than `count` (nothing paid for is left out).
 */
const emailColumns = (count: number): Column[] =>
  Array.from({ length: count }, (_, i) => ({
    sql: i + 1 < count ? `coalesce(c.emails[${i + 1}], '')` : `array_to_string(c.emails[${count}:], ';')`,
    kind: 'text',
    width: 32,
  }))

/**
 * How many email columns a split file has: as many as the most emails a lead of the export has, at
 * least one, at most MAX_EMAIL_COLUMNS. One aggregate over the export's leads before the file is
 * written (its header names them): about 0.2 s for 100,000 leads on PostgreSQL, 1.4 s for 1,000,000.
 */
async function emailColumnCount(db: Queryable, exportId: number): Promise<number> {
  const { rows } = await db.query<{ n: number }>(
    `SELECT coalesce(max(cardinality(c.emails)), 0)::int AS n
       FROM export_leads e CROSS JOIN unnest(e.company_ids) AS l(id) JOIN companies c ON c.id = l.id
      WHERE e.export_id = $1`,
    [exportId],
  )
  return Math.min(MAX_EMAIL_COLUMNS, Math.max(1, rows[0]!.n))
}

/** A column's XLSX width: room for its header and the filter's button too, at most 60 characters. */
const columnWidth = (column: Column, header: string) => Math.min(60, Math.max(column.width, header.length + 4))

/**
 * The export's leads in batches of whole `export_leads` rows (ranges of 1,024 company ids) of about
 * `size` leads: chunks first to last, and how many leads each batch lists.
 */
async function batchesOf(db: Queryable, exportId: number, size: number) {
  const { rows } = await db.query<{ chunk: number; n: number }>(
    'SELECT chunk, cardinality(company_ids) AS n FROM export_leads WHERE export_id = $1 ORDER BY chunk',
    [exportId],
  )
  const batches: { first: number; last: number; leads: number }[] = []
  for (const { chunk, n } of rows) {
    const open = batches.at(-1)
    if (open && open.leads + n <= size) {
      open.last = chunk
      open.leads += n
    } else {
      batches.push({ first: chunk, last: chunk, leads: n })
    }
  }
  return batches
}

/** `5e-05` → `0.00005`, `-0` → `0`: PostgreSQL's text of a float8 as JavaScript's String writes that number. */
const numberText = (text: string) => (text.includes('e') || text === '-0' ? String(Number(text)) : text)

/** A lead's fields in the layout's order, then its id. */
type Fields = string[]

export interface RowWriter {
  /** Writes a lead's fields (it may change the array). A promise only when the caller must wait (the file stream is full). */
  write(fields: Fields): Promise<void> | void
  finish(): Promise<void>
  /** Closes the file unfinished (the caller removes it). */
  abort(): void
}

export function csvFile(file: string, layout: FileLayout, kinds: Kind[], category: (id: string) => string): RowWriter {
  // a large buffer: with the default (16 KB) every 64 KB of rows waited for the disk
  const out = createWriteStream(file, { highWaterMark: 4 << 20 })
  // comma-separated, CRLF line ends, UTF-8, one header row; a file for a comma-decimal language is
  // `;`-separated with comma decimals and starts with a byte order mark
  const { delimiter } = layout
  // the file's decimal mark: `.` or `,`
  const mark = layout.decimal(0.5).charAt(1)
  const failed = new Promise<never>((_, reject) => out.once('error', reject))
  failed.catch(() => undefined)
  // the main category's field, once per category
  const categoryFields = new Map<string, string>()
  let text = `${layout.bom ? '\uFEFF' : ''}${layout.headers.map((h) => csvField(h, delimiter)).join(delimiter)}\r\n`
  // written about 1 MB at a time, waiting when the file stream is full
  const flush = async () => {
    const full = !out.write(text)
    text = ''
    if (full) await Promise.race([once(out, 'drain'), failed])
  }
  return {
    write(fields) {
      fields.pop()
      for (let i = 0; i < fields.length; i++) {
        const value = fields[i]!
        switch (kinds[i]) {
          case 'text':
            fields[i] = csvField(value, delimiter)
            break
          // the service's own numbers: with the file's decimal mark, never escaped
          case 'number':
            fields[i] = mark === '.' ? numberText(value) : numberText(value).replace('.', mark)
            break
          case 'category': {
            let field = categoryFields.get(value)
            if (field === undefined) categoryFields.set(value, (field = csvField(category(value), delimiter)))
            fields[i] = field
            break
          }
          case 'categories':
            fields[i] = csvField(categoryList(value, category), delimiter)
            break
        }
      }
      text += `${fields.join(delimiter)}\r\n`
      return text.length >= 1 << 20 ? flush() : undefined
    },
    async finish() {
      await flush()
      out.end()
      await Promise.race([finished(out), failed])
    },
    abort: () => out.destroy(),
  }
}

export function xlsxFile(file: string, layout: FileLayout, columns: Column[], category: (id: string) => string): RowWriter {
  // streamed into the archive as rows come: memory stays bounded (lib/xlsx-writer.ts)
  const sheet = createXlsxWriter(file, {
    sheetName: layout.sheetName,
    rightToLeft: layout.rtl,
    header: layout.headers,
    widths: columns.map((c, i) => columnWidth(c, layout.headers[i]!)),
  })
  const kinds = columns.map((c) => c.kind)
  // numbers go as text, as JavaScript writes them (no parsing and writing them again here)
  const numeric = kinds.map((k) => k === 'number')
  return {
    write(fields) {
      fields.pop()
      for (let i = 0; i < fields.length; i++) {
        if (kinds[i] === 'number') fields[i] = numberText(fields[i]!)
        else if (kinds[i] === 'category') fields[i] = category(fields[i]!)
        else if (kinds[i] === 'categories') fields[i] = categoryList(fields[i]!, category)
      }
      return sheet.addRow(fields, numeric)
    },
    finish: () => sheet.finish(),
    abort: () => sheet.abort(),
  }
}

/** `3,17` → the names of categories 3 and 17, joined by `;` (a category without a row: its id). */
const categoryList = (ids: string, category: (id: string) => string) => (ids === '' ? '' : ids.split(',').map(category).join(';'))

export const yieldToEventLoop = () => new Promise<void>((resolve) => setImmediate(resolve))

/** Category id → its name in the file's language when it has one (the interface's file: English); a category without a row: its id. */
export async function categoryNames(db: Queryable, locale: string | null): Promise<(id: string) => string> {
  const { rows } = await db.query<{ id: number; name: string }>('SELECT id, coalesce(names ->> $1, name_en) AS name FROM categories', [
    locale ?? 'en',
  ])
  const names = new Map(rows.map((c) => [String(c.id), c.name]))
  return (id) => names.get(id) ?? id
}

/**
 * Writes the file of `spec` to `file` and returns how many leads it holds (its `lead_count`).
 * `afterBatch` is called after each batch with the leads written so far: the caller reports progress
 * there, and throws to stop.
 */
export async function writeExportFile(
  db: Queryable & { kind?: 'pg' | 'pglite' },
  spec: ExportFileSpec,
  file: string,
  afterBatch: (written: number) => Promise<void>,
): Promise<number> {
  const emails = spec.email_columns === 'split' ? await emailColumnCount(db, spec.id) : null
  const layout = fileLayout(spec.file_locale, spec.columns as ExportColumn[] | null, emails)
  const columns = layout.columns.flatMap((c) => (c === 'email' && emails !== null ? emailColumns(emails) : [COLUMNS[c]]))
  const kinds = columns.map((c) => c.kind)
  const from = `FROM companies c ${([1, 2, 3] as const)
    .filter((level) => columns.some((c) => c.join === level))
    .map(placeJoin)
    .join(' ')}`
  const exprs = columns.map((c) => c.sql)
  const line = `concat_ws(E'\\x1f', ${[...exprs, 'c.id'].join(', ')})`
  const listed = 'c.id = ANY(ARRAY(SELECT unnest(company_ids) FROM export_leads WHERE export_id = $1 AND chunk BETWEEN $2 AND $3))'
  // A batch is one text (one value to decode, and a string V8 keeps out of its young generation,
  // which had copied each batch's thousands of values at every collection). Only a value holding one
  // of the separators itself can upset the split: such a batch is asked again a lead a row, such a
  // lead field by field. The id goes last, so it stays whole.
  const batchSql = `SELECT count(*)::int, string_agg(${line}, E'\\x1e' ORDER BY c.id) ${from} WHERE ${listed}`
  const rowsSql = `SELECT ${line} ${from} WHERE ${listed} ORDER BY c.id`
  const fieldsSql = `SELECT ${exprs.map((e) => `(${e})::text`).join(', ')} ${from} WHERE c.id = $1`
  const fieldsOf = async (id: string): Promise<Fields> => {
    const { rows } = await db.query<string[]>(fieldsSql, [id], { rowMode: 'array' })
    return [...rows[0]!, id]
  }

  const category = await categoryNames(db, spec.file_locale)

  const batches = await batchesOf(db, spec.id, EXPORT_BATCH[db.kind ?? 'pglite'])
  const read = async (b: number): Promise<string[]> => {
    const params = [spec.id, batches[b]!.first, batches[b]!.last]
    const [count, text] = (await db.query<[number, string | null]>(batchSql, params, { rowMode: 'array' })).rows[0]!
    const leads = text === null ? [] : text.split(LEADS)
    if (leads.length === count) return leads
    return (await db.query<[string]>(rowsSql, params, { rowMode: 'array' })).rows.map((r) => r[0])
  }
  const writer = spec.export_format === 'excel' ? xlsxFile(file, layout, columns, category) : csvFile(file, layout, kinds, category)
  let done = 0
  // the next batch is read while this one is written
  let reading = batches.length ? read(0) : null
  try {
    for (let b = 0; reading && done < spec.lead_count; b++) {
      const leads = await reading
      if (leads.length < batches[b]!.leads) throw new Error(`Only ${done + leads.length} of ${spec.lead_count} leads could be found.`)
      reading = b + 1 < batches.length ? read(b + 1) : null
      reading?.catch(() => undefined) // awaited on the next turn
      const count = Math.min(leads.length, spec.lead_count - done)
      for (let i = 0; i < count; i++) {
        // the rows are written on the service's thread: a turn of its event loop every 2,000
        if (i % 2000 === 0) await yieldToEventLoop()
        let fields = leads[i]!.split(FIELDS)
        if (fields.length !== kinds.length + 1) fields = await fieldsOf(fields.at(-1)!)
        const wait = writer.write(fields)
        if (wait) await wait
      }
      done += count
      await afterBatch(done)
    }
    if (done < spec.lead_count) throw new Error(`Only ${done} of ${spec.lead_count} leads could be found.`)
    await writer.finish()
  } catch (err) {
    writer.abort()
    throw err
  }
  return done
}
