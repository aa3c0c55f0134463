import { existsSync, readFileSync, statSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { NAMESPACES } from '@/config/languages'
import { enResources, ON_DEMAND_NAMESPACES } from '@/lib/i18n'

/**
 * Each page loads only the English strings router.tsx lists for it. This walks the source a page
 * imports (static and dynamic imports, everything it can reach) and collects every namespace its
 * code asks for, so a list that forgets one (the page would show raw keys) fails here.
 */
const root = path.resolve(import.meta.dirname, '../..')
// the first load's namespaces, and those the API client fetches when an error arrives
const bundled = new Set<string>([...Object.keys(enResources), ...ON_DEMAND_NAMESPACES])

function resolveImport(from: string, spec: string): string | null {
  let base: string
  if (spec.startsWith('@/')) base = path.join(root, 'src', spec.slice(2))
  else if (spec.startsWith('.')) base = path.resolve(path.dirname(from), spec)
  else return null
  for (const candidate of [base, `${base}.ts`, `${base}.tsx`, `${base}/index.ts`, `${base}/index.tsx`]) {
    if (existsSync(candidate) && statSync(candidate).isFile()) return candidate
  }
  return null
}

const NAMESPACE_NAMES = new Set<string>(NAMESPACES)
/**
 * Namespaces a lazily loaded part fetches itself (`Promise.all([import(…), loadPageNamespaces(['exports'])])`,
 * e.g. the export confirmation): the page need not list them.
 */
function namespacesSelfLoaded(file: string, seen = new Set<string>(), found = new Set<string>()): Set<string> {
  if (seen.has(file) || /\.(test|stories)\.tsx?$/.test(file) || !/\.tsx?$/.test(file)) return found
  seen.add(file)
  const src = readFileSync(file, 'utf8')
  for (const m of src.matchAll(/loadPageNamespaces\(\[([^\]]*)\]\)/g)) for (const n of m[1]!.matchAll(/'([a-z]+)'/g)) found.add(n[1]!)
  for (const m of src.matchAll(/(?:\bfrom\s+|\bimport\s*\(\s*|^import\s+)'([^']+)'/gm)) {
    const next = resolveImport(file, m[1]!)
    if (next) namespacesSelfLoaded(next, seen, found)
  }
  return found
}

function namespacesUsed(file: string, seen = new Set<string>(), found = new Set<string>()): Set<string> {
  if (seen.has(file) || /\.(test|stories)\.tsx?$/.test(file) || !/\.tsx?$/.test(file)) return found
  seen.add(file)
  const src = readFileSync(file, 'utf8')
  for (const m of src.matchAll(/useTranslation\(\s*(\[[^\]]*\]|'[a-z]+')?/g)) {
    if (!m[1])
      found.add('common') // the default namespace
    else for (const n of m[1].matchAll(/'([a-z]+)'/g)) found.add(n[1]!)
  }
  for (const m of src.matchAll(/\bns[:=]\s*['"{]*'?([a-z]+)'/g)) if (NAMESPACE_NAMES.has(m[1]!)) found.add(m[1]!)
  for (const m of src.matchAll(/['"`]([a-z]+):[a-zA-Z]/g)) if (NAMESPACE_NAMES.has(m[1]!)) found.add(m[1]!)
  for (const m of src.matchAll(/(?:\bfrom\s+|\bimport\s*\(\s*|^import\s+)'([^']+)'/gm)) {
    const next = resolveImport(file, m[1]!)
    if (next) namespacesUsed(next, seen, found)
  }
  return found
}

const router = readFileSync(path.join(root, 'src/app/router.tsx'), 'utf8')
const pages = [...router.matchAll(/page\(\(\) => import\('\.\/routes\/([a-z-]+)'\), \[([^\]]*)\]\)/g)].map((m) => ({
  route: m[1]!,
  listed: [...m[2]!.matchAll(/'([a-z]+)'/g)].map((n) => n[1]!),
}))
const plain = [...router.matchAll(/lazy: \(\) => import\('\.\/routes\/([a-z-]+)'\)/g)].map((m) => m[1]!)

describe('the English strings each page loads', () => {
  it('finds the pages of router.tsx', () => {
    expect(pages.map((p) => p.route)).toEqual(expect.arrayContaining(['search', 'history', 'account', 'api-keys', 'plans', 'export-job']))
    expect(plain).toEqual(expect.arrayContaining(['sign-in', 'shell', 'not-found']))
  })

  it.each(pages)('$route lists every namespace its code uses (beyond the bundled ones)', ({ route, listed }) => {
    const entry = path.join(root, 'src/app/routes', `${route}.tsx`)
    const used = namespacesUsed(entry)
    const selfLoaded = namespacesSelfLoaded(entry)
    const needed = [...used].filter((ns) => !bundled.has(ns) && !selfLoaded.has(ns)).sort()
    expect(needed.length).toBeGreaterThan(0)
    expect([...listed].sort()).toEqual(needed)
  })

  it.each(plain)('%s (no list) uses only the namespaces of the first load, or loads the others itself', (route) => {
    const entry = path.join(root, 'src/app/routes', `${route}.tsx`)
    const selfLoaded = namespacesSelfLoaded(entry)
    expect([...namespacesUsed(entry)].filter((ns) => !bundled.has(ns) && !selfLoaded.has(ns))).toEqual([])
  })

  it('sees a namespace used through an import, so the walk is not empty-handed', () => {
    // the search page's export dialog lives in features/exports and speaks the exports namespace
    expect(namespacesUsed(path.join(root, 'src/app/routes/search.tsx'))).toContain('exports')
  })
})
