import { once } from 'node:events'
import { createWriteStream } from 'node:fs'
import { finished } from 'node:stream/promises'
import { constants, crc32, createDeflateRaw, deflateRawSync } from 'node:zlib'

/**
 * A streaming XLSX writer for the export files (issue 24): one sheet of text and number cells under a
 * header row, written row by row into a ZIP archive as they come, in constant memory. exceljs's
 * streaming writer built a cell model per row (a 100,000-lead Excel export took 1.7 times the CSV's);
 * this writes the sheet's XML directly (strings inline, `t="inlineStr"`, so no shared-strings table
 * grows in memory; text is never a formula) and deflates it on libuv's threads. The tests read its files back with exceljs
 * (server/test/export-file.test.ts, exports.test.ts, owned-leads.test.ts).
 *
 * A sheet holds at most 1,048,576 rows (Excel's limit); so the archive never needs ZIP64.
 *
 * The header row (issue 25) is bold and frozen (it stays in view while the rows scroll), and an
 * auto-filter covers it and every row under it. The filter's range needs the number of rows, known
 * only at the end: `<autoFilter>` follows `<sheetData>` in the sheet's XML anyway, and the workbook
 * part, which names the same range `_xlnm._FilterDatabase` (LibreOffice 7.4 drops a filter without
 * that name; Excel writes it too), is written last, after the sheet.
 */

export type XlsxCell = string | number | null

export interface XlsxOptions {
  sheetName: string
  rightToLeft: boolean
  /** The first row. */
  header: readonly string[]
  /** Each column's width, in characters of the default font (the caller knows what its columns hold). */
  widths: readonly number[]
}

const XML_HEAD = '<?xml version="1.0" encoding="UTF-8" standalone="yes"?>\n'
const MAIN = 'http://schemas.openxmlformats.org/spreadsheetml/2006/main'
const RELS = 'http://schemas.openxmlformats.org/package/2006/relationships'
const DOC_RELS = 'http://schemas.openxmlformats.org/officeDocument/2006/relationships'

const ENTITY: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', '\r': '&#13;' }
// eslint-disable-next-line no-control-regex -- the control characters are what it looks for
const XML_SPECIAL = /[&<>"\r\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/
const XML_SPECIAL_ALL = new RegExp(XML_SPECIAL.source, 'g')

/**
 * Text as XML character data: the entities, a CR as a reference (a parser reads a bare one as LF), and
 * the control characters XML 1.0 cannot hold left out.
 */
const xmlText = (s: string): string => (XML_SPECIAL.test(s) ? s.replace(XML_SPECIAL_ALL, (ch) => ENTITY[ch] ?? '') : s)

/** A, B, …, Z, AA, AB, … */
function columnName(index: number): string {
  let name = ''
  for (let n = index + 1; n > 0; n = Math.floor((n - 1) / 26)) name = String.fromCharCode(65 + ((n - 1) % 26)) + name
  return name
}

const isSpace = (code: number) => code === 32 || code === 9 || code === 10 || code === 13

/** A cell's text, inline: spaces at either end are kept only when the text says so. */
const inlineString = (text: string) =>
  isSpace(text.charCodeAt(0)) || isSpace(text.charCodeAt(text.length - 1))
    ? `<is><t xml:space="preserve">${xmlText(text)}</t></is>`
    : `<is><t>${xmlText(text)}</t></is>`

/** A number as text (JavaScript's or PostgreSQL's): a finite one ends with a digit, not NaN or Infinity. */
const isFiniteText = (text: string) => {
  const last = text.charCodeAt(text.length - 1)
  return last >= 48 && last <= 57
}

/** The parts written before the sheet (the workbook's comes after it: workbookPart). */
function staticParts(): [string, string][] {
  return [
    [
      '[Content_Types].xml',
      `${XML_HEAD}<Types xmlns="http://schemas.openxmlformats.org/package/2006/content-types">` +
        '<Default Extension="rels" ContentType="application/vnd.openxmlformats-package.relationships+xml"/>' +
        '<Default Extension="xml" ContentType="application/xml"/>' +
        '<Override PartName="/xl/workbook.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.sheet.main+xml"/>' +
        '<Override PartName="/xl/worksheets/sheet1.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.worksheet+xml"/>' +
        '<Override PartName="/xl/styles.xml" ContentType="application/vnd.openxmlformats-officedocument.spreadsheetml.styles+xml"/>' +
        '</Types>',
    ],
    [
      '_rels/.rels',
      `${XML_HEAD}<Relationships xmlns="${RELS}"><Relationship Id="rId1" Type="${DOC_RELS}/officeDocument" Target="xl/workbook.xml"/></Relationships>`,
    ],
    [
      'xl/_rels/workbook.xml.rels',
      `${XML_HEAD}<Relationships xmlns="${RELS}"><Relationship Id="rId1" Type="${DOC_RELS}/worksheet" Target="worksheets/sheet1.xml"/>` +
        `<Relationship Id="rId2" Type="${DOC_RELS}/styles" Target="styles.xml"/></Relationships>`,
    ],
    [
      'xl/styles.xml',
      `${XML_HEAD}<styleSheet xmlns="${MAIN}"><fonts count="2"><font><sz val="11"/><name val="Calibri"/></font>` +
        '<font><b/><sz val="11"/><name val="Calibri"/></font></fonts>' +
        '<fills count="2"><fill><patternFill patternType="none"/></fill><fill><patternFill patternType="gray125"/></fill></fills>' +
        '<borders count="1"><border><left/><right/><top/><bottom/><diagonal/></border></borders>' +
        '<cellStyleXfs count="1"><xf numFmtId="0" fontId="0" fillId="0" borderId="0"/></cellStyleXfs>' +
        // style 1: the header's bold
        '<cellXfs count="2"><xf numFmtId="0" fontId="0" fillId="0" borderId="0" xfId="0"/>' +
        '<xf numFmtId="0" fontId="1" fillId="0" borderId="0" xfId="0" applyFont="1"/></cellXfs>' +
        '<cellStyles count="1"><cellStyle name="Normal" xfId="0" builtinId="0"/></cellStyles></styleSheet>',
    ],
  ]
}

/** The workbook, naming the auto-filter's range: `'Leads'!$A$1:$T$301`. */
function workbookPart(sheetName: string, filterRange: string): string {
  const sheet = `'${sheetName.replace(/'/g, "''")}'`
  return (
    `${XML_HEAD}<workbook xmlns="${MAIN}" xmlns:r="${DOC_RELS}"><sheets><sheet name="${xmlText(sheetName)}" sheetId="1" r:id="rId1"/></sheets>` +
    `<definedNames><definedName name="_xlnm._FilterDatabase" localSheetId="0" hidden="1">${xmlText(`${sheet}!${filterRange}`)}</definedName></definedNames></workbook>`
  )
}

/** DOS date and time of `d` (local time, as ZIP tools read it). */
function dosTime(d: Date): { time: number; date: number } {
  return {
    time: (d.getHours() << 11) | (d.getMinutes() << 5) | Math.floor(d.getSeconds() / 2),
    date: ((Math.max(1980, d.getFullYear()) - 1980) << 9) | ((d.getMonth() + 1) << 5) | d.getDate(),
  }
}

interface Entry {
  name: Buffer
  crc: number
  compressed: number
  size: number
  offset: number
}

export interface XlsxWriter {
  /**
   * Adds a row under the header (and those before). A promise only when the caller must wait (deflate
   * is behind). `numeric` marks the columns whose text cells hold numbers (as JavaScript or PostgreSQL
   * writes them), written as numbers.
   */
  addRow(cells: readonly XlsxCell[], numeric?: readonly boolean[]): Promise<void> | void
  finish(): Promise<void>
  /** Closes the file unfinished (the caller removes it). */
  abort(): void
}

export function createXlsxWriter(file: string, options: XlsxOptions): XlsxWriter {
  // large buffers: with the defaults (16 KB) every 64 KB of rows waited for the disk or for deflate
  const out = createWriteStream(file, { highWaterMark: 4 << 20 })
  const failed = new Promise<never>((_, reject) => out.once('error', reject))
  failed.catch(() => undefined)
  const stamp = dosTime(new Date())
  const entries: Entry[] = []
  let offset = 0
  const put = (b: Buffer) => {
    offset += b.length
    return out.write(b)
  }

  const localHeader = (name: Buffer, known?: { crc: number; compressed: number; size: number }) => {
    const h = Buffer.alloc(30)
    h.writeUInt32LE(0x04034b50, 0)
    h.writeUInt16LE(20, 4) // version needed: 2.0 (deflate)
    h.writeUInt16LE(known ? 0x0800 : 0x0808, 6) // UTF-8 names; bit 3: sizes in a descriptor after the data
    h.writeUInt16LE(8, 8) // deflate
    h.writeUInt16LE(stamp.time, 10)
    h.writeUInt16LE(stamp.date, 12)
    h.writeUInt32LE(known?.crc ?? 0, 14)
    h.writeUInt32LE(known?.compressed ?? 0, 18)
    h.writeUInt32LE(known?.size ?? 0, 22)
    h.writeUInt16LE(name.length, 26)
    h.writeUInt16LE(0, 28)
    return Buffer.concat([h, name])
  }

  // the small parts, deflated at once
  const putPart = (path: string, text: string) => {
    const data = Buffer.from(text, 'utf8')
    const deflated = deflateRawSync(data)
    const entry = { name: Buffer.from(path, 'utf8'), crc: crc32(data), compressed: deflated.length, size: data.length, offset }
    put(localHeader(entry.name, entry))
    put(deflated)
    entries.push(entry)
  }
  for (const [path, text] of staticParts()) putPart(path, text)

  // the sheet, streamed through deflate on libuv's threads (level 1, zlib's largest memory level: at
  // 100,000 leads little more than half the CPU of level 3, itself twice as fast as the default, for
  // 6 % more bytes)
  const sheet: Entry = { name: Buffer.from('xl/worksheets/sheet1.xml', 'utf8'), crc: 0, compressed: 0, size: 0, offset }
  put(localHeader(sheet.name))
  const deflate = createDeflateRaw({ level: 1, memLevel: 9, strategy: constants.Z_DEFAULT_STRATEGY, chunkSize: 256 << 10 })
  deflate.on('data', (chunk: Buffer) => {
    sheet.compressed += chunk.length
    if (!put(chunk)) {
      deflate.pause()
      out.once('drain', () => deflate.resume())
    }
  })
  deflate.once('error', (err) => out.destroy(err))
  const deflated = once(deflate, 'end')
  deflated.catch(() => undefined)

  // The XML is encoded a row at a time into a buffer of 1 MB, handed to deflate when full: one string
  // of many rows, encoded at once, cost more to flatten and encode than building it.
  let chunk = Buffer.allocUnsafe(1 << 20)
  const view =
    `<sheetView workbookViewId="0"${options.rightToLeft ? ' rightToLeft="1"' : ''}>` +
    // the header row frozen: the rows scroll under it
    '<pane ySplit="1" topLeftCell="A2" activePane="bottomLeft" state="frozen"/><selection pane="bottomLeft" activeCell="A2" sqref="A2"/></sheetView>'
  const cols = options.widths.map((w, i) => `<col min="${i + 1}" max="${i + 1}" width="${w}" customWidth="1"/>`).join('')
  const header = options.header.map((h, i) => (h === '' ? '' : `<c r="${columnName(i)}1" s="1" t="inlineStr">${inlineString(h)}</c>`))
  let used = chunk.write(
    `${XML_HEAD}<worksheet xmlns="${MAIN}" xmlns:r="${DOC_RELS}"><sheetViews>${view}</sheetViews>` +
      // the default row height said: without it LibreOffice freezes two rows (it places the pane by height)
      `<sheetFormatPr defaultRowHeight="15"/><cols>${cols}</cols><sheetData><row r="1">${header.join('')}</row>`,
  )
  const send = async (data: Buffer) => {
    sheet.crc = crc32(data, sheet.crc)
    sheet.size += data.length
    if (sheet.size > 0xffffffff) throw new Error('The sheet is too large for an XLSX file.')
    // waits only when deflate is well behind (its own mark, 16 KB, would stop at every chunk)
    deflate.write(data)
    if (deflate.writableLength > 8 << 20) await Promise.race([once(deflate, 'drain'), failed])
  }
  const sendChunk = () => {
    const data = chunk.subarray(0, used)
    chunk = Buffer.allocUnsafe(chunk.length)
    used = 0
    return send(data)
  }
  const sendThen = async (xml: string) => {
    await sendChunk()
    if (xml.length * 3 <= chunk.length) used += chunk.write(xml, used)
    else await send(Buffer.from(xml, 'utf8'))
  }
  /** A promise only when the chunk was full (a UTF-16 unit takes at most 3 bytes of UTF-8). */
  const write = (xml: string) => (chunk.length - used >= xml.length * 3 ? void (used += chunk.write(xml, used)) : sendThen(xml))

  // rows written, the header's included
  let rows = 1

  // each column's `<c r="B` (the row number follows)
  const cellStarts: string[] = []
  return {
    addRow(cells, numeric) {
      if (rows >= 1_048_576) throw new Error('An XLSX sheet holds at most 1,048,576 rows.')
      const row = String(++rows)
      let xml = `<row r="${row}">`
      for (let i = 0; i < cells.length; i++) {
        const cell = cells[i]!
        if (cell === null || cell === '') continue
        // every cell names its place: Excel would place one without `r` after the last, but several
        // readers (ClosedXML, EPPlus, some streaming ones) cannot
        const start = (cellStarts[i] ??= `<c r="${columnName(i)}`)
        if (typeof cell === 'number' || numeric?.[i]) {
          if (typeof cell === 'number' ? Number.isFinite(cell) : isFiniteText(cell)) xml += `${start}${row}"><v>${cell}</v></c>`
        } else if (isSpace(cell.charCodeAt(0)) || isSpace(cell.charCodeAt(cell.length - 1))) {
          // inlineString's rule written out: a call per cell cost the sheet about 4 % more CPU
          xml += `${start}${row}" t="inlineStr"><is><t xml:space="preserve">${xmlText(cell)}</t></is></c>`
        } else {
          xml += `${start}${row}" t="inlineStr"><is><t>${xmlText(cell)}</t></is></c>`
        }
      }
      return write(`${xml}</row>`)
    },
    async finish() {
      const lastColumn = columnName(options.header.length - 1)
      await write(`</sheetData><autoFilter ref="A1:${lastColumn}${rows}"/></worksheet>`)
      await sendChunk()
      deflate.end()
      await Promise.race([deflated, failed])
      // the sheet's descriptor, then the central directory
      const descriptor = Buffer.alloc(16)
      descriptor.writeUInt32LE(0x08074b50, 0)
      descriptor.writeUInt32LE(sheet.crc >>> 0, 4)
      descriptor.writeUInt32LE(sheet.compressed, 8)
      descriptor.writeUInt32LE(sheet.size, 12)
      put(descriptor)
      entries.push(sheet)
      putPart('xl/workbook.xml', workbookPart(options.sheetName, `$A$1:$${lastColumn}$${rows}`))
      const directoryAt = offset
      for (const e of entries) {
        const h = Buffer.alloc(46)
        h.writeUInt32LE(0x02014b50, 0)
        h.writeUInt16LE(20, 4) // made by: 2.0
        h.writeUInt16LE(20, 6)
        h.writeUInt16LE(e === sheet ? 0x0808 : 0x0800, 8)
        h.writeUInt16LE(8, 10)
        h.writeUInt16LE(stamp.time, 12)
        h.writeUInt16LE(stamp.date, 14)
        h.writeUInt32LE(e.crc >>> 0, 16)
        h.writeUInt32LE(e.compressed, 20)
        h.writeUInt32LE(e.size, 24)
        h.writeUInt16LE(e.name.length, 28)
        h.writeUInt32LE(e.offset, 42)
        put(Buffer.concat([h, e.name]))
      }
      const end = Buffer.alloc(22)
      end.writeUInt32LE(0x06054b50, 0)
      end.writeUInt16LE(entries.length, 8)
      end.writeUInt16LE(entries.length, 10)
      end.writeUInt32LE(offset - directoryAt, 12)
      end.writeUInt32LE(directoryAt, 16)
      put(end)
      out.end()
      await Promise.race([finished(out), failed])
    },
    abort() {
      deflate.destroy()
      out.destroy()
    },
  }
}
