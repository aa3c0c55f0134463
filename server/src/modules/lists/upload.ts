import { randomBytes } from 'node:crypto'
import { createWriteStream, type WriteStream } from 'node:fs'
import { mkdir, open, rm } from 'node:fs/promises'
import path from 'node:path'
import { Readable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import busboy from 'busboy'
import { HttpError } from '../../lib/errors.ts'
import { fileError } from './file-errors.ts'
import { MAX_COLUMNS, MAX_FILE_BYTES, MAX_FILE_MB, MAX_ROWS } from './limits.ts'
import { openCsv } from './read-csv.ts'
import { openXlsx } from './read-xlsx.ts'

/** The form of an upload, its file written to a temporary file as it arrives (never held in memory). */
export interface ReceivedUpload {
  path: string
  filename: string
  fields: Record<string, string>
}

/**
 * Reads a multipart/form-data body (busboy): the part `file` streamed to a file under `dir`, cut off
 * past MAX_FILE_BYTES (400 `file_too_large`), other parts as short text fields. The caller removes
 * the file (`path`) when done with it.
 */
export async function receiveUpload(req: Request, dir: string): Promise<ReceivedUpload> {
  const contentType = req.headers.get('content-type') ?? ''
  if (!/^multipart\/form-data\b/i.test(contentType) || !req.body) {
    throw new HttpError(415, { detail: 'Send the file as multipart/form-data, in the part `file`.', code: 'unsupported_media_type' })
  }
  await mkdir(dir, { recursive: true })
  const file = path.join(dir, `${randomBytes(12).toString('hex')}.upload`)
  const fields: Record<string, string> = {}
  let filename: string | null = null
  let tooLarge = false
  let writing: Promise<void> | null = null
  let out: WriteStream | null = null
  try {
    const parser = busboy({
      headers: { 'content-type': contentType },
      limits: { files: 1, fileSize: MAX_FILE_BYTES, fields: 10, fieldSize: 1000, parts: 12 },
    })
    parser.on('file', (name, stream, info) => {
      if (name !== 'file' || writing) {
        stream.resume()
        return
      }
      filename = info.filename || 'upload'
      stream.on('limit', () => {
        tooLarge = true
      })
      out = createWriteStream(file)
      writing = pipeline(stream, out)
    })
    parser.on('field', (name, value) => {
      fields[name] = value
    })
    await pipeline(Readable.fromWeb(req.body as never), parser)
    await writing
  } catch (err) {
    // a client gone mid-file (lib/body-deadline.ts cuts off a stalled one): the file's own stream
    // may still be opening it, so it is ended first, or the file would appear after its removal
    ;(out as WriteStream | null)?.destroy()
    await (writing as Promise<void> | null)?.catch(() => undefined)
    await rm(file, { force: true })
    if (err instanceof HttpError) throw err
    throw new HttpError(400, { detail: 'The upload is not a readable multipart/form-data body.', code: 'bad_request' })
  }
  if (tooLarge) {
    await rm(file, { force: true })
    throw fileError.tooLarge(MAX_FILE_MB).toHttp()
  }
  if (filename === null) throw fileError.missing().toHttp()
  return { path: file, filename, fields }
}

/** A cell of a header row that is data: an address, a web address, a number. */
const LOOKS_LIKE_DATA = /@|^(https?:\/\/|www\.)|^[+(]?\d[\d\s()./-]{4,}$|^-?\d+([.,]\d+)?$/i

export interface TableFile {
  fileType: 'csv' | 'xlsx'
  encoding: string | null
  delimiter: string | null
  headers: string[]
  /** The data rows after the header, blank rows left out; at most MAX_ROWS (then `file_too_many_rows`). */
  rows: AsyncIterable<string[]>
}

/**
 * An uploaded file as a table: an XLSX workbook by its zip signature, else CSV text (encoding and
 * delimiter detected); its first non-blank row the headers. Throws ListFileError for what the
 * person must fix.
 */
export async function readTable(file: string): Promise<TableFile> {
  const fh = await open(file)
  const head = Buffer.alloc(8)
  let size: number
  try {
    size = (await fh.stat()).size
    await fh.read(head, 0, 8, 0)
  } finally {
    await fh.close()
  }
  if (size === 0) throw fileError.empty()
  let source: { fileType: 'csv' | 'xlsx'; encoding: string | null; delimiter: string | null; records: AsyncIterable<string[]> }
  if (head.subarray(0, 4).equals(Buffer.from([0x50, 0x4b, 0x03, 0x04]))) {
    source = { fileType: 'xlsx', encoding: null, delimiter: null, ...(await openXlsx(file)) }
  } else if (head.equals(Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1])) || head.subarray(0, 4).toString() === '%PDF') {
    // an old binary Excel file (.xls) or a PDF
    throw fileError.unsupported()
  } else {
    source = { fileType: 'csv', ...(await openCsv(file)) }
  }
  const iterator = source.records[Symbol.asyncIterator]()
  const clean = (record: string[]) => record.map((cell) => String(cell ?? '').trim())
  const blank = (record: string[]) => record.every((cell) => cell === '')
  let headers: string[] | null = null
  for (let next = await iterator.next(); !next.done; next = await iterator.next()) {
    const record = clean(next.value)
    if (!blank(record)) {
      headers = record
      break
    }
  }
  if (!headers) throw fileError.empty()
  while (headers.length && headers[headers.length - 1] === '') headers.pop()
  if (headers.length > MAX_COLUMNS) throw fileError.unreadable(`it has more than ${MAX_COLUMNS} columns`)
  if (headers.some((h) => LOOKS_LIKE_DATA.test(h))) throw fileError.noHeader()
  const width = headers.length
  async function* rows(): AsyncGenerator<string[]> {
    let n = 0
    for (let next = await iterator.next(); !next.done; next = await iterator.next()) {
      const record = clean(next.value)
      if (blank(record)) continue
      if (++n > MAX_ROWS) throw fileError.tooManyRows(MAX_ROWS)
      // as wide as the header: cells beyond it have no name to map them by, missing ones are blank
      yield record.length >= width ? record.slice(0, width) : [...record, ...Array<string>(width - record.length).fill('')]
    }
  }
  return { fileType: source.fileType, encoding: source.encoding, delimiter: source.delimiter, headers, rows: rows() }
}
