import { readFile, stat } from 'node:fs/promises'
import path from 'node:path'
import type { Context } from 'hono'

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.txt': 'text/plain; charset=utf-8',
  '.webmanifest': 'application/manifest+json',
}

/** Headers sent with the dashboard (docs/security.md). */
export const SECURITY_HEADERS: Record<string, string> = {
  'Content-Security-Policy': [
    "default-src 'self'",
    "script-src 'self'",
    "style-src 'self'",
    "img-src 'self' data:",
    "font-src 'self'",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    "frame-ancestors 'none'",
    "form-action 'self'",
  ].join('; '),
  'X-Content-Type-Options': 'nosniff',
  'Referrer-Policy': 'no-referrer',
  'X-Frame-Options': 'DENY',
  'Permissions-Policy': 'camera=(), microphone=(), geolocation=()',
  'Cross-Origin-Opener-Policy': 'same-origin',
}

function decodeOnce(rawPath: string): string | null {
  try {
    return decodeURIComponent(rawPath)
  } catch {
    return null // URIError
  }
}

/** Serves the built dashboard; unknown paths get index.html (client-side routing). */
export async function serveDashboard(c: Context, distDir: string): Promise<Response> {
  if (c.req.method !== 'GET' && c.req.method !== 'HEAD') return c.json({ detail: 'Not found.' }, 404)
  // The raw path decoded exactly once (c.req.path is already partly decoded by Hono, so decoding
  // it again would decode twice). A malformed escape (`/%E0%A4`) names no built file: index.html,
  // like any other client-side route.
  const rel = decodeOnce(new URL(c.req.url).pathname)?.replace(/^\/+/, '') ?? ''
  let file = path.resolve(distDir, rel)
  if (!file.startsWith(distDir + path.sep)) file = path.join(distDir, 'index.html')
  let isAsset = rel.startsWith('assets/')
  try {
    if (!(await stat(file)).isFile()) throw new Error('not a file')
  } catch {
    file = path.join(distDir, 'index.html')
    isAsset = false
  }
  let body: Buffer
  try {
    body = await readFile(file)
  } catch {
    return c.text('The dashboard is not built yet: run `npm run build` (or `npm start`).', 503)
  }
  const headers: Record<string, string> = {
    ...SECURITY_HEADERS,
    'Content-Type': TYPES[path.extname(file)] ?? 'application/octet-stream',
    // hashed assets never change; index.html must always be revalidated
    'Cache-Control': isAsset ? 'public, max-age=31536000, immutable' : 'no-cache',
  }
  return c.body(new Uint8Array(body), 200, headers)
}
