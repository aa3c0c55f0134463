import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { request as httpRequest } from 'node:http'
import { tmpdir } from 'node:os'
import path from 'node:path'
import { brotliCompressSync, gunzipSync, gzipSync } from 'node:zlib'
import { Hono } from 'hono'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { routeFiles } from '../../build/vite-plugins/route-files.ts'
import { serveDashboard } from '../src/static.ts'
import { startTestService, type TestService } from './helpers.ts'

/** A raw GET (fetch would decode the body and hide what went over the wire). */
function rawGet(url: string, headers: Record<string, string> = {}) {
  return new Promise<{ status: number; headers: Record<string, string | string[] | undefined>; body: Buffer }>((resolve, reject) => {
    httpRequest(url, { headers }, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (c: Buffer) => chunks.push(c))
      res.on('end', () => resolve({ status: res.statusCode!, headers: res.headers, body: Buffer.concat(chunks) }))
    })
      .on('error', reject)
      .end()
  })
}

const ENTRY_JS = 'console.log("entry");'.repeat(200)
const GERMAN = JSON.stringify({ title: 'Kontakte suchen', hint: 'Wählen Sie Länder und Branchen.'.repeat(60) })
const MANIFEST = {
  'index.html': { file: 'assets/index-e1.js', isEntry: true, imports: ['_vendor-v1.js'], dynamicImports: ['src/boot/start.tsx'] },
  '_vendor-v1.js': { file: 'assets/vendor-v1.js' },
  'src/boot/start.tsx': { file: 'assets/start-b1.js', imports: ['_app-a1.js'], isDynamicEntry: true },
  '_app-a1.js': { file: 'assets/app-a1.js', imports: ['_vendor-v1.js'] },
  'src/app/routes/sign-in.tsx': { file: 'assets/sign-in-s1.js', imports: ['_vendor-v1.js', '_form-f1.js'], isDynamicEntry: true },
  '_form-f1.js': { file: 'assets/form-f1.js' },
  'src/app/routes/shell.tsx': { file: 'assets/shell-h1.js', imports: ['_app-a1.js'], isDynamicEntry: true },
  'src/app/routes/search.tsx': { file: 'assets/search-q1.js', imports: ['_form-f1.js'], isDynamicEntry: true },
  'src/app/routes/export-job.tsx': { file: 'assets/export-job-x1.js', imports: ['_app-a1.js'], isDynamicEntry: true },
  'locales/en/search.json': { file: 'assets/search-l1.js', isDynamicEntry: true },
  'locales/en/exports.json': { file: 'assets/exports-l1.js', isDynamicEntry: true },
  'locales/en/account.json': { file: 'assets/account-l1.js', isDynamicEntry: true },
  'locales/de/search.json': { file: 'assets/search-d1.js', isDynamicEntry: true },
}

/** Each route pattern's source files, as the build reads them off the router (src/boot/prerender.tsx `routeSources`). */
const SEARCH = ['src/app/routes/shell.tsx', 'src/app/routes/search.tsx', 'locales/en/search.json']
const SOURCES = {
  '/sign-in': ['src/app/routes/sign-in.tsx'],
  '/search': SEARCH,
  '/': SEARCH,
  '/exports/:searchId': ['src/app/routes/shell.tsx', 'src/app/routes/export-job.tsx', 'locales/en/exports.json'],
}

const PRERENDERED = {
  '/sign-in': { 'signed-out': '<main><h1>Sign in</h1></main>' },
  '/plans': { 'signed-out': '<main><h1>Plans</h1><a>Sign in</a></main>', 'signed-in': '<main><h1>Plans</h1><nav>Search</nav></main>' },
  '/search': { 'signed-in': '<main><h1>Search</h1></main>' },
}

describe('the built dashboard as a browser fetches it', () => {
  let svc: TestService
  let dist: string
  beforeAll(async () => {
    dist = await mkdtemp(path.join(tmpdir(), 'leads-dist-'))
    await mkdir(path.join(dist, 'assets'))
    await mkdir(path.join(dist, '.vite'))
    await writeFile(
      path.join(dist, 'index.html'),
      '<!doctype html><html><head><title>dashboard</title><script type="module" crossorigin src="/assets/index-e1.js"></script></head><body><div id="root"><!--app--><div>mark</div><!--/app--></div></body></html>',
    )
    await writeFile(path.join(dist, '.vite', 'prerender.json'), JSON.stringify(PRERENDERED))
    await writeFile(path.join(dist, '.vite', 'manifest.json'), JSON.stringify(MANIFEST))
    // dist/.vite/routes.json as the build writes it (build/vite-plugins/prerender.ts)
    await writeFile(path.join(dist, '.vite', 'routes.json'), JSON.stringify(routeFiles(MANIFEST, SOURCES)))
    await writeFile(path.join(dist, 'assets', 'index-e1.js'), ENTRY_JS)
    await writeFile(path.join(dist, 'assets', 'index-e1.js.br'), brotliCompressSync(ENTRY_JS))
    await writeFile(path.join(dist, 'assets', 'index-e1.js.gz'), gzipSync(ENTRY_JS))
    await writeFile(path.join(dist, 'robots.txt'), 'User-agent: *\nDisallow: /\n')
    // the other languages' strings as build/vite-plugins/locale-files.ts writes them (with a twin, as compressed-twins.ts does)
    await mkdir(path.join(dist, 'locales', 'v1', 'de'), { recursive: true })
    await writeFile(path.join(dist, 'locales', 'v1', 'de', 'search.json'), GERMAN)
    await writeFile(path.join(dist, 'locales', 'v1', 'de', 'search.json.gz'), gzipSync(GERMAN))
    svc = await startTestService({ seedCompanies: 0, distDir: dist })
  })
  afterAll(async () => {
    await svc?.close()
    await rm(dist, { recursive: true, force: true })
  })

  it('sends the build’s brotli or gzip twin of an asset by Accept-Encoding, with Vary, and the plain file otherwise', async () => {
    const url = `${svc.url}/assets/index-e1.js`
    const br = await rawGet(url, { 'Accept-Encoding': 'gzip, deflate, br' })
    expect(br.headers['content-encoding']).toBe('br')
    expect(br.headers.vary).toBe('Accept-Encoding')
    expect(br.headers['cache-control']).toBe('public, max-age=31536000, immutable')
    expect(br.body.equals(brotliCompressSync(ENTRY_JS))).toBe(true)
    const gz = await rawGet(url, { 'Accept-Encoding': 'gzip' })
    expect(gz.headers['content-encoding']).toBe('gzip')
    expect(gunzipSync(gz.body).toString()).toBe(ENTRY_JS)
    // br refused explicitly: gzip
    expect((await rawGet(url, { 'Accept-Encoding': 'br;q=0, gzip;q=0.5' })).headers['content-encoding']).toBe('gzip')
    const plain = await rawGet(url)
    expect(plain.headers['content-encoding']).toBeUndefined()
    expect(plain.body.toString()).toBe(ENTRY_JS)
  })

  it('names the page’s own chunks on the root for the entry to fetch beside the app, for each dashboard address, compressed', async () => {
    const signIn = await rawGet(`${svc.url}/sign-in`, { 'Accept-Encoding': 'br' })
    expect(signIn.status).toBe(200)
    expect(signIn.headers['content-encoding']).toBe('br')
    expect(signIn.headers['cache-control']).toBe('no-cache')
    const { brotliDecompressSync } = await import('node:zlib')
    const html = brotliDecompressSync(signIn.body).toString()
    const preload = (h: string) => (/<div id="root"[^>]* data-preload="([^"]*)"/.exec(h)?.[1]?.split(' ') ?? []).sort()
    // the route chunk and what it imports, minus what the entry already brings
    expect(preload(html)).toEqual(['/assets/form-f1.js', '/assets/sign-in-s1.js'])

    // the layout, the page and its English strings, minus what the app the entry starts already brings
    const searchFiles = ['/assets/form-f1.js', '/assets/search-l1.js', '/assets/search-q1.js', '/assets/shell-h1.js']
    const search = (await rawGet(`${svc.url}/search/`)).body.toString()
    expect(preload(search)).toEqual(searchFiles)
    // no other language, no other page's strings (the export confirmation's load with it), nothing the app has
    expect(search).not.toContain('exports-l1')
    expect(search).not.toContain('search-d1')
    expect(search).not.toContain('account-l1')
    expect(search).not.toContain('app-a1')
    expect(preload((await rawGet(`${svc.url}/`)).body.toString())).toEqual(searchFiles)
    // a pattern's `:searchId` is any one segment, opaque ids included
    const exportFiles = ['/assets/export-job-x1.js', '/assets/exports-l1.js', '/assets/shell-h1.js']
    for (const address of ['/exports/s-12', '/exports/550e8400-e29b-41d4-a716-446655440000/'])
      expect(preload((await rawGet(`${svc.url}${address}`)).body.toString()), address).toEqual(exportFiles)
    // and nothing for an address that is no page
    for (const address of ['/exports', '/exports/a%2Fb', '/search/more', '/no-such-page']) {
      const none = (await rawGet(`${svc.url}${address}`)).body.toString()
      expect(preload(none), address).toEqual([])
      expect(none, address).toContain('<div id="root"><!--app--><div>mark</div><!--/app--></div>')
    }
  })

  it('puts the prerendered markup of the browser’s variant into the root: English only, bare addresses only, by the session hint', async () => {
    const root = async (address: string, headers: Record<string, string> = {}) => {
      const res = await rawGet(`${svc.url}${address}`, headers)
      expect(res.headers.vary).toBe('Accept-Encoding, Accept-Language, Cookie')
      const html = res.body.toString()
      const m = /<div id="root"([^>]*)>([\s\S]*?)<\/div><\/body>/.exec(html)
      return { variant: /data-prerendered="([^"]+)"/.exec(m?.[1] ?? '')?.[1] ?? null, inner: m?.[2] ?? '' }
    }
    expect(await root('/sign-in')).toEqual({ variant: 'signed-out', inner: PRERENDERED['/sign-in']['signed-out'] })
    expect(await root('/sign-in', { 'Accept-Language': 'en-GB,de;q=0.8' })).toMatchObject({ variant: 'signed-out' })
    // a browser that asks for another supported language first, or chose one, is drawn in the browser
    expect(await root('/sign-in', { 'Accept-Language': 'de-DE,en;q=0.8' })).toEqual({
      variant: null,
      inner: '<!--app--><div>mark</div><!--/app-->',
    })
    expect(await root('/sign-in', { 'Accept-Language': 'nn' })).toMatchObject({ variant: null })
    expect(await root('/sign-in', { Cookie: 'leads.lang=he' })).toMatchObject({ variant: null })
    // a stored English choice wins over the browser's language; an unknown stored value does not count
    expect(await root('/sign-in', { Cookie: 'leads.lang=en', 'Accept-Language': 'de' })).toMatchObject({ variant: 'signed-out' })
    expect(await root('/sign-in', { Cookie: 'leads.lang=xx', 'Accept-Language': 'de' })).toMatchObject({ variant: null })
    // the session hint picks the variant; a page without that variant is drawn in the browser
    expect(await root('/plans', { Cookie: 'leads.signed-in=1' })).toEqual({
      variant: 'signed-in',
      inner: PRERENDERED['/plans']['signed-in'],
    })
    expect(await root('/plans')).toEqual({ variant: 'signed-out', inner: PRERENDERED['/plans']['signed-out'] })
    expect(await root('/search', { Cookie: 'leads.signed-in=1' })).toMatchObject({ variant: 'signed-in' })
    expect(await root('/search')).toMatchObject({ variant: null })
    expect(await root('/sign-in', { Cookie: 'leads.signed-in=1' })).toMatchObject({ variant: null })
    // a query (a search's filters, the sign-in page's reason) changes the page: no markup
    expect(await root('/search?countries=DE', { Cookie: 'leads.signed-in=1' })).toMatchObject({ variant: null })
    expect(await root('/sign-in?reason=expired')).toMatchObject({ variant: null })
  })

  it('serves the versioned strings like hashed assets, and nothing else under their folder', async () => {
    const strings = await rawGet(`${svc.url}/locales/v1/de/search.json`, { 'Accept-Encoding': 'gzip' })
    expect(strings.status).toBe(200)
    expect(strings.headers['content-type']).toBe('application/json; charset=utf-8')
    expect(strings.headers['cache-control']).toBe('public, max-age=31536000, immutable')
    expect(strings.headers['content-encoding']).toBe('gzip')
    expect(gunzipSync(strings.body).toString()).toBe(GERMAN)
    // another build's version, a language or namespace the build did not write, a way out of the folder:
    // 404, never the dashboard's page (which a client would take for strings) nor a file elsewhere
    for (const p of [
      '/locales/v0/de/search.json',
      '/locales/v1/xx/search.json',
      '/locales/v1/de/nothing.json',
      '/locales/v1/de/',
      '/locales/v1/de/..%2f..%2f..%2f.vite%2fmanifest.json',
    ]) {
      const answer = await fetch(`${svc.url}${p}`)
      expect(answer.status, p).toBe(404)
      expect(await answer.text(), p).not.toMatch(/isEntry|<div id="root"/)
    }
    // out of the build altogether: the dashboard's page, as for any other address (no file outside dist)
    const outside = await fetch(`${svc.url}/locales/v1/de/..%2f..%2f..%2f..%2f..%2f..%2f..%2fetc%2fpasswd`)
    expect(await outside.text()).not.toContain('root:')
  })

  it('serves robots.txt as text, and not the build’s manifest', async () => {
    const robots = await fetch(`${svc.url}/robots.txt`)
    expect(robots.headers.get('content-type')).toBe('text/plain; charset=utf-8')
    expect(await robots.text()).toContain('Disallow: /')
    // a hidden file of the build is nobody's page, however its path is spelt (issue 22)
    for (const p of ['/.vite/manifest.json', '/x/..%2f.vite/manifest.json']) {
      const manifest = await fetch(`${svc.url}${p}`)
      expect(manifest.status, p).toBe(404)
      expect(await manifest.text(), p).not.toContain('isEntry')
    }
  })

  it('compresses API JSON of 1 KB or more when the client accepts gzip, never small answers', async () => {
    const schema = await rawGet(`${svc.url}/api/schema/`, { 'Accept-Encoding': 'gzip' })
    expect(schema.headers['content-encoding']).toBe('gzip')
    expect(schema.headers.vary).toContain('Accept-Encoding')
    expect(schema.headers['cache-control']).toBe('no-store')
    expect(JSON.parse(gunzipSync(schema.body).toString())).toHaveProperty('openapi', '3.1.0')
    // answers with secrets never, whatever their size (BREACH): the API key list of a fresh account
    const login = await svc.request('/api/auth/login/', {
      method: 'POST',
      json: { username: 'demo@example.com', password: 'demo-password' },
    })
    expect(login.status).toBe(200)
    const { access } = (await login.json()) as { access: string }
    for (let i = 0; i < 20; i++) {
      const created = await svc.request('/api/user/api-keys/', {
        method: 'POST',
        json: { name: `key ${i} ${'x'.repeat(50)}` },
        token: access,
      })
      expect(created.status).toBe(201)
    }
    const keys = await rawGet(`${svc.url}/api/user/api-keys/`, { 'Accept-Encoding': 'gzip', Authorization: `Bearer ${access}` })
    expect(keys.status).toBe(200)
    expect(keys.body.length).toBeGreaterThan(1024)
    expect(keys.headers['content-encoding']).toBeUndefined()
    const small = await rawGet(`${svc.url}/api/nothing-here/`, { 'Accept-Encoding': 'gzip' })
    expect(small.status).toBe(404)
    expect(small.headers['content-encoding']).toBeUndefined()
    expect(JSON.parse(small.body.toString())).toHaveProperty('code', 'not_found')
  })
})

describe('the route table the build writes', () => {
  it('fails the build for a source the manifest does not name, or a pattern the service cannot match', () => {
    expect(() => routeFiles(MANIFEST, { '/plans': ['src/app/routes/plans.tsx'] })).toThrow(/plans\.tsx/)
    expect(() => routeFiles(MANIFEST, { '/files/*': ['src/app/routes/search.tsx'] })).toThrow(/cannot match/)
  })

  it('is optional: a build without it serves every page, only without hints', async () => {
    const bare = await mkdtemp(path.join(tmpdir(), 'leads-dist-'))
    try {
      await writeFile(path.join(bare, 'index.html'), '<!doctype html><div id="root"><!--app--><div>mark</div><!--/app--></div>')
      const app = new Hono().get('*', (c) => serveDashboard(c, bare))
      for (const address of ['/search', '/sign-in', '/exports/s-12']) {
        const res = await app.request(address)
        expect(res.status, address).toBe(200)
        expect(await res.text(), address).toBe('<!doctype html><div id="root"><!--app--><div>mark</div><!--/app--></div>')
      }
    } finally {
      await rm(bare, { recursive: true, force: true })
    }
  })
})
