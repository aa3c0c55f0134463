import { parsePhoneNumberFromString, type CountryCode } from 'libphonenumber-js'
import { getDomain } from 'tldts'
import type { Queryable } from '../../db/db.ts'

/**
 * What a business is matched by, for a company and for a row of a list alike (issue 27): the
 * registrable domain of its website or of a company e-mail address (tldts, with the public suffix
 * list: `shop.example.co.uk` → `example.co.uk`), its phone in E.164 (libphonenumber-js), and its name
 * and city as keys that ignore case, accents, punctuation and legal forms.
 */

/**
 * Mail providers: an address at one of them says nothing about the business's own domain. By the
 * domain without its public suffix where the name is a provider's wherever it is registered
 * (gmail.com, yahoo.co.uk, hotmail.fr), by the whole domain otherwise (web.de, but not web.com).
 */
const WEBMAIL_NAMES = new Set([
  'gmail',
  'googlemail',
  'yahoo',
  'ymail',
  'rocketmail',
  'hotmail',
  'outlook',
  'live',
  'msn',
  'aol',
  'icloud',
  'gmx',
  'protonmail',
  'yandex',
  'zoho',
  'mailbox',
  'posteo',
  'tutanota',
])
const WEBMAIL_DOMAINS = new Set([
  'web.de',
  't-online.de',
  'freenet.de',
  'arcor.de',
  'mail.de',
  'me.com',
  'mac.com',
  'proton.me',
  'pm.me',
  'mail.com',
  'email.com',
  'orange.fr',
  'wanadoo.fr',
  'free.fr',
  'sfr.fr',
  'laposte.net',
  'libero.it',
  'virgilio.it',
  'alice.it',
  'tiscali.it',
  'telefonica.net',
  'terra.es',
  'sapo.pt',
  'seznam.cz',
  'centrum.cz',
  'email.cz',
  'centrum.sk',
  'azet.sk',
  'wp.pl',
  'o2.pl',
  'onet.pl',
  'interia.pl',
  'abv.bg',
  'mail.bg',
  'freemail.hu',
  'citromail.hu',
  'inbox.lv',
  'inbox.lt',
  'mail.ee',
  'hot.ee',
  'suomi24.fi',
  'luukku.com',
  'online.no',
  'telia.com',
  'bluewin.ch',
  'telenet.be',
  'skynet.be',
  'ziggo.nl',
  'kpnmail.nl',
  'home.nl',
  'otenet.gr',
  'walla.co.il',
  'walla.com',
  'bezeqint.net',
  'mail.ru',
  'bk.ru',
  'inbox.ru',
  'ukr.net',
  'qq.com',
  '163.com',
  'naver.com',
])

export function isWebmail(domain: string): boolean {
  if (WEBMAIL_DOMAINS.has(domain)) return true
  const name = domain.split('.')[0]!
  return WEBMAIL_NAMES.has(name)
}

/** The registrable domain of a website address or bare host name, or null. */
export function siteDomain(website: string | null | undefined): string | null {
  const text = website?.trim()
  if (!text || text.includes('@')) return null
  const domain = getDomain(/^[a-z][a-z0-9+.-]*:\/\//i.test(text) ? text : `http://${text}`)
  return domain ? domain.toLowerCase() : null
}

/** The registrable domain of an e-mail address unless it is a mail provider's, or null. */
export function mailDomain(email: string | null | undefined): string | null {
  const at = email?.trim().lastIndexOf('@') ?? -1
  if (at < 1) return null
  const domain = getDomain(email!.trim().slice(at + 1))
  return domain && !isWebmail(domain.toLowerCase()) ? domain.toLowerCase() : null
}

/** A phone number in E.164, read with `country` when it is written without its country code; null when it cannot be a number. */
export function e164(phone: string | null | undefined, country: string | null | undefined): string | null {
  const text = phone?.trim()
  if (!text || !/\d/.test(text)) return null
  const parsed = parsePhoneNumberFromString(text, country ? { defaultCountry: country as CountryCode } : undefined)
  return parsed?.isPossible() ? parsed.number : null
}

/** Letters NFKD does not take apart. */
const FOLD: Record<string, string> = { ß: 'ss', ł: 'l', ø: 'o', æ: 'ae', œ: 'oe', đ: 'd', ð: 'd', þ: 'th', ı: 'i' }

/** Lower case, without accents or punctuation, words separated by one space. */
export function fold(text: string): string {
  return (
    text
      .toLowerCase()
      // abbreviations with dots are one word: S.A., s.r.o., d.o.o.
      .replace(/(\p{L})\.(?=\p{L})/gu, '$1')
      .normalize('NFKD')
      .replace(/\p{M}/gu, '')
      .replace(/[ßłøæœđðþı]/g, (ch) => FOLD[ch]!)
      .replace(/[^\p{L}\p{N}]+/gu, ' ')
      .trim()
  )
}

/** Legal forms and the like, as separate words after fold(): "Müller GmbH & Co. KG" is "muller". */
const LEGAL_WORDS = new Set(
  'gmbh mbh ag kg ohg ug ek ev co company corp corporation inc incorporated llc llp ltd limited plc sa sas sarl srl spa sl slu bv nv vof oy oyj ab as asa aps sro spol zoo sp kft bt zrt doo dd ood ead eood ad srl sc ltda lda cv oo'.split(
    ' ',
  ),
)

/**
 * A business name's key: folded, legal forms left out, and the possessive's "s" ("Miller's Bakery" is
 * "Miller Bakery", as people write it either way); the whole name when it is nothing else.
 * (Migration 035 took the "s" out of the keys written before.)
 */
export function nameKey(name: string | null | undefined): string | null {
  const folded = fold(name ?? '')
  if (!folded) return null
  const words = folded.split(' ')
  const kept = words.filter((w) => !LEGAL_WORDS.has(w) && w !== 's')
  return (kept.length ? kept : words).join(' ')
}

/**
 * The trigrams of a name key as pg_trgm makes them in a UTF-8 database: each word padded with two
 * spaces before and one after, every three characters in a row, each trigram once. Keys are fold()ed,
 * so words are the runs between single spaces. (Compared with pg_trgm's `similarity()` in the tests.)
 */
export function trigrams(key: string): Set<string> {
  const out = new Set<string>()
  for (const word of key.split(' ')) {
    if (!word) continue
    const chars = [' ', ' ', ...word, ' ']
    for (let i = 0; i + 2 < chars.length; i++) out.add(chars[i]! + chars[i + 1]! + chars[i + 2]!)
  }
  return out
}

/** pg_trgm's similarity: trigrams shared over trigrams of either. */
export function similarity(a: string, b: string): number {
  const ta = trigrams(a)
  const tb = trigrams(b)
  let shared = 0
  for (const t of ta) if (tb.has(t)) shared++
  const either = ta.size + tb.size - shared
  return either ? shared / either : 0
}

/** Street words written short, by their long form (after fold()): "Hauptstr. 5" is "Hauptstraße 5", "5 Main St" "5 Main Street". */
const STREET_WORDS: Record<string, string> = {
  st: 'street',
  rd: 'road',
  ave: 'avenue',
  av: 'avenue',
  ln: 'lane',
  dr: 'drive',
  blvd: 'boulevard',
  bd: 'boulevard',
  sq: 'square',
  str: 'strasse',
  ul: 'ulica',
}

/**
 * A street address's key: folded, short street words written out (also a German compound's "…str"),
 * and its words in order of their text, so "Main Street 5" and "5 Main St." are one address. Null
 * without a house number: a street alone does not single out a business.
 */
export function streetKey(street: string | null | undefined): string | null {
  const words = fold(street ?? '')
    .split(' ')
    .filter(Boolean)
    .map((w) => STREET_WORDS[w] ?? w.replace(/(\p{L}{3,})str$/u, '$1strasse'))
  if (!words.some((w) => /\d/.test(w))) return null
  return words.sort().join(' ')
}

/** A postal code's key: folded, without spaces ("SW1A 1AA" and "sw1a1aa", "10-115" and "10 115"). */
export function postcodeKey(postcode: string | null | undefined): string | null {
  return fold(postcode ?? '').replaceAll(' ', '') || null
}

/** The keys of a company (company_match_keys). */
export function companyKeys(c: { name: string; website: string | null; emails: string[]; phone: string | null; country_code: string }) {
  let domain = siteDomain(c.website)
  for (const email of c.emails) domain ??= mailDomain(email)
  return { name_key: nameKey(c.name) ?? '', site_domain: domain, phone_e164: e164(c.phone, c.country_code) }
}

interface CompanyRow {
  id: number
  name: string
  website: string | null
  emails: string[]
  phone: string | null
  country_code: string
  level3_id: number
}

/**
 * Writes the keys of the companies that have none (`after`: from this id on), in batches by id, and
 * returns how many. The seed calls it in its own transaction as it copies the companies; the matching
 * job before each list, for companies written since (by the test hooks, by hand). Idempotent and safe
 * for two workers at once: a key written twice is the same key.
 */
export async function fillCompanyKeys(q: Queryable, batch = 5000): Promise<number> {
  let after = 0
  let written = 0
  for (;;) {
    const { rows } = await q.query<CompanyRow>(
      `SELECT c.id, c.name, c.website, c.emails, c.phone, c.country_code, c.level3_id FROM companies c
        WHERE c.id > $1 AND NOT EXISTS (SELECT 1 FROM company_match_keys k WHERE k.company_id = c.id)
        ORDER BY c.id LIMIT $2`,
      [after, batch],
    )
    if (!rows.length) return written
    after = rows[rows.length - 1]!.id
    const keys = rows.map(companyKeys)
    await q.query(
      `INSERT INTO company_match_keys (company_id, level3_id, name_key, site_domain, phone_e164)
       SELECT * FROM unnest($1::int[], $2::int[], $3::text[], $4::text[], $5::text[])
       ON CONFLICT (company_id) DO NOTHING`,
      [
        rows.map((r) => r.id),
        rows.map((r) => r.level3_id),
        keys.map((k) => k.name_key),
        keys.map((k) => k.site_domain),
        keys.map((k) => k.phone_e164),
      ],
    )
    written += rows.length
  }
}
