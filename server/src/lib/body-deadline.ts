import type { IncomingMessage, Server, ServerResponse } from 'node:http'

/**
 * How long a request's body may take to arrive (issue 22's slow clients, issue 27's uploads). Node's
 * `requestTimeout` is one figure for every request: 30 s cuts off a 50 MB list on a 10 Mbit/s uplink
 * (40 s), and a figure that lets it through would let a slowloris hold any route that long. So Node's
 * own limit is set to the longest upload, and here each request gets the limit of what it is:
 * - an upload (`isUpload`) may take up to that ceiling as long as it keeps moving: fewer than
 *   `minBytesPerSecond` over a window of `windowMs` (a stalled or trickling client) ends it;
 * - any other request must have its whole body within `requestTimeoutMs`, as before.
 * A request cut off gets a 408 if nothing was answered yet, and its connection is closed, as Node
 * does at its own limit. Bytes are counted on the socket (reading the body here would take it from
 * the handler).
 */
export interface BodyLimits {
  requestTimeoutMs: number
  minBytesPerSecond: number
  windowMs: number
}

export function guardRequestBodies(server: Server, limits: BodyLimits, isUpload: (req: IncomingMessage) => boolean): void {
  server.on('request', (req: IncomingMessage, res: ServerResponse) => {
    if (req.complete) return
    const socket = req.socket
    const cutOff = () => {
      if (req.complete) return
      stop()
      if (!res.headersSent && res.writable) {
        res.writeHead(408, { 'Content-Type': 'application/json', Connection: 'close' })
        res.end(JSON.stringify({ detail: 'The request took too long to arrive.', code: 'request_timeout' }))
      }
      // the handler may still be reading the body: its stream must fail, or it waits for good (once the
      // answer is sent Node no longer ends the request when its socket closes)
      req.destroy(Object.assign(new Error('The request took too long to arrive.'), { code: 'request_timeout' }))
      socket.destroy()
    }
    let timer: NodeJS.Timeout
    if (isUpload(req)) {
      let seen = socket.bytesRead
      const least = (limits.minBytesPerSecond * limits.windowMs) / 1000
      timer = setInterval(() => {
        const now = socket.bytesRead
        if (now - seen < least) cutOff()
        seen = now
      }, limits.windowMs)
    } else {
      timer = setTimeout(cutOff, limits.requestTimeoutMs)
    }
    timer.unref()
    const stop = () => clearTimeout(timer)
    req.once('end', stop)
    req.once('close', stop)
  })
}
