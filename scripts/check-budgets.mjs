// Budget gate on the production build (dist/ + dist/.vite/manifest.json). Prints every figure.
//   sign-in first load JS (entry + its static imports + the sign-in route chunk graph) ≤ 150 KB gzip
//   search first load JS (entry + shell + search route chunk graphs)                  ≤ 190 KB gzip
//   CSS (all stylesheets of the build)                                                 ≤ 20 KB gzip
//   each locale chunk                                                                  ≤ 12 KB gzip
//   no language but English in the first load (no locales/<lng>/ module in those graphs)
import { existsSync, readFileSync } from 'node:fs'
import { gzipSync } from 'node:zlib'

const KB = 1024
const BUDGETS = { signIn: 150 * KB, search: 190 * KB, css: 20 * KB, locale: 12 * KB }
const manifestPath = 'dist/.vite/manifest.json'
if (!existsSync(manifestPath)) {
  console.error(`${manifestPath} not found: run \`npx vite build\` first`)
  process.exit(1)
}
const manifest = JSON.parse(readFileSync(manifestPath, 'utf8'))
const gzipCache = new Map()
const gz = (file) => {
  if (!gzipCache.has(file)) gzipCache.set(file, gzipSync(readFileSync(`dist/${file}`), { level: 9 }).length)
  return gzipCache.get(file)
}
const fmt = (bytes) => `${(bytes / KB).toFixed(1)} KB`

const entryKey = Object.keys(manifest).find((k) => manifest[k].isEntry)
if (!entryKey) throw new Error('no entry in the manifest')
const routeKey = (name) => {
  const key = `src/app/routes/${name}.tsx`
  if (!manifest[key]) throw new Error(`${key} is not a chunk of the build`)
  return key
}

/** Manifest keys statically reachable from `keys` (what the browser must load before rendering). */
function staticGraph(keys) {
  const seen = new Set()
  const walk = (k) => {
    if (seen.has(k)) return
    seen.add(k)
    for (const i of manifest[k].imports ?? []) walk(i)
  }
  keys.forEach(walk)
  return seen
}
const jsBytes = (graph) => [...graph].reduce((sum, k) => sum + (manifest[k].file.endsWith('.js') ? gz(manifest[k].file) : 0), 0)

const problems = []
const check = (label, bytes, budget) => {
  const ok = bytes <= budget
  console.log(`${ok ? 'ok  ' : 'OVER'} ${label.padEnd(52)} ${fmt(bytes).padStart(9)}  (budget ${fmt(budget)})`)
  if (!ok) problems.push(`${label}: ${fmt(bytes)} > ${fmt(budget)}`)
}

const signInGraph = staticGraph([entryKey, routeKey('sign-in')])
// signed-in pages load the English strings of the signed-in pages beside their code (src/lib/i18n.ts)
const pageEnglish = Object.keys(manifest).filter((k) => /^locales\/en\/[a-z-]+\.json$/.test(k))
const searchGraph = staticGraph([entryKey, routeKey('shell'), routeKey('search'), ...pageEnglish])
console.log('Budgets (gzip, level 9)')
check('sign-in first-load JS', jsBytes(signInGraph), BUDGETS.signIn)
check(`search first-load JS (+ ${pageEnglish.length} English page namespaces)`, jsBytes(searchGraph), BUDGETS.search)

const cssFiles = new Set(Object.values(manifest).flatMap((m) => [...(m.css ?? []), ...(m.file.endsWith('.css') ? [m.file] : [])]))
check(`CSS (${cssFiles.size} file${cssFiles.size === 1 ? '' : 's'})`, [...cssFiles].reduce((s, f) => s + gz(f), 0), BUDGETS.css)

const localeKeys = Object.keys(manifest).filter((k) => /^locales\/(?!en\/)[a-z]{2}\/[a-z-]+\.json$/.test(k))
let biggest = { key: '(none)', bytes: 0 }
for (const k of localeKeys) {
  const bytes = gz(manifest[k].file)
  if (bytes > biggest.bytes) biggest = { key: k, bytes }
  if (bytes > BUDGETS.locale) problems.push(`${k}: ${fmt(bytes)} > ${fmt(BUDGETS.locale)}`)
}
check(`largest of ${localeKeys.length} locale chunks (${biggest.key})`, biggest.bytes, BUDGETS.locale)

for (const [name, graph] of [['sign-in', signInGraph], ['search', searchGraph]]) {
  const foreign = [...graph].filter((k) => /^locales\/(?!en\/)/.test(k))
  if (foreign.length) problems.push(`${name} first load contains other languages: ${foreign.join(', ')}`)
  else console.log(`ok   ${name} first load: English only`)
}

console.log('\nsign-in first load:')
for (const k of [...signInGraph].sort((a, b) => gz(manifest[b].file) - gz(manifest[a].file))) {
  console.log(`  ${fmt(gz(manifest[k].file)).padStart(9)}  ${manifest[k].file}  (${k})`)
}

if (problems.length) {
  console.error(`\n${problems.length} over budget:\n  ${problems.join('\n  ')}`)
  process.exit(1)
}
console.log('\nbudgets ok')
