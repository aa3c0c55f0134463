import type { Db, Queryable } from '../../db/db.ts'
import { cachePerDb, settled, VersionedCache, type DataVersion } from './data-version.ts'
import { filtersHash, filtersWhere, hasTerritory, listsMatched, withoutLists, type Filters } from './filters.ts'

/**
 * How many companies match the filters and existed at `now` (created_at <= now): the preview's
 * totalCount, an export's count, each facet, and (for an account) how many of them it owns. Exactly
 * the plain count(*), read from counts kept with the companies (migrations 003 and 025), so that it
 * costs what the filters select, at most categories × places × contact-flag combinations, never a
 * pass over the companies:
 * - no category: the (city, flags) counts, company_counts;
 * - categories, main category only, or a single category: the (category, city, flags) counts,
 *   category_counts, or (category, country, flags) when no place below a country is chosen;
 * - several categories, any of them: a company holding two counts once, so the distinct companies
 *   of company_categories, one index entry per company and category, narrowed by category and place.
 * An account's owned count reads its own counts (owned_counts by city and flags, owned_category_counts
 * by category, country and flags), kept with its exports' lead lists; a category with a place below
 * the country, or several categories, counts the company_categories entries of the ids it owns.
 *
 * Everything is one statement (one snapshot, one round trip). The counts hold every company, created
 * up to company_counts_state.max_created_at; should the clock be behind that (a test clock started
 * again), the statement counts the companies themselves instead. So does a search narrowed to a
 * territory (extension `geo`), which no place's count can answer: the companies in its box (the
 * companies_position index) and then exactly inside it.
 *
 * A search leaving lists out (extension `lists`) is the same count less the companies the lists
 * matched among its results: a semi-join of the lists' rows with the search's companies, which
 * costs the lists' rows or the search's companies, whichever the planner finds fewer (about a
 * second for a list of 100,000 rows against a country of 140,000 at 1M companies on a busy
 * machine): the caches keep such counts by the lists' match versions (ownLists, migration 034).
 */

export interface CountQuery {
  sql: string
  params: unknown[]
}

/** The SQL parameters of one statement, numbered as they are added; `account`: whose lists a search may leave out. */
export class Params {
  readonly values: unknown[] = []
  constructor(private readonly account: number | null = null) {}
  add(value: unknown): string {
    this.values.push(value)
    return `$${this.values.length}`
  }
  /** filtersWhere on alias `c`, its parameters numbered after the ones already added. */
  where(f: Filters): string {
    const w = filtersWhere(f, this.values.length + 1, this.account)
    this.values.push(...w.params)
    return w.sql
  }
  /** On companies `c`: among the companies the search's lists matched (what it leaves out). */
  inLists(f: Filters): string {
    const lists = listsMatched(f.exclude_lists ?? [], this.account, this.values.length + 1)
    this.values.push(...lists.params)
    return `c.id IN (${lists.matched})`
  }
}

/** The place and flags of a search: the columns the kept counts have (no categories, no lists). */
const placeOnly = (f: Filters): Filters => ({ ...withoutLists(f), category: [], main_activity_only: false })
/** Whether a place below the country level is chosen (the per-country counts cannot answer then). */
export const choosesPlaces = (f: Filters) => f.level1_location.length + f.level2_location.length + f.level3_location.length > 0
/** "Any of several categories" (not the main one only): a company may hold several of them. */
export const needsDistinct = (f: Filters) => f.category.length > 1 && !f.main_activity_only

/** The company ids an account's exports list (its owned leads), as a set to test ids against. */
export const ownedIdsSql = (user: string) => `SELECT unnest(e.company_ids) AS id FROM export_leads e WHERE e.user_id = ${user}`

/**
 * The count from the kept counts, valid when every company was created by `now`. `owner`: only the
 * companies that account owns.
 */
function aggregateCount(f: Filters, p: Params, owner: string | null): string {
  const userIs = owner ? `c.user_id = ${owner} AND ` : ''
  if (!f.category.length) {
    return `SELECT coalesce(sum(c.n), 0) FROM ${owner ? 'owned_counts' : 'company_counts'} c WHERE ${userIs}${p.where(f)}`
  }
  const count = f.main_activity_only ? 'n_main' : 'n'
  if (!needsDistinct(f) && (!owner || !choosesPlaces(f))) {
    const table = owner ? 'owned_category_counts' : choosesPlaces(f) ? 'category_counts' : 'category_country_counts'
    return `SELECT coalesce(sum(c.${count}), 0) FROM ${table} c
             WHERE ${userIs}c.category_id = ANY(${p.add(f.category)}::int[]) AND ${p.where(placeOnly(f))}`
  }
  return `SELECT count(*) FROM (${companyRows(f, p, owner)}) c`
}

/**
 * One row per matching company (its id, level1_id and flags) from company_categories' index alone,
 * for a category search the per-place counts cannot answer: several categories (a company holding two
 * of them is the row of the first it holds, so nothing has to be gathered), or what an account owns.
 * With `owner`, only the companies that account owns: with a place below the country (few rows)
 * each is looked up in the account's lists; otherwise its ids are hashed once.
 */
export function companyRows(f: Filters, p: Params, owner: string | null = null): string {
  const place = p.where(placeOnly(f))
  const columns = 'c.company_id, c.level1_id, c.has_email, c.has_phone, c.has_website'
  const rows = !needsDistinct(f)
    ? `SELECT ${columns} FROM company_categories c
        WHERE c.category_id = ANY(${p.add(f.category)}::int[]) AND c.${f.main_activity_only ? 'is_main' : 'listed'} AND ${place}`
    : f.category
        .map(
          (category, i) => `SELECT ${columns} FROM company_categories c
                             WHERE c.category_id = ${p.add(category)}::int AND c.listed
                               AND NOT (c.category_ids && ${p.add(f.category.slice(0, i))}::int[]) AND ${place}`,
        )
        .join(' UNION ALL ')
  if (!owner) return rows
  const owned = choosesPlaces(f)
    ? `EXISTS (SELECT 1 FROM export_leads e WHERE e.user_id = ${owner} AND e.chunk = c.company_id >> 10 AND c.company_id = ANY(e.company_ids))`
    : `c.company_id IN (${ownedIdsSql(owner)})`
  return `SELECT c.* FROM (${rows}) c WHERE ${owned}`
}

/** The plain count: for a clock behind the newest company (and as the reference in tests). */
function plainCount(f: Filters, p: Params, now: string, owner: string | null): string {
  const owned = owner ? ` AND c.id IN (${ownedIdsSql(owner)})` : ''
  return `SELECT count(*) FROM companies c WHERE c.created_at <= ${now} AND ${p.where(f)}${owned}`
}

/**
 * One statement answering `n` (the count), `excluded` (how many of the search's companies its lists
 * left out) and `companies` (how many companies there are in all, for choosing a row plan), for the
 * filters at `now`; with `owner`, only what that account owns. `account`: whose lists the search
 * leaves out (the owner's, for an owned count).
 */
export function countQuery(f: Filters, now: Date, owner: number | null = null, account: number | null = owner): CountQuery {
  const p = new Params(account)
  const at = p.add(now.toISOString())
  const user = owner === null ? null : p.add(owner)
  const search = withoutLists(f)
  const lists = f.exclude_lists
    ? `(SELECT count(*) FROM companies c WHERE ${p.inLists(f)} AND c.created_at <= ${at} AND ${p.where(search)}` +
      `${user ? ` AND c.id IN (${ownedIdsSql(user)})` : ''})`
    : '0'
  if (hasTerritory(f)) {
    const sql = `SELECT ((${plainCount(search, p, at, user)}) - x.n)::int AS n, x.n::int AS excluded,
                        coalesce(s.max_id, 0) AS companies, false AS aggregated
                   FROM (SELECT ${lists} AS n OFFSET 0) x LEFT JOIN company_counts_state s ON true`
    return { sql, params: p.values }
  }
  const sql = `SELECT ((CASE WHEN s.max_created_at > ${at}::timestamptz THEN (${plainCount(search, p, at, user)})
                          ELSE (${aggregateCount(search, p, user)}) END) - x.n)::int AS n, x.n::int AS excluded,
                      coalesce(s.max_id, 0) AS companies, (s.max_created_at IS NULL OR s.max_created_at <= ${at}::timestamptz) AS aggregated
                 FROM (SELECT ${lists} AS n OFFSET 0) x LEFT JOIN company_counts_state s ON true`
  return { sql, params: p.values }
}

export interface Counted {
  count: number
  /** Of the search's companies, how many its lists left out (extension `lists`; 0 without lists). */
  excluded: number
  /** How many companies there are in all (to choose a row plan). */
  companies: number
  /** Whether the kept counts answered (every company existed at `now`, no territory). */
  aggregated: boolean
}

export async function countCompanies(
  q: Queryable,
  filters: Filters,
  now: Date,
  owner: number | null = null,
  account: number | null = owner,
): Promise<Counted> {
  const { sql, params } = countQuery(filters, now, owner, account)
  const row = (await q.query<{ n: number; excluded: number; companies: number; aggregated: boolean }>(sql, params)).rows[0]
  return { count: row?.n ?? 0, excluded: row?.excluded ?? 0, companies: row?.companies ?? 0, aggregated: row?.aggregated ?? false }
}

/** Counts by data version and filters (data-version.ts): 20,000 of them take a few MB. */
const countCache = cachePerDb(() => new VersionedCache<Counted>(20_000, 8 * 1024 * 1024, () => 100))

/**
 * countCompanies, served from the cache when `version` (read by the caller in a round trip it makes
 * anyway) allows it. Never for charging: an export counts inside its own transaction (modules/exports/service.ts).
 * A search leaving lists out names the account asking and its lists' match versions (`lists`, from
 * ownLists): their matches change without the data version (a person un-matching a row).
 */
export function countCompaniesAt(
  db: Db,
  version: DataVersion | null,
  filters: Filters,
  now: Date,
  asker: { account: number; lists: string } | null = null,
): Promise<Counted> {
  const compute = () => countCompanies(db, filters, now, null, asker?.account ?? null)
  if (!settled(version, now)) return compute()
  return countCache(db).get(version, `${filtersHash(filters)}:${asker?.lists ?? ''}`, compute)
}
