// Locale gate: every key of locales/en/<ns>.json in all 27 languages, the same {{variables}},
// the plural forms each language needs (Intl.PluralRules), and no language that is mostly English.
// Usage: node scripts/check-locales.mjs [--ns common,auth] [--print-languages]
import { existsSync, readFileSync } from 'node:fs'

const IDENTICAL_LIMIT = 0.5
const PLURAL_SUFFIXES = ['zero', 'one', 'two', 'few', 'many', 'other']

/** The lists live in src/config/languages.ts; read them from there so there is one source. */
function readConstArray(source, name) {
  const m = source.match(new RegExp(`export const ${name} = \\[([\\s\\S]*?)\\] as const`))
  if (!m) throw new Error(`could not find ${name} in src/config/languages.ts`)
  return [...m[1].matchAll(/'([^']+)'/g)].map((x) => x[1])
}
const languagesSource = readFileSync('src/config/languages.ts', 'utf8')
const LANGUAGES = readConstArray(languagesSource, 'LANGUAGES')
// the dashboard's namespaces and the service's (its mails): both are checked the same way
const NAMESPACES = [...readConstArray(languagesSource, 'NAMESPACES'), ...readConstArray(languagesSource, 'SERVICE_NAMESPACES')]

const args = process.argv.slice(2)
if (args.includes('--print-languages')) {
  console.log(JSON.stringify({ languages: LANGUAGES, namespaces: NAMESPACES }))
  process.exit(0)
}
const nsArg = args.indexOf('--ns')
const namespaces =
  nsArg >= 0
    ? args[nsArg + 1]
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean)
    : NAMESPACES
for (const ns of namespaces) if (!NAMESPACES.includes(ns)) throw new Error(`unknown namespace ${ns}`)

function flatten(obj, prefix = '', out = new Map()) {
  for (const [k, v] of Object.entries(obj)) {
    const key = prefix ? `${prefix}.${k}` : k
    if (v && typeof v === 'object' && !Array.isArray(v)) flatten(v, key, out)
    else out.set(key, v)
  }
  return out
}

const variables = (s) =>
  [...String(s).matchAll(/\{\{\s*([\w.]+)[^}]*\}\}/g)]
    .map((m) => m[1])
    .sort()
    .join(',')

function load(lng, ns) {
  const file = `locales/${lng}/${ns}.json`
  if (!existsSync(file)) return null
  try {
    return flatten(JSON.parse(readFileSync(file, 'utf8')))
  } catch (e) {
    return new Error(`${file}: ${e.message}`)
  }
}

/** English keys grouped: a plural base ("x" for x_one/x_other) or a plain key. */
function englishEntries(en) {
  const plural = new Map()
  const plain = new Map()
  for (const [key, value] of en) {
    const m = key.match(/^(.*)_(zero|one|two|few|many|other)$/)
    if (m && en.has(`${m[1]}_other`)) {
      if (!plural.has(m[1])) plural.set(m[1], en.get(`${m[1]}_other`))
    } else plain.set(key, value)
  }
  return { plural, plain }
}

const problems = []
const rows = []
for (const lng of LANGUAGES) {
  if (lng === 'en') continue
  const categories = new Intl.PluralRules(lng).resolvedOptions().pluralCategories
  let total = 0
  let missing = 0
  let compared = 0
  let identical = 0
  for (const ns of namespaces) {
    const en = load('en', ns)
    if (!en || en instanceof Error) {
      problems.push(`en/${ns}: ${en ? en.message : 'missing'}`)
      continue
    }
    const tr = load(lng, ns)
    if (tr instanceof Error) {
      problems.push(tr.message)
      continue
    }
    const { plural, plain } = englishEntries(en)
    const expected = new Set()
    const check = (key, enValue) => {
      expected.add(key)
      total++
      const value = tr?.get(key)
      if (typeof value !== 'string' || value.trim() === '') {
        missing++
        problems.push(`${lng}/${ns}: missing "${key}"`)
        return
      }
      if (variables(value) !== variables(enValue)) {
        problems.push(`${lng}/${ns}: "${key}" has {{${variables(value)}}} but English has {{${variables(enValue)}}}`)
      }
      if (String(enValue).length > 3) {
        compared++
        if (value === enValue) identical++
      }
    }
    for (const [key, value] of plain) check(key, value)
    for (const [base, other] of plural) for (const cat of categories) check(`${base}_${cat}`, other)
    for (const key of tr?.keys() ?? []) {
      const m = key.match(/^(.*)_(zero|one|two|few|many|other)$/)
      // i18next also reads _zero and the English forms; extra plural forms are harmless
      if (expected.has(key) || (m && plural.has(m[1]) && PLURAL_SUFFIXES.includes(m[2]))) continue
      problems.push(`${lng}/${ns}: "${key}" is not an English key`)
    }
  }
  const share = compared ? identical / compared : 0
  if (share > IDENTICAL_LIMIT) problems.push(`${lng}: ${(share * 100).toFixed(0)}% of strings are identical to English`)
  rows.push({ lng, total, missing, identical: `${identical}/${compared} (${(share * 100).toFixed(0)}%)`, plurals: categories.join(' ') })
}

// Glossary (issue 10): one word per product term and language. A string whose English uses the term
// must use the language's word for it (a pattern admitting its inflections), in every namespace.
const glossary = JSON.parse(readFileSync('locales/glossary.json', 'utf8'))
const unsettled = []
const names = new Set(glossary.names ?? [])
for (const lng of LANGUAGES) {
  if (lng === 'en') continue
  const words = glossary.languages[lng] ?? {}
  for (const term of Object.keys(glossary.terms)) if (!words[term]) unsettled.push(`${lng}:${term}`)
  for (const ns of namespaces) {
    const en = load('en', ns)
    const tr = load(lng, ns)
    if (!en || en instanceof Error || !tr || tr instanceof Error) continue
    for (const [term, word] of Object.entries(words)) {
      const inEnglish = new RegExp(glossary.terms[term].en, 'iu')
      const inLanguage = new RegExp(word, 'iu')
      for (const [key, translated] of tr) {
        if (names.has(`${ns}:${key}`)) continue
        // a plural form English lacks (_few, _many, _two…) answers to English's _other
        const plural = /^(.*)_(zero|one|two|few|many|other)$/.exec(key)
        const value = en.get(key) ?? (plural ? en.get(`${plural[1]}_other`) : undefined)
        if (typeof value === 'string' && typeof translated === 'string' && inEnglish.test(value) && !inLanguage.test(translated)) {
          problems.push(`${lng}/${ns}: "${key}" does not use the glossary's word for ${term} (/${word}/): ${translated}`)
        }
      }
    }
  }
}

console.log(`Locales: ${LANGUAGES.length} languages, namespaces ${namespaces.join(', ')}`)
console.log(`Glossary: ${Object.keys(glossary.terms).join(', ')}${unsettled.length ? `; not settled yet: ${unsettled.join(', ')}` : ''}`)
console.log('lng  keys  missing  identical-to-English  plural forms')
for (const r of rows)
  console.log(
    `${r.lng.padEnd(4)} ${String(r.total).padStart(4)}  ${String(r.missing).padStart(7)}  ${r.identical.padEnd(20)}  ${r.plurals}`,
  )
if (problems.length) {
  const shown = problems.slice(0, 60)
  console.error(
    `\n${problems.length} problem(s):\n  ${shown.join('\n  ')}${problems.length > shown.length ? `\n  … and ${problems.length - shown.length} more` : ''}`,
  )
  process.exit(1)
}
console.log('\nlocales ok')
