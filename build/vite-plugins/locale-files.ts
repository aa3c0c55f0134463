import { createHash } from 'node:crypto'
import { readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import type { Plugin } from 'vite'

const LOCALES = new URL('../../locales/', import.meta.url).pathname

/** `lng/ns.json` of every language but English (bundled or a chunk with its page), without the service's mails. */
function localeFiles(): string[] {
  return readdirSync(LOCALES, { withFileTypes: true })
    .filter((d) => d.isDirectory() && d.name !== 'en')
    .flatMap((d) =>
      readdirSync(path.join(LOCALES, d.name))
        .filter((f) => f.endsWith('.json') && f !== 'mail.json')
        .map((f) => `${d.name}/${f}`),
    )
    .sort()
}

/** One hash over the files and their content: any change to a translation gives every file a new address. */
function localesVersion(files: readonly string[]): string {
  const hash = createHash('sha256')
  for (const f of files)
    hash
      .update(f)
      .update('\0')
      .update(readFileSync(path.join(LOCALES, f)))
      .update('\0')
  return hash.digest('hex').slice(0, 12)
}

/**
 * The other languages' strings as files at stable, versioned addresses (`locales/<version>/<lng>/<ns>.json`,
 * fetched by src/lib/i18n.ts) rather than chunks: a table of ~350 hashed chunk names would be part of
 * every page's first load. The build writes them (minified JSON; the service caches them like hashed
 * assets), the dev server serves the same addresses from locales/, and `__LOCALES_VERSION__` names the version.
 */
export function localeFilesPlugin(): Plugin {
  const files = localeFiles()
  const version = localesVersion(files)
  const known = new Set(files)
  return {
    name: 'leads:locale-files',
    config: () => ({ define: { __LOCALES_VERSION__: JSON.stringify(version) } }),
    configureServer(server) {
      server.middlewares.use((req, res, next) => {
        const m = /^\/locales\/([^/]+)\/([a-z]{2})\/([a-z]+\.json)$/.exec((req.url ?? '').split('?')[0]!)
        if (!m) return next()
        const file = `${m[2]}/${m[3]}`
        if (m[1] !== version || !known.has(file)) {
          res.statusCode = 404
          return res.end()
        }
        res.setHeader('Content-Type', 'application/json; charset=utf-8')
        // read at each request: an edited translation shows on reload (the version is the start's)
        res.end(readFileSync(path.join(LOCALES, file)))
      })
    },
    generateBundle() {
      for (const f of files)
        this.emitFile({
          type: 'asset',
          fileName: `locales/${version}/${f}`,
          source: JSON.stringify(JSON.parse(readFileSync(path.join(LOCALES, f), 'utf8'))),
        })
    },
  }
}
