import type { Context } from 'hono'
import { parseAccept } from 'hono/utils/accept'
import { constants, crc32, deflateRawSync, deflateSync, gzipSync } from 'node:zlib'
import type { AppEnv } from '../app-env.ts'

/** Answers that carry a secret (tokens, a new API key, a webhook signing secret): never compressed (BREACH). */
export const NEVER_COMPRESSED = /^\/api\/(auth|user\/api-keys|user\/webhooks)(\/|$)/
const COMPRESS_FROM_BYTES = 1024

/** The encoding to answer in (gzip before deflate, as Hono's compress middleware chooses), if any. */
function chooseEncoding(accept: string | undefined): 'gzip' | 'deflate' | undefined {
  if (!accept) return undefined
  const accepts = parseAccept(accept)
  const wildcard = accepts.find((a) => a.type === '*')?.q
  let best: { encoding: 'gzip' | 'deflate'; q: number } | undefined
  for (const encoding of ['gzip', 'deflate'] as const) {
    const q = accepts.find((a) => a.type.toLowerCase() === encoding)?.q ?? wildcard ?? 0
    if (q === 1) return encoding
    if (q > 0 && (!best || q > best.q)) best = { encoding, q }
  }
  return best?.encoding
}

/**
 * The end of a JSON answer that many answers share (a cached preview page): its text, and that text
 * compressed once, the first time an answer needs it.
 */
export class SharedJsonTail {
  private compressed: Buffer | undefined
  constructor(readonly text: string) {}

  /** A complete raw deflate stream of the text (compressed on first use). */
  deflated(): Buffer {
    return (this.compressed ??= deflateRawSync(this.text))
  }

  /** Estimated memory held: the text as UTF-16 and, once made, the compressed copy. */
  bytes(): number {
    return 2 * this.text.length + (this.compressed?.length ?? this.text.length / 2)
  }
}

/**
 * JSON already serialized: a text of its own (`head`) followed by a shared tail. `c.json` sends it
 * as it is, and gzips it by compressing only the head: gzip's deflate stream may be made of the
 * head's blocks (flushed to a byte boundary, not final) followed by the tail's own complete stream,
 * which refers to nothing before it; the trailer's CRC-32 and length cover both.
 */
export class JsonText {
  constructor(
    readonly head: string,
    readonly tail?: SharedJsonTail,
  ) {}

  get text(): string {
    return this.tail ? this.head + this.tail.text : this.head
  }

  gzipped(): Buffer {
    if (!this.tail) return gzipSync(this.head)
    const head = deflateRawSync(this.head, { finishFlush: constants.Z_SYNC_FLUSH })
    const tail = this.tail.deflated()
    const trailer = Buffer.alloc(8)
    trailer.writeUInt32LE(crc32(this.tail.text, crc32(this.head)), 0)
    trailer.writeUInt32LE((Buffer.byteLength(this.head) + Buffer.byteLength(this.tail.text)) % 2 ** 32, 4)
    return Buffer.concat([GZIP_HEADER, head, tail, trailer])
  }
}

/** Magic, deflate, no flags, no time, no extra flags, OS unknown (RFC 1952). */
const GZIP_HEADER = Buffer.from([0x1f, 0x8b, 8, 0, 0, 0, 0, 0, 0, 0xff])

/**
 * `c.json` of every API answer (app.ts), compressing as it builds the answer with the JSON text in
 * hand when `compress`: Hono's compress middleware instead reads the finished answer back through
 * web streams (and needed a second middleware to learn its length for the threshold), which cost
 * more per request than a cheap endpoint's handler. Same rules: JSON of 1 KB or more,
 * `Vary: Accept-Encoding` on those, not for HEAD; synchronous, since the validators' hooks need the
 * Response itself. Also sends a JsonText as it is (gzipped mostly from its shared tail's copy).
 */
export function jsonAnswer(c: Context<AppEnv>, compress: boolean): Context<AppEnv>['json'] {
  // c.json's own arguments, passed on as Hono's json() passes them (status or init, then headers)
  const respond = c.newResponse as unknown as (
    body: string | Uint8Array,
    arg: unknown,
    headers: Record<string, string | string[]>,
  ) => Response
  return ((object: unknown, arg?: unknown, headers?: Record<string, string | string[]>) => {
    const json = object instanceof JsonText ? object : undefined
    const text = json ? json.text : JSON.stringify(object)
    const extra: Record<string, string> = { 'Content-Type': 'application/json' }
    let body: string | Uint8Array = text
    if (compress && (text.length >= COMPRESS_FROM_BYTES || Buffer.byteLength(text) >= COMPRESS_FROM_BYTES)) {
      extra.Vary = 'Accept-Encoding'
      const encoding = c.req.method === 'HEAD' ? undefined : chooseEncoding(c.req.header('Accept-Encoding'))
      if (encoding) {
        body = encoding === 'deflate' ? deflateSync(text) : json ? json.gzipped() : gzipSync(text)
        extra['Content-Encoding'] = encoding
      }
    }
    return respond(body, arg, { ...extra, ...headers })
  }) as unknown as Context<AppEnv>['json']
}
