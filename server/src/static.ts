import { readFile, stat } from 'node:fs/promises'
import path from 'node:path'
import zlib, { brotliCompressSync, gzipSync } from 'node:zlib'
import type { Context } from 'hono'
import { getCookie } from 'hono/cookie'
import { LANGUAGES } from './lib/schemas.ts'

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

/** dist/.vite/prerender.json (src/boot/prerender.tsx): `{ [pathname]: { 'signed-out'?: markup, 'signed-in'?: markup } }`. */
type Prerendered = Record<string, Partial<Record<PrerenderVariant, string>>>
export type PrerenderVariant = 'signed-out' | 'signed-in'

/**
 * dist/.vite/routes.json (build/vite-plugins/prerender.ts): for each route pattern of the dashboard's
 * router (`/exports/:searchId`), the files its page needs beyond what the entry and the app fetch
 * themselves, so the entry can fetch them beside the app's own code instead of after it (without
 * them the browser learns of a page's chunk only once the app has run: app → route chunk → page
 * strings).
 */
type RouteFiles = Record<string, string[]>

interface Dashboard {
  /** index.html with the route's hints (and markup), by route, variant and encoding. */
  pages: Map<string, Buffer>
  html: string
  /** The route patterns split into segments, with their files. */
  routes: ReadonlyArray<{ pattern: string; segments: readonly string[]; files: readonly string[] }>
  prerendered: Prerendered
}

const dashboards = new Map<string, Promise<Dashboard | null>>()

async function loadDashboard(distDir: string): Promise<Dashboard | null> {
  let html: string
  try {
    html = await readFile(path.join(distDir, 'index.html'), 'utf8')
  } catch {
    return null
  }
  let routes: RouteFiles = {}
  try {
    routes = JSON.parse(await readFile(path.join(distDir, '.vite', 'routes.json'), 'utf8')) as RouteFiles
  } catch {
    // a build without the table still works, only without route hints
  }
  let prerendered: Prerendered = {}
  try {
    prerendered = JSON.parse(await readFile(path.join(distDir, '.vite', 'prerender.json'), 'utf8')) as Prerendered
  } catch {
    // without it every page is drawn in the browser
  }
  return {
    pages: new Map(),
    html,
    routes: Object.entries(routes).map(([pattern, files]) => ({ pattern, segments: pattern.split('/'), files })),
    prerendered,
  }
}

/** The route whose pattern the address matches, segment by segment, a `:name` segment standing for any one (`/exports/:searchId`). */
function routeOf(d: Dashboard, address: string): Dashboard['routes'][number] | undefined {
  const segments = address.split('/')
  return d.routes.find(
    (r) =>
      r.segments.length === segments.length && r.segments.every((s, i) => (s.startsWith(':') ? segments[i] !== '' : s === segments[i])),
  )
}

/** The root element and what index.html paints in it until the page's code runs (the brand mark), between markers. */
const ROOT = /<div id="root">(<!--app-->[\s\S]*?<!--\/app-->)<\/div>/

/**
 * index.html for an address: its root names the page's files for the entry to fetch beside its own
 * (`data-preload`, src/boot/main.tsx) and, when the build prerendered the page for this browser's variant,
 * holds that markup instead of the brand mark (`data-prerendered`).
 */
function pageFor(d: Dashboard, pathname: string, encoding: 'br' | 'gzip' | null, variant: PrerenderVariant | null): Buffer {
  const address = pathname.replace(/(.)\/+$/, '$1')
  const route = routeOf(d, address)
  const markup = variant ? d.prerendered[address]?.[variant] : undefined
  const id = `${route?.pattern ?? ''}:${markup ? `${address}:${variant}` : ''}:${encoding ?? ''}`
  let page = d.pages.get(id)
  if (!page) {
    const files = route?.files ?? []
    const text = d.html.replace(ROOT, (_all, placeholder: string) => {
      const attributes = `${files.length ? ` data-preload="${files.join(' ')}"` : ''}${markup ? ` data-prerendered="${variant}"` : ''}`
      return `<div id="root"${attributes}>${markup ?? placeholder}</div>`
    })
    const html = Buffer.from(text)
    page =
      encoding === 'br'
        ? brotliCompressSync(html, { params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 11 } })
        : encoding === 'gzip'
          ? gzipSync(html, { level: 9 })
          : html
    d.pages.set(id, page)
  }
  return page
}

const SUPPORTED: ReadonlySet<string> = new Set(LANGUAGES)

/** The dashboard's language as src/lib/i18n.ts picks it without a stored choice: the first supported one the browser asks for. */
export function browserLanguage(acceptLanguage: string | undefined): string {
  const ranges = (acceptLanguage ?? '')
    .split(',')
    .map((part, i) => {
      const [tag, ...params] = part.trim().split(';')
      const q = params.map((p) => /^\s*q=([\d.]+)\s*$/.exec(p)).find(Boolean)
      return { tag: tag!.trim().toLowerCase(), q: q ? Number(q[1]) : 1, i }
    })
    .filter((r) => r.tag && r.q > 0)
    .sort((a, b) => b.q - a.q || a.i - b.i)
  for (const { tag } of ranges) {
    const base = tag.slice(0, 2)
    if (base === 'no' || base === 'nn') return 'nb'
    if (SUPPORTED.has(base)) return base
  }
  return 'en'
}

/**
 * Which prerendered markup this browser's first render would match, if any: only English (the
 * language the dashboard stored in the `leads.lang` cookie, else the browser's), only the bare address
 * (a query such as a search's filters changes the page), and the variant by the `leads.signed-in`
 * cookie. The cookies are hints the dashboard keeps (src/lib/page-hints.ts), never credentials; the
 * browser checks the same again before it hydrates (src/boot/start.tsx).
 */
export function prerenderVariant(c: Context): PrerenderVariant | null {
  if (new URL(c.req.url).search) return null
  const stored = getCookie(c, 'leads.lang')
  const lang = stored && SUPPORTED.has(stored) ? stored : browserLanguage(c.req.header('accept-language'))
  if (lang !== 'en') return null
  return getCookie(c, 'leads.signed-in') === '1' ? 'signed-in' : 'signed-out'
}

/** The best encoding the client accepts that a precompressed file exists for (brotli, then gzip). */
function acceptedEncoding(header: string | undefined): 'br' | 'gzip' | null {
  const accepts = (header ?? '')
    .toLowerCase()
    .split(',')
    .map((part) => {
      const [name, ...params] = part.trim().split(';')
      const q = params.map((p) => /^\s*q=([\d.]+)\s*$/.exec(p)).find(Boolean)
      return { name: name!.trim(), q: q ? Number(q[1]) : 1 }
    })
  const ok = (name: string) =>
    accepts.some((a) => (a.name === name || a.name === '*') && a.q > 0) && !accepts.some((a) => a.name === name && a.q === 0)
  return ok('br') ? 'br' : ok('gzip') ? 'gzip' : null
}

const COMPRESSIBLE = new Set(['.html', '.js', '.css', '.json', '.svg', '.txt', '.webmanifest'])

/**
 * Serves the built dashboard; unknown paths get index.html (client-side routing), with preload hints
 * for that address's page. Text files go out as the build's brotli or gzip twin when the client
 * accepts one (`Vary: Accept-Encoding`).
 */
export async function serveDashboard(c: Context, distDir: string): Promise<Response> {
  if (c.req.method !== 'GET' && c.req.method !== 'HEAD') return c.json({ detail: 'Not found.' }, 404)
  // The raw path decoded exactly once (c.req.path is already partly decoded by Hono, so decoding
  // it again would decode twice). A malformed escape (`/%E0%A4`) names no built file: index.html,
  // like any other client-side route.
  const pathname = decodeOnce(new URL(c.req.url).pathname)
  // The path is judged once resolved (decoded, `..` and `.` applied), never as written: `/x/..%2f.vite/…`
  // names dist/.vite/…, which a check of the written path let through (issue 22).
  let file: string | null = path.resolve(distDir, (pathname ?? '').replace(/^\/+/, ''))
  const rel = path.relative(distDir, file)
  const inside = rel !== '' && !rel.startsWith('..') && !path.isAbsolute(rel)
  // a hidden file or directory of the build (its .vite/ manifests) is nobody's page: 404, not the dashboard
  if (inside && rel.split(path.sep).some((segment) => segment.startsWith('.'))) return c.text('Not found.', 404, SECURITY_HEADERS)
  if (!inside || rel === 'index.html') file = null
  if (file) {
    try {
      if (!(await stat(file)).isFile()) file = null
    } catch {
      file = null
    }
  }
  // the other languages' strings (build/vite-plugins/locale-files.ts): a version, language or namespace the
  // build did not write is no page either
  const strings = inside && rel.startsWith(`locales${path.sep}`)
  if (file === null && strings) return c.text('Not found.', 404, SECURITY_HEADERS)
  const encoding = acceptedEncoding(c.req.header('accept-encoding'))
  const headers: Record<string, string> = { ...SECURITY_HEADERS, Vary: 'Accept-Encoding' }
  let body: Buffer
  if (file === null) {
    // a client-side route: index.html with this page's hints, never cached (a new build changes it)
    if (!dashboards.has(distDir)) dashboards.set(distDir, loadDashboard(distDir))
    const d = await dashboards.get(distDir)!
    if (!d) {
      dashboards.delete(distDir)
      return c.text('The dashboard is not built yet: run `npm run build` (or `npm start`).', 503)
    }
    body = pageFor(d, pathname ?? '/', encoding, prerenderVariant(c))
    headers['Content-Type'] = TYPES['.html']!
    // the markup depends on the language and session hints (prerenderVariant)
    headers.Vary = 'Accept-Encoding, Accept-Language, Cookie'
    headers['Cache-Control'] = 'no-cache'
    if (encoding) headers['Content-Encoding'] = encoding
  } else {
    const ext = path.extname(file)
    headers['Content-Type'] = TYPES[ext] ?? 'application/octet-stream'
    // hashed assets and the versioned strings never change; anything else (robots.txt, favicon) is revalidated
    headers['Cache-Control'] = strings || rel.startsWith(`assets${path.sep}`) ? 'public, max-age=31536000, immutable' : 'no-cache'
    body = await readFile(file)
    if (encoding && COMPRESSIBLE.has(ext)) {
      const twin = await readFile(`${file}.${encoding === 'br' ? 'br' : 'gz'}`).catch(() => null)
      if (twin && twin.length < body.length) {
        body = twin
        headers['Content-Encoding'] = encoding
      }
    }
  }
  return c.body(new Uint8Array(body), 200, headers)
}
