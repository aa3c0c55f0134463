import { createReadStream } from 'node:fs'
import { open } from 'node:fs/promises'
import { Readable } from 'node:stream'
import { parse } from 'csv-parse'
import { fileError } from './file-errors.ts'
import { MAX_CELL_BYTES } from './limits.ts'

export type TextEncoding = 'utf-8' | 'utf-16le' | 'utf-16be' | 'windows-1252'
export type Delimiter = ',' | ';' | '\t' | '|'
const DELIMITERS: Delimiter[] = [',', ';', '\t', '|']

/**
 * A text file's encoding: UTF-8 or UTF-16 by their byte order mark; without one UTF-8 when every byte
 * sequence is valid UTF-8 (checked over the whole file, as it streams), else Windows-1252, what
 * spreadsheets on Windows save as "CSV". A NUL byte outside UTF-16 means the file is not text.
 */
export async function detectEncoding(path: string): Promise<{ encoding: TextEncoding; skip: number }> {
  const fh = await open(path)
  const head = Buffer.alloc(3)
  try {
    await fh.read(head, 0, 3, 0)
  } finally {
    await fh.close()
  }
  if (head[0] === 0xef && head[1] === 0xbb && head[2] === 0xbf) return { encoding: 'utf-8', skip: 3 }
  if (head[0] === 0xff && head[1] === 0xfe) return { encoding: 'utf-16le', skip: 2 }
  if (head[0] === 0xfe && head[1] === 0xff) return { encoding: 'utf-16be', skip: 2 }
  const utf8 = new TextDecoder('utf-8', { fatal: true })
  let valid = true
  for await (const chunk of createReadStream(path) as AsyncIterable<Buffer>) {
    if (chunk.includes(0)) throw fileError.unsupported()
    if (!valid) continue
    try {
      utf8.decode(chunk, { stream: true })
    } catch {
      valid = false
    }
  }
  if (valid) {
    try {
      utf8.decode()
    } catch {
      valid = false
    }
  }
  return { encoding: valid ? 'utf-8' : 'windows-1252', skip: 0 }
}

/** The file's text, decoded as it streams. */
async function* decoded(path: string, encoding: TextEncoding, skip: number): AsyncGenerator<string> {
  const decoder = new TextDecoder(encoding)
  for await (const chunk of createReadStream(path, { start: skip }) as AsyncIterable<Buffer>) {
    const text = decoder.decode(chunk, { stream: true })
    if (text) yield text
  }
  const rest = decoder.decode()
  if (rest) yield rest
}

/**
 * The delimiter of the first lines (up to 64 KB): of `,` `;` tab `|`, the one found the same number
 * of times on most lines, outside quotes (ties: the more frequent one); `,` when none is.
 */
export function detectDelimiter(sample: string): Delimiter {
  const lines: string[] = []
  let line = ''
  let quoted = false
  for (const ch of sample) {
    if (ch === '"') quoted = !quoted
    if (!quoted && (ch === '\n' || ch === '\r')) {
      if (line.trim()) lines.push(line)
      line = ''
      if (lines.length >= 20) break
      continue
    }
    if (!quoted) line += ch
  }
  if (line.trim() && lines.length < 20) lines.push(line)
  let best: { d: Delimiter; agree: number; count: number } | null = null
  for (const d of DELIMITERS) {
    const counts = lines.map((l) => l.split(d).length - 1)
    const first = counts[0] ?? 0
    if (first === 0) continue
    const agree = counts.filter((n) => n === first).length
    if (!best || agree > best.agree || (agree === best.agree && first > best.count)) best = { d, agree, count: first }
  }
  return best?.d ?? ','
}

async function sample(path: string, encoding: TextEncoding, skip: number): Promise<string> {
  let text = ''
  for await (const part of decoded(path, encoding, skip)) {
    text += part
    if (text.length >= 65_536) break
  }
  return text
}

/** A CSV file's records, in order, each a list of texts; the encoding and delimiter it was read with. */
export async function openCsv(path: string): Promise<{ encoding: TextEncoding; delimiter: Delimiter; records: AsyncIterable<string[]> }> {
  const { encoding, skip } = await detectEncoding(path)
  const delimiter = detectDelimiter(await sample(path, encoding, skip))
  async function* records(): AsyncGenerator<string[]> {
    const parser = Readable.from(decoded(path, encoding, skip)).pipe(
      parse({ delimiter, relax_column_count: true, relax_quotes: true, skip_empty_lines: true, max_record_size: MAX_CELL_BYTES }),
    )
    try {
      for await (const record of parser as AsyncIterable<string[]>) yield record
    } catch (err) {
      const e = err as { code?: string; lines?: number; message?: string }
      if (typeof e.code === 'string' && e.code.startsWith('CSV_')) {
        throw fileError.unreadable(
          e.code === 'CSV_MAX_RECORD_SIZE'
            ? `line ${e.lines ?? '?'} is longer than ${MAX_CELL_BYTES / 1024} KB`
            : `line ${e.lines ?? '?'}: ${e.code === 'CSV_QUOTE_NOT_CLOSED' ? 'a quote is never closed' : 'malformed CSV'}`,
        )
      }
      throw err
    }
  }
  return { encoding, delimiter, records: records() }
}
