import type { Db, Queryable } from '../../db/db.ts'
import { LANGUAGES } from '../../lib/schemas.ts'
import { e164, fold, mailDomain, nameKey, siteDomain } from './keys.ts'
import type { Mapping } from './mapping.ts'

/**
 * Matching one batch of a list's rows to companies (issue 27). The rules, strongest first: the
 * registrable domain of the row's website or company e-mail address equals a company's; its phone in
 * E.164 equals a company's; its name is like a company's (pg_trgm similarity) in the same city. The
 * evidence of every candidate counts (a shared domain is told apart by the city and the name); one
 * company per row at most, and a row whose best candidates cannot be told apart is ambiguous.
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
  }
}

interface Candidate {
  row_no: number
  company_id: number
  domain_eq: boolean
  phone_eq: boolean
  city_eq: boolean
  name_sim: number
}

/** The verdict on one row from its candidates (see the module's comment). */
export function decide(row_no: number, candidates: Candidate[]): RowMatch {
  const none: RowMatch = { row_no, status: 'unmatched', company_id: null, rule: null, confidence: null, candidates: null }
  const strong = candidates.filter((c) => c.domain_eq || c.phone_eq)
  const pool = strong.length ? strong : candidates.filter((c) => c.city_eq && c.name_sim >= NAME_SIMILARITY)
  if (!pool.length) return none
  const points = (c: Candidate) => (c.domain_eq ? 2 : 0) + (c.phone_eq ? 2 : 0) + (c.city_eq ? 1 : 0) + c.name_sim
  const ranked = pool.map((c) => ({ c, p: points(c) })).sort((a, b) => b.p - a.p || a.c.company_id - b.c.company_id)
  const best = ranked[0]!
  if (ranked.length > 1 && best.p - ranked[1]!.p < MARGIN) {
    const tied = ranked.filter((r) => best.p - r.p < MARGIN).slice(0, 5)
    return { ...none, status: 'ambiguous', candidates: tied.map((r) => r.c.company_id) }
  }
  const c = best.c
  if (strong.length) {
    const agreeing = Number(c.domain_eq) + Number(c.phone_eq) + Number(c.city_eq)
    const confidence = Math.min(0.99, 0.8 + 0.05 * agreeing + 0.05 * c.name_sim)
    return { row_no, status: 'matched', company_id: c.company_id, rule: c.domain_eq ? 'domain' : 'phone', confidence, candidates: null }
  }
  return { row_no, status: 'matched', company_id: c.company_id, rule: 'name_city', confidence: 0.5 + 0.4 * c.name_sim, candidates: null }
}

/** Matches one batch of rows (by their keys) against the companies: one query, plus one for near-miss names. */
export async function matchBatch(db: Db, keys: RowKeys[]): Promise<RowMatch[]> {
  const cityPairs = keys.flatMap((k) => k.city_ids.map((id) => [k.row_no, id] as const))
  return db.tx(async (q) => {
    // The planner's estimates for arrays of rows are far off and would have PostgreSQL compile the
    // query (JIT): over a second of a two-second batch on 1M companies. Short index lookups gain nothing from it.
    await q.query(`SELECT set_config('jit', 'off', true), set_config('pg_trgm.similarity_threshold', $1, true)`, [String(NAME_SIMILARITY)])
    const { rows } = await q.query<Candidate>(
      `WITH r AS (SELECT * FROM unnest($1::int[], $2::text[], $3::text[], $4::text[]) AS r(row_no, domain, phone, name_key)),
          rc AS (SELECT * FROM unnest($5::int[], $6::int[]) AS rc(row_no, city_id)),
          cand AS (
            SELECT r.row_no, d.company_id FROM r
              CROSS JOIN LATERAL (SELECT k.company_id FROM company_match_keys k WHERE k.site_domain = r.domain LIMIT ${PER_RULE}) d
             WHERE r.domain IS NOT NULL
            UNION
            SELECT r.row_no, p.company_id FROM r
              CROSS JOIN LATERAL (SELECT k.company_id FROM company_match_keys k WHERE k.phone_e164 = r.phone LIMIT ${PER_RULE}) p
             WHERE r.phone IS NOT NULL
            UNION
            SELECT r.row_no, n.company_id FROM r JOIN rc ON rc.row_no = r.row_no
              CROSS JOIN LATERAL (SELECT k.company_id FROM company_match_keys k
                                   WHERE k.level3_id = rc.city_id AND k.name_key = r.name_key LIMIT ${PER_RULE}) n
             WHERE r.name_key IS NOT NULL)
     SELECT cand.row_no, k.company_id,
            coalesce(k.site_domain = r.domain, false) AS domain_eq,
            coalesce(k.phone_e164 = r.phone, false) AS phone_eq,
            EXISTS (SELECT 1 FROM rc WHERE rc.row_no = cand.row_no AND rc.city_id = k.level3_id) AS city_eq,
            CASE WHEN r.name_key IS NULL THEN 0 ELSE similarity(k.name_key, r.name_key) END::float8 AS name_sim
       FROM cand JOIN r ON r.row_no = cand.row_no
       JOIN company_match_keys k ON k.company_id = cand.company_id
       JOIN companies c ON c.id = k.company_id`,
      [
        keys.map((k) => k.row_no),
        keys.map((k) => k.domain),
        keys.map((k) => k.phone),
        keys.map((k) => k.name_key),
        cityPairs.map((p) => p[0]),
        cityPairs.map((p) => p[1]),
      ],
    )
    const byRow = new Map<number, Candidate[]>()
    for (const c of rows) {
      const list = byRow.get(c.row_no) ?? []
      list.push(c)
      byRow.set(c.row_no, list)
    }

    // Near-miss names ("Baeckerei Mueler"): for rows with a name and a known city that no rule above
    // found, the similar names (trigram index over each distinct name once), then their companies in the city.
    const fuzzy = keys.filter((k) => k.name_key && k.city_ids.length && !byRow.has(k.row_no))
    if (fuzzy.length) {
      const pairs = fuzzy.flatMap((k) => k.city_ids.map((id) => [k.row_no, id, k.name_key!] as const))
      // each distinct name once (a list repeats names), then its similar names' companies in each row's city;
      // `%` finds names at least as similar as the threshold set above, by the trigram index
      const near = await q.query<Candidate>(
        `WITH rc AS (SELECT * FROM unnest($1::int[], $2::int[], $3::text[]) AS rc(row_no, city_id, name_key)),
            alike AS (SELECT w.name_key AS wanted, n.name_key FROM (SELECT DISTINCT name_key FROM rc) w
                          CROSS JOIN LATERAL (SELECT n.name_key FROM company_name_keys n WHERE n.name_key % w.name_key) n)
       SELECT rc.row_no, k.company_id, false AS domain_eq, false AS phone_eq, true AS city_eq,
              similarity(k.name_key, rc.name_key)::float8 AS name_sim
         FROM rc JOIN alike s ON s.wanted = rc.name_key
         CROSS JOIN LATERAL (SELECT k.company_id, k.name_key FROM company_match_keys k
                              WHERE k.level3_id = rc.city_id AND k.name_key = s.name_key LIMIT ${PER_RULE}) k
         JOIN companies c ON c.id = k.company_id`,
        [pairs.map((p) => p[0]), pairs.map((p) => p[1]), pairs.map((p) => p[2])],
      )
      for (const c of near.rows) {
        const list = byRow.get(c.row_no) ?? []
        list.push(c)
        byRow.set(c.row_no, list)
      }
    }
    return keys.map((k) => decide(k.row_no, byRow.get(k.row_no) ?? []))
  })
}
