import { NumberParser } from '@internationalized/number'

/**
 * The one way the dashboard reads a whole number a person typed (issue 21): an export cap, an API
 * key's credit cap. The digits are read by `@internationalized/number` (React Aria's parser: the
 * language's numbering systems, Arabic-Indic or Thai digits included); what this module adds is the
 * refusal of everything that could be read two ways, because these numbers are money.
 *
 * - Grouping separators of the language and of plain English are accepted: `1,000`, `1.000`,
 *   `1 000` (any space: NBSP, narrow NBSP), `1'000`, but only between groups of three digits, so
 *   `1,0` is refused rather than read as 10.
 * - The language's decimal mark always means a decimal, and decimals are refused: `2.5` in English,
 *   `1,5` or `1,0` in German. So `1.000` is a thousand in German (the dot groups) but is refused in
 *   English, where it reads as one point zero zero zero; `1,000` likewise is a thousand in English
 *   and refused in German. Refusing costs the person a correction; guessing could cost them credits.
 * - A dot or comma that is neither the language's decimal mark nor its group (a dot in Polish or
 *   French) is read as grouping, with the same groups of three.
 * - A minus sign, 0, letters, exponents, several kinds of group separators in one number: refused.
 */
export type WholeNumberProblem = 'empty' | 'notANumber' | 'decimal' | 'grouping' | 'tooSmall' | 'tooLarge'
export type WholeNumber = { ok: true; value: number } | { ok: false; reason: WholeNumberProblem }

export interface WholeNumberLimits {
  /** Smallest accepted value (default 1). */
  min?: number
  /** Largest accepted value (default Number.MAX_SAFE_INTEGER). */
  max?: number
}

// Hyphen-minus, the minus sign (Estonian, Finnish, Swedish… format with U+2212), dashes
const MINUS = /^[-\u2212\u2012\u2013\u2014\uFE63\uFF0D]/u
const PLUS = /^[+\uFF0B]/u
// one number: runs of digits (any numbering system) with single separators between them
const SHAPE = /^\p{Nd}+(?:[.,'\u2019\u066B\u066C\p{Zs}]\p{Nd}+)*$/u
const RUN = /\p{Nd}+/gu
const SEPARATOR = /[^\p{Nd}]/gu
// Arabic decimal separator: a decimal mark whatever the language
const ARABIC_DECIMAL = '\u066B'

const decimalByLocale = new Map<string, string>()
/** The language's decimal mark ("." in English, "," in German). */
function decimalMarkOf(locale: string): string {
  let mark = decimalByLocale.get(locale)
  if (mark === undefined) {
    mark = new Intl.NumberFormat(locale).formatToParts(1.5).find((p) => p.type === 'decimal')?.value ?? '.'
    decimalByLocale.set(locale, mark)
  }
  return mark
}

/** One kind per separator: every space is the same kind, as are both apostrophes. */
const kindOf = (c: string) => (/\p{Zs}/u.test(c) ? ' ' : c === '\u2019' ? "'" : c)

/** The digits as a number, in whatever numbering system they were typed (NaN when mixed or unknown). */
function readDigits(digits: string, locale: string): number {
  const value = new NumberParser(locale, { maximumFractionDigits: 0 }).parse(digits)
  if (!Number.isNaN(value)) return value
  // Thai digits are not among the systems the parser tries by itself
  return new NumberParser(`${locale.split('-u-')[0]}-u-nu-thai`, { maximumFractionDigits: 0 }).parse(digits)
}

/** Reads `text` as a whole number in `locale` (the dashboard's language), within `limits`. */
export function parseWholeNumber(
  text: string,
  locale: string,
  { min = 1, max = Number.MAX_SAFE_INTEGER }: WholeNumberLimits = {},
): WholeNumber {
  // bidi and other format marks (Hebrew puts U+200E before a minus) carry no meaning here
  let rest = text.replace(/\p{Cf}/gu, '').trim()
  if (rest === '') return { ok: false, reason: 'empty' }
  const negative = MINUS.test(rest)
  if (negative || PLUS.test(rest)) rest = rest.slice(1).trimStart()
  if (!SHAPE.test(rest)) return { ok: false, reason: 'notANumber' }

  const separators = new Set((rest.match(SEPARATOR) ?? []).map(kindOf))
  if (separators.has(decimalMarkOf(locale)) || separators.has(ARABIC_DECIMAL)) return { ok: false, reason: 'decimal' }
  if (separators.size > 1) return { ok: false, reason: 'grouping' }
  const groups = rest.match(RUN) ?? []
  if (groups.length > 1 && (groups[0]!.length > 3 || groups.slice(1).some((g) => g.length !== 3))) return { ok: false, reason: 'grouping' }

  const magnitude = readDigits(groups.join(''), locale)
  if (Number.isNaN(magnitude)) return { ok: false, reason: 'notANumber' }
  // beyond 2^53 a double no longer holds every whole number
  if (!Number.isSafeInteger(magnitude)) return { ok: false, reason: negative ? 'tooSmall' : 'tooLarge' }
  const value = negative ? -magnitude : magnitude
  if (value < min) return { ok: false, reason: 'tooSmall' }
  if (value > max) return { ok: false, reason: 'tooLarge' }
  return { ok: true, value }
}
