import type { Db, Queryable } from '../../db/db.ts'
import { LANGUAGES } from '../../lib/schemas.ts'
import type { CityNames } from './city-names.ts'
import { e164, fold, mailDomain, nameKey, postcodeKey, similarity, siteDomain, streetKey } from './keys.ts'
import type { Mapping } from './mapping.ts'

/**
 * Matching one batch of a list's rows to companies (issue 27). The rules, strongest first: the
 * registrable domain of the row's website or company e-mail address equals a company's; its phone in
 * E.164 equals a company's; its name is like a company's (pg_trgm's trigram similarity) in the same
 * city. The evidence of every candidate counts (a shared domain is told apart by the city and the name,
 * two similar names of a city by the street and postcode); one company per row at most, and a row
 * whose best candidates cannot be told apart is ambiguous.
 */

export type RowStatus = 'matched' | 'ambiguous' | 'unmatched'
export type Rule = 'domain' | 'phone' | 'name_city' | 'manual'

export interface RowMatch {
  row_no: number
  status: RowStatus
  company_id: number | null
  rule: Rule | null
  confidence: number | null
  candidates: number[] | null
}

/** Below this name similarity (pg_trgm, 0–1) a name alone is no match. */
export const NAME_SIMILARITY = 0.6
/** How far the best candidate must be ahead of the next (in evidence points) to be the match. */
const MARGIN = 0.25
/** Candidates looked at per row and rule (a domain a franchise shares with thousands of outlets). */
const PER_RULE = 50

/** Level-3 places by folded name (their own and their exonyms, migration 028), and countries by code and name. */
export interface Places {
  cities: Map<string, Array<{ id: number; country: string }>>
  countries: Map<string, string>
}

export async function loadPlaces(q: Queryable): Promise<Places> {
  const { rows } = await q.query<{ id: number; country: string; name: string }>(
    `SELECT id, country_code AS country, name FROM level3_locations
     UNION ALL
     SELECT l.id, l.country_code, p.name FROM place_names p JOIN level3_locations l ON l.id = p.place_id WHERE p.level = 3`,
  )
  const cities = new Map<string, Array<{ id: number; country: string }>>()
  for (const r of rows) {
    const key = fold(r.name)
    const list = cities.get(key) ?? []
    if (!list.some((p) => p.id === r.id)) list.push({ id: r.id, country: r.country })
    cities.set(key, list)
  }
  const codes = (await q.query<{ code: string }>('SELECT code FROM countries')).rows.map((r) => r.code)
  const countries = new Map<string, string>()
  for (const code of codes) {
    countries.set(fold(code), code)
    for (const lng of LANGUAGES) {
      const name = new Intl.DisplayNames([lng], { type: 'region' }).of(code)
      if (name) countries.set(fold(name), code)
    }
  }
  return { cities, countries }
}

interface RowKeys {
  row_no: number
  domain: string | null
  phone: string | null
  name_key: string | null
  city_ids: number[]
  street: string | null
  postcode: string | null
}

const cell = (cells: readonly string[], column: number | undefined) => (column === undefined ? '' : (cells[column] ?? ''))

export function rowKeys(
  row_no: number,
  cells: readonly string[],
  mapping: Mapping,
  places: Places,
  defaultCountry: string | null,
): RowKeys {
  const countryText = fold(cell(cells, mapping.country))
  const ownCountry = (countryText && places.countries.get(countryText)) || null
  // the list's default country reads phones written without a country code; only the row's own narrows its city
  let domain = siteDomain(cell(cells, mapping.website))
  for (const email of cell(cells, mapping.email).split(/[\s,;]+/)) domain ??= mailDomain(email)
  const cityText = fold(cell(cells, mapping.city))
  const cities = cityText ? (places.cities.get(cityText) ?? []) : []
  return {
    row_no,
    domain,
    phone: e164(cell(cells, mapping.phone), ownCountry ?? defaultCountry),
    name_key: nameKey(cell(cells, mapping.name)),
    city_ids: cities.filter((p) => !ownCountry || p.country === ownCountry).map((p) => p.id),
    street: streetKey(cell(cells, mapping.street)),
    postcode: postcodeKey(cell(cells, mapping.postal_code)),
  }
}

export interface Candidate {
  company_id: number
  domain_eq: boolean
  phone_eq: boolean
  city_eq: boolean
  name_sim: number
  /** the same street and house number (streetKey) */
  street_eq: boolean
  postcode_eq: boolean
}

/** A candidate company's keys and address, as the candidate queries read them. */
interface CompanyKeys {
  row_no: number
  company_id: number
  level3_id: number
  name_key: string
  site_domain: string | null
  phone_e164: string | null
  address: string | null
  zipcode: string | null
}

function evidence(row: RowKeys, k: CompanyKeys): Candidate {
  return {
    company_id: k.company_id,
    domain_eq: row.domain !== null && k.site_domain === row.domain,
    phone_eq: row.phone !== null && k.phone_e164 === row.phone,
    city_eq: row.city_ids.includes(k.level3_id),
    name_sim: row.name_key ? similarity(row.name_key, k.name_key) : 0,
    street_eq: row.street !== null && streetKey(k.address) === row.street,
    postcode_eq: row.postcode !== null && postcodeKey(k.zipcode) === row.postcode,
  }
}

/**
 * Evidence points: a shared domain or phone is worth most, then the city, the address (the same
 * street and number, then the same postcode: two similar names in one city are told apart by where
 * they are), and the name's similarity (0–1).
 */
const points = (c: Candidate) =>
  (c.domain_eq ? 2 : 0) + (c.phone_eq ? 2 : 0) + (c.city_eq ? 1 : 0) + (c.street_eq ? 0.6 : 0) + (c.postcode_eq ? 0.3 : 0) + c.name_sim

/** The verdict on one row from its candidates (see the module's comment). */
export function decide(row_no: number, candidates: Candidate[]): RowMatch {
  const none: RowMatch = { row_no, status: 'unmatched', company_id: null, rule: null, confidence: null, candidates: null }
  const strong = candidates.filter((c) => c.domain_eq || c.phone_eq)
  const pool = strong.length ? strong : candidates.filter((c) => c.city_eq && c.name_sim >= NAME_SIMILARITY)
  if (!pool.length) return none
  const ranked = pool.map((c) => ({ c, p: points(c) })).sort((a, b) => b.p - a.p || a.c.company_id - b.c.company_id)
  const best = ranked[0]!
  if (ranked.length > 1 && best.p - ranked[1]!.p < MARGIN) {
    const tied = ranked.filter((r) => best.p - r.p < MARGIN).slice(0, 5)
    return { ...none, status: 'ambiguous', candidates: tied.map((r) => r.c.company_id) }
  }
  const c = best.c
  const address = (c.street_eq ? 0.1 : 0) + (c.postcode_eq ? 0.05 : 0)
  if (strong.length) {
    const agreeing = Number(c.domain_eq) + Number(c.phone_eq) + Number(c.city_eq)
    const confidence = Math.min(0.99, 0.8 + 0.05 * agreeing + 0.05 * c.name_sim + address)
    return { row_no, status: 'matched', company_id: c.company_id, rule: c.domain_eq ? 'domain' : 'phone', confidence, candidates: null }
  }
  const confidence = Math.min(0.99, 0.5 + 0.4 * c.name_sim + address)
  return { row_no, status: 'matched', company_id: c.company_id, rule: 'name_city', confidence, candidates: null }
}

/**
 * Matches one batch of rows (by their keys) against the companies: one query for the candidates by
 * domain, phone and exact name in the city; then, for rows with a name and a city that none of these
 * found, the city's similar names (`names`, in memory) and one query for their companies.
 */
export async function matchBatch(db: Db, keys: RowKeys[], names: CityNames): Promise<RowMatch[]> {
  const byNo = new Map(keys.map((k) => [k.row_no, k]))
  const withDomain = keys.filter((k) => k.domain)
  const withPhone = keys.filter((k) => k.phone)
  const byName = keys.flatMap((k) => (k.name_key ? k.city_ids.map((id) => [k.row_no, id, k.name_key!] as const) : []))
  return db.tx(async (q) => {
    // Every step is a short index lookup per row, but the planner cannot tell how many rows an array
    // holds: it would compile the query (JIT: over a second of a batch on 1M companies) and hash all
    // of company_match_keys or companies to join a few thousand candidates (a second more).
    await q.query(
      `SELECT set_config('jit', 'off', true), set_config('enable_hashjoin', 'off', true), set_config('enable_mergejoin', 'off', true)`,
    )
    const { rows } = await q.query<CompanyKeys>(
      `WITH cand AS (
         SELECT d.row_no, k.* FROM unnest($1::int[], $2::text[]) AS d(row_no, domain)
           CROSS JOIN LATERAL (SELECT * FROM company_match_keys k WHERE k.site_domain = d.domain LIMIT ${PER_RULE}) k
         UNION
         SELECT p.row_no, k.* FROM unnest($3::int[], $4::text[]) AS p(row_no, phone)
           CROSS JOIN LATERAL (SELECT * FROM company_match_keys k WHERE k.phone_e164 = p.phone LIMIT ${PER_RULE}) k
         UNION
         SELECT n.row_no, k.* FROM unnest($5::int[], $6::int[], $7::text[]) AS n(row_no, city_id, name_key)
           CROSS JOIN LATERAL (SELECT * FROM company_match_keys k
                                WHERE k.level3_id = n.city_id AND k.name_key = n.name_key LIMIT ${PER_RULE}) k)
       SELECT cand.row_no, cand.company_id, cand.level3_id, cand.name_key, cand.site_domain, cand.phone_e164, c.address, c.zipcode
         FROM cand JOIN companies c ON c.id = cand.company_id`,
      [
        withDomain.map((k) => k.row_no),
        withDomain.map((k) => k.domain),
        withPhone.map((k) => k.row_no),
        withPhone.map((k) => k.phone),
        byName.map((n) => n[0]),
        byName.map((n) => n[1]),
        byName.map((n) => n[2]),
      ],
    )
    const byRow = new Map<number, Candidate[]>()
    const add = (k: CompanyKeys) => {
      const list = byRow.get(k.row_no) ?? []
      list.push(evidence(byNo.get(k.row_no)!, k))
      byRow.set(k.row_no, list)
    }
    rows.forEach(add)

    // Near-miss names ("Baeckerei Mueler"): the similar names of each row's city, then their companies there.
    const fuzzy = keys.filter((k) => k.name_key && k.city_ids.length && !byRow.has(k.row_no))
    if (fuzzy.length) {
      await names.load(
        q,
        fuzzy.flatMap((k) => k.city_ids),
      )
      const wanted: Array<[row_no: number, city_id: number, name_key: string]> = []
      for (const k of fuzzy)
        for (const city of k.city_ids)
          for (const name of names.similar(city, k.name_key!, NAME_SIMILARITY)) wanted.push([k.row_no, city, name])
      if (wanted.length) {
        const near = await q.query<CompanyKeys>(
          `SELECT w.row_no, k.company_id, k.level3_id, k.name_key, k.site_domain, k.phone_e164, c.address, c.zipcode
             FROM unnest($1::int[], $2::int[], $3::text[]) AS w(row_no, city_id, name_key)
            CROSS JOIN LATERAL (SELECT * FROM company_match_keys k
                                 WHERE k.level3_id = w.city_id AND k.name_key = w.name_key LIMIT ${PER_RULE}) k
             JOIN companies c ON c.id = k.company_id`,
          [wanted.map((w) => w[0]), wanted.map((w) => w[1]), wanted.map((w) => w[2])],
        )
        near.rows.forEach(add)
      }
    }
    return keys.map((k) => decide(k.row_no, byRow.get(k.row_no) ?? []))
  })
}
