/**
 * How a receiver checks a delivery, as code to copy: recompute the HMAC-SHA256 of "<t>.<raw body>"
 * under the endpoint's secret, compare it with the header's v1 in constant time, and refuse a
 * timestamp older than five minutes (a replayed request). The body must be the bytes as received:
 * parsing and re-serialising JSON changes them. A receiver also refuses a body over MAX_BODY_BYTES
 * (it never buffers without limit), listens on 127.0.0.1 only (behind the person's own proxy), and
 * handles each event id once: the service delivers at least once, so a retry after a lost answer (or
 * a restart mid-delivery) can bring the same event again. verify-samples.test.ts runs both programs.
 */

export type SampleLanguage = 'node' | 'python'
export const SAMPLE_LANGUAGES: readonly SampleLanguage[] = ['node', 'python']
export const SECRET_VARIABLE = 'LEADS_WEBHOOK_SECRET'
export const TOLERANCE_SECONDS = 300
export const SAMPLE_PORT = 3000
/** Far more than an event needs (a few hundred bytes). */
export const MAX_BODY_BYTES = 64 * 1024
/** Event ids remembered for de-duplication (the oldest are forgotten first). */
export const SEEN_IDS = 10_000

export function verifySample(language: SampleLanguage, signatureHeader: string): string {
  return language === 'node' ? nodeSample(signatureHeader) : pythonSample(signatureHeader)
}

function nodeSample(header: string): string {
  return `import { createHmac, timingSafeEqual } from 'node:crypto'
import { createServer } from 'node:http'

const SECRET = process.env.${SECRET_VARIABLE} // whsec_…
const TOLERANCE_SECONDS = ${TOLERANCE_SECONDS}
const MAX_BODY_BYTES = ${MAX_BODY_BYTES}
const seen = new Set() // event ids already handled: a retry can bring one again

// raw: the body exactly as received (a Buffer), never re-serialised JSON
function verify(raw, header) {
  const fields = new Map((header ?? '').split(',').map((part) => part.split('=', 2)))
  const t = Number(fields.get('t'))
  const v1 = fields.get('v1') ?? ''
  if (!Number.isInteger(t) || !/^[0-9a-f]{64}$/.test(v1)) return false
  if (Math.abs(Date.now() / 1000 - t) > TOLERANCE_SECONDS) return false
  const expected = createHmac('sha256', SECRET).update(\`\${t}.\`).update(raw).digest()
  return timingSafeEqual(expected, Buffer.from(v1, 'hex'))
}

createServer((req, res) => {
  const chunks = []
  let size = 0
  req.on('data', (chunk) => {
    if (size > MAX_BODY_BYTES) return // already answered
    size += chunk.length
    if (size > MAX_BODY_BYTES) {
      res.writeHead(413, { Connection: 'close' }).end('too large', () => req.destroy())
      return
    }
    chunks.push(chunk)
  })
  req.on('end', () => {
    if (size > MAX_BODY_BYTES) return
    const raw = Buffer.concat(chunks)
    if (!verify(raw, req.headers['${header.toLowerCase()}'])) {
      res.writeHead(400).end('invalid signature')
      return
    }
    const event = JSON.parse(raw.toString('utf8'))
    if (seen.has(event.id)) {
      res.writeHead(200).end('already handled')
      return
    }
    seen.add(event.id)
    if (seen.size > ${SEEN_IDS}) seen.delete(seen.values().next().value)
    console.log(event.type, event.id) // export.completed, export.failed or webhook.test
    res.writeHead(200).end('ok')
  })
}).listen(${SAMPLE_PORT}, '127.0.0.1')
`
}

function pythonSample(header: string): string {
  return `import hashlib
import hmac
import json
import os
import time
from collections import OrderedDict
from http.server import BaseHTTPRequestHandler, HTTPServer

SECRET = os.environ["${SECRET_VARIABLE}"].encode()  # whsec_…
TOLERANCE_SECONDS = ${TOLERANCE_SECONDS}
MAX_BODY_BYTES = ${MAX_BODY_BYTES}
seen = OrderedDict()  # event ids already handled: a retry can bring one again


def verify(raw: bytes, header: str | None) -> bool:
    """raw: the body exactly as received, never re-serialised JSON."""
    fields = dict(part.split("=", 1) for part in (header or "").split(",") if "=" in part)
    try:
        t = int(fields["t"])
    except (KeyError, ValueError):
        return False
    if abs(time.time() - t) > TOLERANCE_SECONDS:
        return False
    expected = hmac.new(SECRET, f"{t}.".encode() + raw, hashlib.sha256).hexdigest()
    return hmac.compare_digest(expected.encode(), fields.get("v1", "").encode())


class Receiver(BaseHTTPRequestHandler):
    def do_POST(self):
        try:
            length = int(self.headers.get("Content-Length", 0))
        except ValueError:
            length = -1
        if length < 0 or length > MAX_BODY_BYTES:
            self.send_response(413)
            self.send_header("Connection", "close")
            self.end_headers()
            return
        raw = self.rfile.read(length)
        if not verify(raw, self.headers.get("${header}")):
            self.send_response(400)
            self.end_headers()
            return
        event = json.loads(raw)
        if event["id"] not in seen:
            seen[event["id"]] = True
            if len(seen) > ${SEEN_IDS}:
                seen.popitem(last=False)
            print(event["type"], event["id"], flush=True)  # export.completed, export.failed or webhook.test
        self.send_response(200)
        self.end_headers()
        self.wfile.write(b"ok")


HTTPServer(("127.0.0.1", ${SAMPLE_PORT}), Receiver).serve_forever()
`
}
