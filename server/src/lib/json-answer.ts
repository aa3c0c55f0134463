import type { Context } from 'hono'
import { parseAccept } from 'hono/utils/accept'
import { deflateSync, gzipSync } from 'node:zlib'
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
 * JSON already serialized (a cached part of an answer spliced into its own text): `c.json` sends
 * the text as it is instead of serializing the object.
 */
export class JsonText {
  constructor(readonly text: string) {}
}

/**
 * `c.json` of every API answer (app.ts), compressing as it builds the answer with the JSON text in
 * hand when `compress`: Hono's compress middleware instead reads the finished answer back through
 * web streams (and needed a second middleware to learn its length for the threshold), which cost
 * more per request than a cheap endpoint's handler. Same rules: JSON of 1 KB or more,
 * `Vary: Accept-Encoding` on those, not for HEAD; synchronous, since the validators' hooks need the
 * Response itself. Also sends a JsonText as it is.
 */
export function jsonAnswer(c: Context<AppEnv>, compress: boolean): Context<AppEnv>['json'] {
  // c.json's own arguments, passed on as Hono's json() passes them (status or init, then headers)
  const respond = c.newResponse as unknown as (body: string | Uint8Array, arg: unknown, headers: Record<string, string | string[]>) => Response
  return ((object: unknown, arg?: unknown, headers?: Record<string, string | string[]>) => {
    const text = object instanceof JsonText ? object.text : JSON.stringify(object)
    const extra: Record<string, string> = { 'Content-Type': 'application/json' }
    let body: string | Uint8Array = text
    if (compress && (text.length >= COMPRESS_FROM_BYTES || Buffer.byteLength(text) >= COMPRESS_FROM_BYTES)) {
      extra.Vary = 'Accept-Encoding'
      const encoding = c.req.method === 'HEAD' ? undefined : chooseEncoding(c.req.header('Accept-Encoding'))
      if (encoding) {
        body = encoding === 'gzip' ? gzipSync(text) : deflateSync(text)
        extra['Content-Encoding'] = encoding
      }
    }
    return respond(body, arg, { ...extra, ...headers })
  }) as unknown as Context<AppEnv>['json']
}
