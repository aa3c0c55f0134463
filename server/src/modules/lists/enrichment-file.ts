import type { Queryable } from '../../db/db.ts'
import {
  categoryNames,
  COLUMNS,
  csvFile,
  EXPORT_BATCH,
  placeJoin,
  xlsxFile,
  yieldToEventLoop,
  type Column,
  type RowWriter,
} from '../../jobs/export-file.ts'
import { fileLayout } from '../exports/file-locale.ts'
import { enrichmentPlan, FIELD_COLUMNS } from './enrich.ts'
import type { Mapping } from './mapping.ts'

/**
 * An enrichment export's file (issue 27): the person's header and rows in their order, every own
 * cell kept, a mapped field's empty cell filled from the row's company, the columns the file lacks
 * appended (headers in the export's language, exports/file-locale.ts), and `match_status` last. Rows
 * are read a batch at a time and written through the export's writers (jobs/export-file.ts: a cell a
 * spreadsheet would run as a formula neutralised, the XLSX header row styled), so memory stays flat
 * for 200,000 rows. The matches are those kept when the export was charged (enrichment_rows).
 */

/** What the file is made of: the export's row (exports/service.ts ExportRow) has these. */
export interface EnrichmentFileSpec {
  id: number
  list_id: number | null
  list_mapping: Mapping | null
  export_format: string | null
  file_locale: string | null
}

/** A column of the person's file, as the writers see it: text, about as wide as a name. */
const OWN_COLUMN: Column = { sql: '', kind: 'text', width: 24 }
const STATUS_COLUMN: Column = { sql: '', kind: 'text', width: 14 }

/**
 * Writes the file of `spec` to `file` and returns how many rows it holds. `afterBatch` is called
 * after each batch with the rows written so far and the list's rows in all: the caller reports
 * progress there, and throws to stop.
 */
export async function writeEnrichmentFile(
  db: Queryable & { kind?: 'pg' | 'pglite' },
  spec: EnrichmentFileSpec,
  file: string,
  afterBatch: (written: number, total: number) => Promise<void>,
): Promise<number> {
  const list = (
    await db.query<{ headers: string[]; total_rows: number }>('SELECT headers, total_rows FROM lists WHERE id = $1', [spec.list_id])
  ).rows[0]
  if (!list || spec.list_mapping === null) throw new Error('The list this export fills in was deleted.')
  const mapping = spec.list_mapping
  const plan = enrichmentPlan(list.headers, mapping)
  const own = list.headers.length
  // the own column each filled field writes into, and the company's value for it
  const filled = plan.fillsEmpty.map((f) => ({ at: mapping[f]!, column: COLUMNS[FIELD_COLUMNS[f]] }))
  const appended = plan.fills.map((c) => COLUMNS[c])
  const companyColumns = [...filled.map((f) => f.column), ...appended]

  const layout = fileLayout(spec.file_locale, plan.fills, null)
  const columns = [...Array.from({ length: own }, () => OWN_COLUMN), ...appended, STATUS_COLUMN]
  const full = { ...layout, headers: [...list.headers, ...layout.headers, 'match_status'] }
  const category = await categoryNames(db, spec.file_locale)
  const writer: RowWriter =
    spec.export_format === 'excel'
      ? xlsxFile(file, full, columns, category)
      : csvFile(
          file,
          full,
          columns.map((c) => c.kind),
          category,
        )

  const joins = ([1, 2, 3] as const).filter((level) => companyColumns.some((c) => c.join === level)).map(placeJoin)
  // A row's company values come as one JSON array (null for a row without a company: unmatched,
  // ambiguous, or a company removed since): one value for the driver to decode rather than twenty-odd,
  // which made most of a batch's time, and any text survives it.
  const company = `CASE WHEN c.id IS NOT NULL THEN json_build_array(${companyColumns.map((c) => `(${c.sql})::text`).join(', ')}) END`
  // A list's rows are numbered 1…total_rows (lists/service.ts uploadList): a batch is a range of them,
  // so each side of the join reads only that range, by its primary key.
  const batchSql = `SELECT r.row_no, r.cells, coalesce(e.status, 'unmatched') AS status, ${company} AS company
                      FROM list_rows r
                      LEFT JOIN enrichment_rows e ON e.export_id = $1 AND e.row_no = r.row_no AND e.row_no BETWEEN $3 AND $4
                      LEFT JOIN companies c ON c.id = e.company_id ${joins.join(' ')}
                     WHERE r.list_id = $2 AND r.row_no BETWEEN $3 AND $4 ORDER BY r.row_no`
  const size = EXPORT_BATCH[db.kind ?? 'pglite']
  // an appended column's cell of a row without a company
  const noValues = appended.map(() => '')

  let written = 0
  try {
    for (let first = 1; first <= list.total_rows; first += size) {
      const params = [spec.id, spec.list_id, first, Math.min(first + size - 1, list.total_rows)]
      const { rows } = await db.query<unknown[]>(batchSql, params, { rowMode: 'array' })
      for (let i = 0; i < rows.length; i++) {
        // the rows are written on the service's thread: a turn of its event loop every 2,000
        if (i % 2000 === 0) await yieldToEventLoop()
        const [rowNo, cells, status, values] = rows[i] as [number, string[], string, string[] | null]
        const fields = Array.from({ length: own }, (_, k) => cells[k] ?? '')
        if (values) {
          filled.forEach((f, k) => {
            if (values[k] && fields[f.at]!.trim() === '') fields[f.at] = values[k]
          })
          for (let k = filled.length; k < values.length; k++) fields.push(values[k]!)
        } else {
          fields.push(...noValues)
        }
        // the writers take a trailing id, which they drop
        fields.push(status, String(rowNo))
        const wait = writer.write(fields)
        if (wait) await wait
      }
      written += rows.length
      await afterBatch(written, list.total_rows)
    }
    if (written < list.total_rows) throw new Error(`Only ${written} of the list's ${list.total_rows} rows could be found.`)
    await writer.finish()
  } catch (err) {
    writer.abort()
    throw err
  }
  return written
}
