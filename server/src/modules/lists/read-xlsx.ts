import { SaxesParser, type SaxesTagPlain } from 'saxes'
import yauzl, { type Entry, type ZipFile } from 'yauzl'
import { fileError, ListFileError } from './file-errors.ts'
import { MAX_CELL_BYTES, MAX_COLUMNS, MAX_SHARED_STRINGS_BYTES, MAX_SHEET_XML_BYTES, MAX_SMALL_PART_BYTES } from './limits.ts'

/**
 * The first sheet of an XLSX workbook, row by row, in bounded memory: yauzl reads the zip (each part
 * cut off at the size its directory declares, which must stay under our limits: a zip bomb is refused
 * before anything is unpacked) and saxes the XML as it streams. Cells are read as their text: shared
 * and inline strings, numbers as written, booleans; an error cell (#REF!, #N/A) is unreadable.
 * (exceljs, with which the service writes XLSX, unpacks with no bound on the unpacked size.) saxes
 * expands no entities a document declares itself (no "billion laughs").
 */

const xmlName = (node: SaxesTagPlain) => node.name.replace(/^.*:/, '')

type XmlHandlers = { open?: (n: SaxesTagPlain) => void; text?: (t: string) => void; close?: (n: SaxesTagPlain) => void }

/** One zip entry parsed as XML as it streams, the handlers seeing it; yields after each chunk (a reader takes what they collected). */
async function* xmlSteps(zip: ZipFile, entry: Entry, handlers: XmlHandlers): AsyncGenerator<void> {
  const parser = new SaxesParser()
  if (handlers.open) parser.on('opentag', handlers.open)
  if (handlers.text) parser.on('text', handlers.text)
  if (handlers.close) parser.on('closetag', handlers.close)
  parser.on('error', (err) => {
    throw err
  })
  const decoder = new TextDecoder('utf-8')
  const stream = await zip.openReadStreamPromise(entry)
  try {
    for await (const chunk of stream as AsyncIterable<Buffer>) {
      parser.write(decoder.decode(chunk, { stream: true }))
      yield
    }
  } finally {
    stream.destroy()
  }
  parser.write(decoder.decode())
  parser.close()
  yield
}

async function streamXml(zip: ZipFile, entry: Entry, handlers: XmlHandlers): Promise<void> {
  for await (const _ of xmlSteps(zip, entry, handlers));
}

const columnIndex = (ref: string | undefined): number | null => {
  const letters = /^([A-Z]{1,3})\d*$/.exec(ref ?? '')?.[1]
  if (!letters) return null
  let n = 0
  for (const ch of letters) n = n * 26 + (ch.charCodeAt(0) - 64)
  return n - 1
}

interface Cell {
  column: number
  type: string
  ref: string
  text: string
}

function cellText(c: Cell, shared: readonly string[]): string {
  if (c.type === 's') {
    const s = shared[Number(c.text)]
    if (s === undefined) throw fileError.unreadable(`cell ${c.ref} refers to a missing text`)
    return s
  }
  if (c.type === 'b') return c.text === '1' ? 'TRUE' : 'FALSE'
  if (c.type === 'e') throw fileError.unreadable(`cell ${c.ref} holds the error ${c.text}`)
  return c.text
}

export async function openXlsx(path: string): Promise<{ records: AsyncIterable<string[]> }> {
  let zip: ZipFile
  try {
    zip = await yauzl.openPromise(path, { lazyEntries: true, autoClose: false, validateEntrySizes: true })
  } catch {
    throw fileError.unreadable('it is not a valid Excel workbook')
  }
  const entries = new Map<string, Entry>()
  try {
    for await (const entry of zip.eachEntry()) {
      if (entries.size >= 10_000) throw fileError.unreadable('it holds too many parts')
      entries.set(entry.fileName, entry)
    }
  } catch (err) {
    zip.close()
    throw err instanceof ListFileError ? err : fileError.unreadable('it is not a valid Excel workbook')
  }
  const part = (name: string, limit: number) => {
    const entry = entries.get(name)
    if (entry && entry.uncompressedSize > limit) throw fileError.unreadable(`its part ${name} unpacks to more than ${limit >> 20} MB`)
    return entry
  }

  async function* records(): AsyncGenerator<string[]> {
    try {
      // the first sheet in the workbook's order, through the workbook's relationships
      const workbook = part('xl/workbook.xml', MAX_SMALL_PART_BYTES)
      const rels = part('xl/_rels/workbook.xml.rels', MAX_SMALL_PART_BYTES)
      if (!workbook || !rels) throw fileError.unreadable('it is not an Excel workbook (.xlsx)')
      let firstSheetRel: string | null = null
      await streamXml(zip, workbook, {
        open: (n) => {
          if (xmlName(n) === 'sheet' && firstSheetRel === null) {
            firstSheetRel = Object.entries(n.attributes).find(([k]) => k === 'r:id' || k.endsWith(':id'))?.[1] ?? null
          }
        },
      })
      let target: string | null = null
      await streamXml(zip, rels, {
        open: (n) => {
          if (xmlName(n) === 'Relationship' && n.attributes.Id === firstSheetRel) target = n.attributes.Target ?? null
        },
      })
      if (!target) throw fileError.unreadable('the workbook has no sheet')
      const sheetPath = (target as string).startsWith('/') ? (target as string).slice(1) : `xl/${target as string}`
      const sheet = part(sheetPath.replace(/\/\.\//g, '/'), MAX_SHEET_XML_BYTES)
      if (!sheet) throw fileError.unreadable('the workbook has no sheet')

      // shared strings: every text cell of the workbook once, referred to by index
      const shared: string[] = []
      const sst = part('xl/sharedStrings.xml', MAX_SHARED_STRINGS_BYTES)
      if (sst) {
        let text: string | null = null
        let inT = false
        let phonetic = 0
        await streamXml(zip, sst, {
          open: (n) => {
            const name = xmlName(n)
            if (name === 'si') text = ''
            else if (name === 'rPh') phonetic++
            else if (name === 't' && !phonetic) inT = true
          },
          text: (t) => {
            if (inT && text !== null) text += t
          },
          close: (n) => {
            const name = xmlName(n)
            if (name === 'si') {
              shared.push(text ?? '')
              text = null
            } else if (name === 'rPh') phonetic--
            else if (name === 't') inT = false
          },
        })
      }

      // the sheet, a row at a time; rows are handed out after each chunk of XML
      let ready: string[][] = []
      let row: string[] | null = null
      let cell: Cell | null = null
      let collecting = false
      let nextColumn = 0
      const steps = xmlSteps(zip, sheet, {
        open: (n) => {
          const name = xmlName(n)
          if (name === 'row') {
            row = []
            nextColumn = 0
          } else if (name === 'c' && row) {
            const column = columnIndex(n.attributes.r) ?? nextColumn
            nextColumn = column + 1
            cell = { column, type: n.attributes.t ?? 'n', ref: n.attributes.r ?? '', text: '' }
          } else if ((name === 'v' || name === 't') && cell) collecting = true
        },
        text: (t) => {
          if (!collecting || !cell) return
          cell.text += t
          if (cell.text.length > MAX_CELL_BYTES) throw fileError.unreadable(`cell ${cell.ref} is longer than ${MAX_CELL_BYTES / 1024} KB`)
        },
        close: (n) => {
          const name = xmlName(n)
          if (name === 'v' || name === 't') collecting = false
          else if (name === 'c' && cell && row) {
            // a row is never made wider than the columns a list may have (formatted empty cells far right are common)
            if (cell.column < MAX_COLUMNS) row[cell.column] = cellText(cell, shared)
            else if (cell.text !== '') throw fileError.unreadable(`it has more than ${MAX_COLUMNS} columns`)
            cell = null
          } else if (name === 'row' && row) {
            ready.push(Array.from(row, (v) => v ?? ''))
            row = null
          }
        },
      })
      for await (const _ of steps) {
        const batch = ready
        ready = []
        yield* batch
      }
    } catch (err) {
      if (err instanceof ListFileError) throw err
      throw fileError.unreadable('the workbook is damaged')
    } finally {
      zip.close()
    }
  }
  return { records: records() }
}
