import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { stringify } from 'csv-stringify/sync'
import ExcelJS from 'exceljs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { Queryable } from '../src/db/db.ts'
import { writeExportFile } from '../src/jobs/export-file.ts'
import { csvField, csvSafe } from '../src/modules/exports/csv-cell.ts'
import { EXPORT_COLUMNS, fileLayout, type ExportColumn } from '../src/modules/exports/file-locale.ts'
import { createXlsxWriter } from '../src/lib/xlsx-writer.ts'
import { mulberry32 } from '../src/seed/companies.ts'
import { body, paidUser, preview, startExport, waitForExport } from './account-helpers.ts'
import { startTestService, type TestService } from './helpers.ts'

/**
 * Issue 24: the export writes its CSV rows and its XLSX sheet itself instead of through csv-stringify's
 * stream and exceljs's workbook writer (each cost more than reading the rows), from leads the database
 * sends as one text each. The CSV bytes must stay what csv-stringify wrote with the options the export
 * used (RFC 4180 quoting, CRLF line ends, `;` and lone CR/LF quoted, in `,` and `;` files) of the
 * values the driver gave; the XLSX file must read back, cell for cell, in exceljs.
 */

const ALPHABET = [
  'a',
  'Z',
  '9',
  ' ',
  '"',
  ',',
  ';',
  '\r',
  '\n',
  '\t',
  "'",
  '=',
  '+',
  '-',
  '@',
  'é',
  'ש',
  'ไ',
  '€',
  '\\',
  '\u00a0',
  '(',
  ')',
  '.',
  '/',
]

function randomCells(seed: number, n: number): (string | null)[] {
  const rand = mulberry32(seed)
  return Array.from({ length: n }, () => {
    if (rand() < 0.08) return null
    if (rand() < 0.05) return ''
    return Array.from({ length: Math.floor(rand() * 12) }, () => ALPHABET[Math.floor(rand() * ALPHABET.length)]).join('')
  })
}

describe('CSV fields written by the export', () => {
  for (const delimiter of [',', ';'] as const) {
    it(`are byte for byte what csv-stringify writes of the escaped text (${delimiter}-separated)`, () => {
      const cells = randomCells(delimiter === ',' ? 1 : 2, 4000).map((c) => c ?? '')
      const rows: string[][] = []
      for (let i = 0; i < cells.length; i += 8) rows.push(cells.slice(i, i + 8))
      const ours = rows.map((r) => `${r.map((c) => csvField(c, delimiter)).join(delimiter)}\r\n`).join('')
      const theirs = stringify(
        rows.map((r) => r.map(csvSafe)),
        { delimiter, record_delimiter: 'windows', quoted_match: /[\r\n;]/ },
      )
      expect(ours).toBe(theirs)
    })
  }
})

describe('XLSX sheets written by the export', () => {
  it('read back in exceljs cell for cell: text as text, numbers as numbers, empty cells empty', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'leads-xlsx-'))
    try {
      const file = path.join(dir, 't.xlsx')
      const texts = randomCells(3, 600).map((c) => (c === null ? null : `${c}`))
      const rows: (string | number | null)[][] = []
      for (let i = 0; i < texts.length; i += 4) rows.push([...texts.slice(i, i + 4), i % 3 ? i / 7 : null, i % 5 ? -i : null])
      // long texts, so the sheet crosses the writer's 1 MB buffers, and one row larger than a buffer
      for (let i = 0; i < rows.length; i += 10) rows[i]![0] = `${'é'.repeat(30_000)}${rows[i]![0] ?? ''}`
      rows[77]![1] = `ש${'"<&'.repeat(150_000)}`
      const header = ['a', 'b', 'c', 'd', 'n', 'm']
      const writer = createXlsxWriter(file, { sheetName: 'Leads', rightToLeft: true, header, widths: [30, 12.5, 8, 8, 10, 60] })
      for (const r of rows) await writer.addRow(r)
      await writer.finish()

      const wb = new ExcelJS.Workbook()
      await wb.xlsx.readFile(file)
      const ws = wb.worksheets[0]!
      expect(ws.name).toBe('Leads')
      expect(ws.views[0]?.rightToLeft).toBe(true)
      expect(ws.rowCount).toBe(rows.length + 1)
      expect((ws.getRow(1).values as unknown[]).slice(1)).toEqual(header)
      // XML 1.0 cannot hold control characters other than tab, LF and CR: they are left out
      const expected = (c: string | number | null) =>
        // eslint-disable-next-line no-control-regex -- what the writer leaves out
        c === null || c === '' ? null : typeof c === 'number' ? c : c.replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/g, '') || null
      for (const [i, r] of rows.entries()) {
        const got = r.map((_, j) => {
          const v = ws.getRow(i + 2).getCell(j + 1).value
          return v === undefined || v === null ? null : (v as string | number)
        })
        expect(got, `row ${i + 2}`).toEqual(r.map(expected))
      }
    } finally {
      await rm(dir, { recursive: true, force: true })
    }
  })
})

/** What a sheet says of its header row: frozen, bold, filtered over every row; the columns' widths. */
async function sheetFrame(file: string) {
  const wb = new ExcelJS.Workbook()
  await wb.xlsx.readFile(file)
  const ws = wb.worksheets[0]!
  const view = ws.views[0] as { state?: string; ySplit?: number; topLeftCell?: string }
  return {
    pane: { state: view.state, ySplit: view.ySplit, topLeftCell: view.topLeftCell },
    headerBold: [...Array(ws.columnCount).keys()].every((i) => ws.getRow(1).getCell(i + 1).font?.bold === true),
    firstRowBold: ws.getRow(2).getCell(1).font?.bold === true,
    autoFilter: ws.autoFilter,
    // the range Excel and LibreOffice filter (the workbook's name for it)
    filterDatabase: (wb.definedNames.model as { name: string; ranges: string[] }[]).find((n) => n.name === '_xlnm._FilterDatabase')?.ranges,
    widths: ws.columns.map((c) => c.width),
  }
}

describe('XLSX header row (issue 25)', () => {
  it('is frozen and bold, with an auto-filter over every row and the widths given', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'leads-xlsx-'))
    try {
      const file = path.join(dir, 'h.xlsx')
      // a sheet name that must be quoted in the filter's range, and more than 26 columns (AA, AB…)
      const header = Array.from({ length: 28 }, (_, i) => `h${i}`)
      const widths = header.map((_, i) => 8 + i)
      const writer = createXlsxWriter(file, { sheetName: "Dana's leads", rightToLeft: false, header, widths })
      for (let i = 0; i < 2500; i++) await writer.addRow(header.map((h) => `${h}-${i}`))
      await writer.finish()
      expect(await sheetFrame(file)).toEqual({
        pane: { state: 'frozen', ySplit: 1, topLeftCell: 'A2' },
        headerBold: true,
        firstRowBold: false,
        autoFilter: 'A1:AB2501',
        filterDatabase: ["'Dana''s leads'!$A$1:$AB$2501"],
        widths,
      })
    } finally {
      await rm(dir, { recursive: true, force: true })
    }
  })

  it('covers the header alone when no row follows', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'leads-xlsx-'))
    try {
      const file = path.join(dir, 'e.xlsx')
      const writer = createXlsxWriter(file, { sheetName: 'Leads', rightToLeft: false, header: ['name', 'email'], widths: [30, 40] })
      await writer.finish()
      expect(await sheetFrame(file)).toMatchObject({ autoFilter: 'A1:B1', filterDatabase: ['Leads!$A$1:$B$1'] })
    } finally {
      await rm(dir, { recursive: true, force: true })
    }
  })
})

describe('XLSX number columns given as text', () => {
  it('are numbers; text that is no finite number leaves the cell empty', async () => {
    const dir = await mkdtemp(path.join(tmpdir(), 'leads-xlsx-'))
    try {
      const file = path.join(dir, 'n.xlsx')
      const writer = createXlsxWriter(file, { sheetName: 'Leads', rightToLeft: false, header: ['name', 'n'], widths: [30, 10] })
      const values = ['12', '-3.25', '5e-05', '1e+21', 'NaN', 'Infinity', '-Infinity', '']
      for (const v of values) await writer.addRow(['x', v], [false, true])
      await writer.finish()
      const wb = new ExcelJS.Workbook()
      await wb.xlsx.readFile(file)
      const ws = wb.worksheets[0]!
      expect(values.map((_, i) => ws.getRow(i + 2).getCell(2).value ?? null)).toEqual([12, -3.25, 0.00005, 1e21, null, null, null, null])
      expect(ws.getRow(2).getCell(1).value).toBe('x')
    } finally {
      await rm(dir, { recursive: true, force: true })
    }
  })
})

/**
 * What a file holds, worked out as the export did before the database sent leads as text: the
 * columns as the driver parses them, a number written by JavaScript, the rest as text.
 */
async function expectedRows(db: Queryable, exportId: number, columns: readonly ExportColumn[], locale: string | null) {
  const ids = (
    await db.query<{ id: number }>('SELECT unnest(company_ids) AS id FROM export_leads WHERE export_id = $1 ORDER BY 1', [exportId])
  ).rows.map((r) => r.id)
  const { rows: leads } = await db.query<Record<string, string | number | null>>(
    `SELECT c.name, array_to_string(c.emails, ';') AS email, c.phone, c.website, c.instagram, c.facebook, c.address, c.zipcode,
            l3.name AS city, l2.name AS level2_location, l1.name AS level1_location, c.country_code AS country,
            array_to_string(c.category_ids, ',') AS categories, c.main_category_id AS main_category, c.rating, c.review_count,
            c.latitude, c.longitude, c.place_id,
            to_char(c.collected_at AT TIME ZONE 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"') AS collected_at
       FROM companies c JOIN level3_locations l3 ON l3.id = c.level3_id JOIN level2_locations l2 ON l2.id = c.level2_id
       JOIN level1_locations l1 ON l1.id = c.level1_id
      WHERE c.id = ANY($1::int[]) ORDER BY c.id`,
    [ids],
  )
  const names = new Map(
    (
      await db.query<{ id: number; name: string }>('SELECT id, coalesce(names ->> $1, name_en) AS name FROM categories', [locale ?? 'en'])
    ).rows.map((c) => [String(c.id), c.name]),
  )
  const numbers = new Set<ExportColumn>(['rating', 'review_count', 'latitude', 'longitude'])
  return leads.map((lead) =>
    columns.map((column): string | number | null => {
      const v = lead[column] ?? null
      if (v === null) return null
      if (numbers.has(column)) return Number(v)
      if (column === 'categories')
        return v === ''
          ? ''
          : String(v)
              .split(',')
              .map((id) => names.get(id) ?? id)
              .join(';')
      if (column === 'main_category') return names.get(String(v)) ?? String(v)
      return String(v)
    }),
  )
}

describe('export files of the database’s leads', () => {
  let svc: TestService
  let dir: string
  beforeAll(async () => {
    svc = await startTestService()
    dir = await mkdtemp(path.join(tmpdir(), 'leads-export-file-'))
    // leads that test each rule; the first ones by id, which every export below holds
    const { rows } = await svc.deps.db.query<{ id: number }>('SELECT id FROM companies ORDER BY id LIMIT 6')
    const edits: [string, unknown[]][] = [
      // U+001F separates the fields the database sends: a value holding it is read on its own
      ["name = 'Unit\u001fseparated', phone = NULL, website = '', rating = 4.0, latitude = 0.00005, longitude = '-0'", []],
      [
        'name = $2, address = $3, instagram = $4, facebook = $5, rating = NULL, latitude = -0.0000001, longitude = 1e-7',
        ['=HYPERLINK("x")', 'Line "one"\r\nline two; =1+1', '  spaced  ', '<a href="x">&amp;</a>'],
      ],
      // …and U+001E the leads of a batch: such a batch is read a lead a row
      [
        "emails = ARRAY['a@example.com', 'b@example.com'], zipcode = $2, phone = '+49 30 1234-56', facebook = $3",
        ['\u0001\u0002 control', 'Record\u001eseparated'],
      ],
    ]
    for (const [i, [set, values]] of edits.entries()) {
      await svc.deps.db.query(`UPDATE companies SET ${set} WHERE id = $1`, [rows[i]!.id, ...values])
    }
  })
  afterAll(async () => {
    await svc?.close()
    if (dir) await rm(dir, { recursive: true, force: true })
  })

  /** An export of the first `leads` companies, written by the worker: its id, file and the file's bytes. */
  async function exported(options: Record<string, unknown>, leads: number) {
    const u = await paidUser(svc, 10_000)
    const p = await preview(svc, u.access, '')
    const started = await body<{ search_id: number }>(
      await startExport(svc, u.access, { search_id: p.search_id, max_leads: leads, ...options }),
    )
    expect(await waitForExport(svc, u.access, started.search_id)).toMatchObject({ status: 'COMPLETED', processed_count: leads })
    const { rows } = await svc.deps.db.query<{ file_path: string }>('SELECT file_path FROM searches WHERE id = $1', [started.search_id])
    return { id: started.search_id, path: rows[0]!.file_path, file: await readFile(rows[0]!.file_path) }
  }

  // 2,500 leads: more than one batch on PGlite (chunks of 1,024 ids, batches of at most 2,000 leads)
  for (const [label, locale, columns] of [
    ['every column, the interface’s file', null, null],
    ['chosen columns, a comma-decimal language', 'de', ['latitude', 'name', 'rating', 'categories', 'main_category', 'city', 'phone']],
  ] as const) {
    it(`CSV, ${label}: byte for byte what the cell rules give of each lead, in id order`, async () => {
      const { id, file } = await exported({ export_format: 'csv', file_locale: locale ?? undefined, columns: columns ?? undefined }, 2500)
      const layout = fileLayout(locale, columns, null)
      const rows = await expectedRows(svc.deps.db, id, layout.columns, locale)
      expect(rows).toHaveLength(2500)
      const expected =
        (layout.bom ? '\uFEFF' : '') +
        stringify([layout.headers, ...rows.map((r) => r.map((v) => (typeof v === 'number' ? layout.decimal(v) : csvSafe(v ?? ''))))], {
          delimiter: layout.delimiter,
          record_delimiter: 'windows',
          quoted_match: /[\r\n;]/,
        })
      expect(file.toString('utf8')).toBe(expected)
      if (!locale) {
        const text = file.toString('utf8')
        expect(text).toContain('Unit\u001fseparated,,,')
        expect(text).toContain(',Record\u001eseparated,')
        expect(text).toContain(',4,') // the rating 4.0, as the driver's number gave it
        expect(text).toContain(',0.00005,0,') // 5e-05 and -0 from the database
      }
    })
  }

  it('XLSX: the same values cell for cell, text as text and numbers as numbers', async () => {
    const { id, path: file } = await exported({ export_format: 'excel', file_locale: 'he' }, 300)
    const layout = fileLayout('he', null, null)
    const rows = await expectedRows(svc.deps.db, id, EXPORT_COLUMNS, 'he')
    const wb = new ExcelJS.Workbook()
    await wb.xlsx.readFile(file)
    const ws = wb.worksheets[0]!
    expect(ws.views[0]?.rightToLeft).toBe(true)
    expect(ws.rowCount).toBe(rows.length + 1)
    expect((ws.getRow(1).values as unknown[]).slice(1)).toEqual(layout.headers)
    // issue 25: the header stays in view and filters the 300 rows under it; each column as wide as what
    // it holds, and never narrower than its header and the filter's button
    const frame = await sheetFrame(file)
    expect(frame).toMatchObject({
      pane: { state: 'frozen', ySplit: 1, topLeftCell: 'A2' },
      headerBold: true,
      autoFilter: 'A1:T301',
      filterDatabase: [`'${layout.sheetName}'!$A$1:$T$301`],
    })
    const width = Object.fromEntries(EXPORT_COLUMNS.map((c, i) => [c, frame.widths[i]]))
    expect(width).toMatchObject({ name: 30, email: 40, collected_at: 25 })
    for (const [i, header] of layout.headers.entries()) expect(frame.widths[i]).toBeGreaterThanOrEqual(header.length + 4)
    // numbers as their decimal text reads (-0 as 0); XML 1.0 cannot hold control characters other
    // than tab, LF and CR: they are left out
    const expected = (c: string | number | null) =>
      c === null || c === ''
        ? null
        : typeof c === 'number'
          ? Number(String(c))
          : // eslint-disable-next-line no-control-regex -- what the writer leaves out
            c.replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f]/g, '') || null
    for (const [i, r] of rows.entries()) {
      const got = r.map((_, j) => {
        const v = ws.getRow(i + 2).getCell(j + 1).value
        return v === undefined || v === null ? null : (v as string | number)
      })
      expect(got, `row ${i + 2}`).toEqual(r.map(expected))
    }
  })

  it('fails, writing nothing more, when a listed lead is no longer there', async () => {
    const db = svc.deps.db
    const { rows } = await db.query<{ id: number }>('SELECT id FROM companies ORDER BY id LIMIT 2')
    // a list no account owns, as the export's start writes it, holding an id no company has
    const missing = 2_000_000_001
    await db.query(
      `INSERT INTO export_leads (export_id, chunk, user_id, company_ids)
       VALUES (-1, $1::int >> 10, -1, $2::int[]), (-1, $3::int >> 10, -1, ARRAY[$3::int])`,
      [rows[0]!.id, rows.map((r) => r.id), missing],
    )
    try {
      const file = path.join(dir, 'missing.csv')
      const spec = { id: -1, lead_count: 3, export_format: 'csv', file_locale: null, columns: null, email_columns: 'joined' }
      await expect(writeExportFile(db, spec, file, async () => undefined)).rejects.toThrow('Only 2 of 3 leads could be found.')
    } finally {
      await db.query('DELETE FROM export_leads WHERE export_id = -1')
    }
  })
})
