import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { stringify } from 'csv-stringify/sync'
import ExcelJS from 'exceljs'
import { describe, expect, it } from 'vitest'
import { csvField } from '../src/jobs/export-worker.ts'
import { createXlsxWriter } from '../src/lib/xlsx-writer.ts'
import { mulberry32 } from '../src/seed/companies.ts'

/**
 * Issue 24: the export writes its CSV rows and its XLSX sheet itself instead of through csv-stringify's
 * stream and exceljs's workbook writer (each cost more than reading the rows). The CSV bytes must stay
 * what csv-stringify wrote with the options the export used (RFC 4180 quoting, CRLF line ends, `;` and
 * lone CR/LF quoted, in `,` and `;` files); the XLSX file must read back, cell for cell, in exceljs.
 */

const ALPHABET = ['a', 'Z', '9', ' ', '"', ',', ';', '\r', '\n', '\t', "'", '=', '+', '-', '@', 'é', 'ש', 'ไ', '€', '\\']

function randomCells(seed: number, n: number): (string | null)[] {
  const rand = mulberry32(seed)
  return Array.from({ length: n }, () => {
    if (rand() < 0.08) return null
    if (rand() < 0.05) return ''
    return Array.from({ length: Math.floor(rand() * 12) }, () => ALPHABET[Math.floor(rand() * ALPHABET.length)]).join('')
  })
}

describe('CSV rows written by the export', () => {
  for (const delimiter of [',', ';'] as const) {
    it(`are byte for byte what csv-stringify writes (${delimiter}-separated)`, () => {
      const cells = randomCells(delimiter === ',' ? 1 : 2, 4000)
      const rows: (string | null)[][] = []
      for (let i = 0; i < cells.length; i += 8) rows.push(cells.slice(i, i + 8))
      const ours = rows.map((r) => `${r.map((c) => csvField(c, delimiter)).join(delimiter)}\r\n`).join('')
      const theirs = stringify(rows, { delimiter, record_delimiter: 'windows', quoted_match: /[\r\n;]/ })
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
      const writer = createXlsxWriter(file, { sheetName: 'Leads', rightToLeft: true })
      writer.addRow(['a', 'b', 'c', 'd', 'n', 'm'])
      for (const r of rows) await writer.addRow(r)
      await writer.finish()

      const wb = new ExcelJS.Workbook()
      await wb.xlsx.readFile(file)
      const ws = wb.worksheets[0]!
      expect(ws.name).toBe('Leads')
      expect(ws.views[0]?.rightToLeft).toBe(true)
      expect(ws.rowCount).toBe(rows.length + 1)
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
