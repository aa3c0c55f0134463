import type { Language } from '@/config/languages'
/**
 * Numbers, dates, sizes and money in the active language, always through Intl (never string
 * concatenation). Formatters are cached per language because constructing them is not free.
 */
type Formatter = Intl.NumberFormat | Intl.DateTimeFormat | Intl.RelativeTimeFormat | Intl.DisplayNames | Intl.ListFormat | Intl.Collator
const cache = new Map<string, Formatter>()

function cached<T extends Formatter>(key: string, make: () => T): T {
  let f = cache.get(key) as T | undefined
  if (!f) {
    f = make()
    cache.set(key, f)
  }
  return f
}

export const formatNumber = (lng: string, n: number) => cached(`n:${lng}`, () => new Intl.NumberFormat(lng)).format(n)

export const formatPercent = (lng: string, fraction: number) =>
  cached(`p:${lng}`, () => new Intl.NumberFormat(lng, { style: 'percent', maximumFractionDigits: 0 })).format(fraction)

/** Prices of the interface are USD decimal strings ("49.00"). */
export const formatMoney = (lng: string, amount: number | string, currency = 'USD', maximumFractionDigits = 2) =>
  cached(
    `m:${lng}:${currency}:${maximumFractionDigits}`,
    () => new Intl.NumberFormat(lng, { style: 'currency', currency, maximumFractionDigits }),
  ).format(typeof amount === 'string' ? Number(amount) : amount)

export const formatDate = (lng: string, d: Date | string | number) =>
  cached(`d:${lng}`, () => new Intl.DateTimeFormat(lng, { dateStyle: 'medium' })).format(new Date(d))

export const formatDateTime = (lng: string, d: Date | string | number) =>
  cached(`dt:${lng}`, () => new Intl.DateTimeFormat(lng, { dateStyle: 'medium', timeStyle: 'short' })).format(new Date(d))

const RELATIVE_UNITS: [Intl.RelativeTimeFormatUnit, number][] = [
  ['year', 31_536_000],
  ['month', 2_592_000],
  ['week', 604_800],
  ['day', 86_400],
  ['hour', 3_600],
  ['minute', 60],
  ['second', 1],
]

/**
 * "in 3 days", "2 hours ago": the largest unit the span reaches, rounded to the nearest value of it
 * (a 3-day link seconds after it was made reads "in 3 days", not "in 2 days"). A span counts as
 * reaching a unit once it rounds to at least one of it in the next smaller unit (59 min 40 s is
 * "in 1 hour", not "in 60 minutes").
 */
export function formatRelative(lng: string, target: Date | string | number, now: number = Date.now()): string {
  const rtf = cached(`r:${lng}`, () => new Intl.RelativeTimeFormat(lng, { numeric: 'auto' }))
  const seconds = (new Date(target).getTime() - now) / 1000
  const abs = Math.abs(seconds)
  const sign = seconds < 0 ? -1 : 1
  for (let i = 0; i < RELATIVE_UNITS.length - 1; i++) {
    const [unit, size] = RELATIVE_UNITS[i]!
    const sub = RELATIVE_UNITS[i + 1]![1]
    // rounded on the magnitude, so that past and future round alike (Math.round(-1.5) is -1)
    if (Math.round(abs / sub) * sub >= size) return rtf.format(sign * Math.round(abs / size), unit)
  }
  return rtf.format(sign * Math.round(abs), 'second')
}

/** File sizes with Intl's unit formatting: "1.4 MB", "980 kB". */
export function formatBytes(lng: string, bytes: number): string {
  const units = ['byte', 'kilobyte', 'megabyte', 'gigabyte'] as const
  let value = bytes
  let i = 0
  while (value >= 1000 && i < units.length - 1) {
    value /= 1000
    i++
  }
  return cached(
    `b:${lng}:${units[i]}`,
    () =>
      new Intl.NumberFormat(lng, {
        style: 'unit',
        unit: units[i],
        unitDisplay: 'short',
        maximumFractionDigits: i === 0 ? 0 : 1,
      }),
  ).format(value)
}

const bareSpaceSeparator = new Map<string, boolean>()

/**
 * A list of names ("A, B and C") as parts, so each name can sit in its own element: the one way the
 * app joins a list, as Intl writes it in the active language (Hebrew's "ו" stays attached to the name
 * it precedes: "בית קפה ומאפייה", "Bayern ו-München"). Languages whose list separator is a bare space
 * (Thai, written without spaces between words: "เชียงใหม่ บางรัก และพระนคร") would run multi-word names
 * together ("Chiang Mai Bang Rak"), so there a bare-space separator becomes a comma, and a conjunction
 * written against a name ("และPhra Nakhon") gets a space on that side.
 */
export function listParts(lng: string, items: readonly string[]): { type: 'element' | 'literal'; value: string }[] {
  const format = cached(`list:${lng}`, () => new Intl.ListFormat(lng, { style: 'long', type: 'conjunction' }))
  const parts = format.formatToParts(items)
  let bareSpace = bareSpaceSeparator.get(lng)
  if (bareSpace === undefined) {
    // a two-name list has no separator to look at: ask for three once per language
    bareSpace = /^\s+$/u.test(format.formatToParts(['a', 'b', 'c'])[1]!.value)
    bareSpaceSeparator.set(lng, bareSpace)
  }
  if (!bareSpace) return parts
  return parts.map((p, i) => {
    if (p.type !== 'literal') return { type: 'element', value: p.value }
    if (/^\s+$/u.test(p.value)) return { type: 'literal', value: ', ' }
    // a word joined to the names around it (Thai "A และB", "AและB"): keep the names apart
    const before = i > 0 && /^\p{L}/u.test(p.value) ? ' ' : ''
    const after = parts[i + 1]?.type === 'element' && /\p{L}$/u.test(p.value) ? ' ' : ''
    return { type: 'literal', value: `${before}${p.value}${after}` }
  })
}

/** Country names from Intl in the active language; falls back to the code. */
export const countryName = (lng: string, alpha2: string) =>
  cached(`c:${lng}`, () => new Intl.DisplayNames([lng], { type: 'region' })).of(alpha2.toUpperCase()) ?? alpha2

/** Sorts names the way the active language does (one collator per language, built on first use). */
export const compareNames = (lng: string) => cached(`col:${lng}`, () => new Intl.Collator(lng)).compare

export const languageName = (lng: string, code: string) =>
  cached(`l:${lng}`, () => new Intl.DisplayNames([lng], { type: 'language' })).of(code) ?? code

/**
 * Each language named in itself, first letter upper-cased by its own rules: what
 * `Intl.DisplayNames([code]).of(code)` gives (format.test.ts checks they agree), written out because
 * building 27 DisplayNames, one per locale, cost ≈ 170 ms of the sign-in page's first load.
 */
const OWN_NAMES: Record<Language, string> = {
  bg: 'Български',
  cs: 'Čeština',
  da: 'Dansk',
  de: 'Deutsch',
  el: 'Ελληνικά',
  fr: 'Français',
  en: 'English',
  es: 'Español',
  et: 'Eesti',
  fi: 'Suomi',
  he: 'עברית',
  hr: 'Hrvatski',
  hu: 'Magyar',
  it: 'Italiano',
  lt: 'Lietuvių',
  lv: 'Latviešu',
  nb: 'Norsk bokmål',
  nl: 'Nederlands',
  pl: 'Polski',
  pt: 'Português',
  ro: 'Română',
  sk: 'Slovenčina',
  sl: 'Slovenščina',
  sr: 'Српски',
  sv: 'Svenska',
  th: 'ไทย',
  tr: 'Türkçe',
}

/** A language named in itself ("Čeština", "Deutsch", "עברית"): the one spelling for every list of languages (header, account). */
export const ownLanguageName = (code: Language): string => OWN_NAMES[code]

/**
 * The languages in the order `Intl.Collator('en')` sorts their own names (format.test.ts checks it),
 * written out because the first collator a page builds costs ≈ 15 ms (its collation data), and the
 * header's language switcher would pay that on every page's first render.
 */
const BY_OWN_NAME: readonly Language[] = [
  'cs',
  'da',
  'de',
  'et',
  'en',
  'es',
  'fr',
  'hr',
  'it',
  'lv',
  'lt',
  'hu',
  'nl',
  'nb',
  'pl',
  'pt',
  'ro',
  'sk',
  'sl',
  'fi',
  'sv',
  'tr',
  'el',
  'bg',
  'sr',
  'he',
  'th',
]
const byOwnName = BY_OWN_NAME.map((code) => ({ code, name: OWN_NAMES[code] }))

/** Every language by its own name, in one order for every list (header, account). */
export const languagesByOwnName = (): readonly { code: Language; name: string }[] => byOwnName
