import { prepared, type Db, type Queryable } from '../../db/db.ts'
import { notFound } from '../../lib/errors.ts'
import { JsonText, SharedJsonTail } from '../../lib/json-answer.ts'
import { ownedCount } from '../exports/lead-sets.ts'
import { countCompanies, countCompaniesAt, Params } from './company-counts.ts'
import {
  cachePerDb,
  DATA_VERSION_COLUMNS,
  dataVersionOf,
  readDataVersion,
  settled,
  VersionedCache,
  type DataVersion,
} from './data-version.ts'
import { filtersHash, ownLists, type Filters } from './filters.ts'

export const PREVIEW_SIZE = 10
export const PAGE_SIZE = 50

/** "john@example.com" → "j***@example.com": the preview is free, the addresses are what is paid for. */
export function maskEmail(email: string): string {
  const at = email.lastIndexOf('@')
  if (at <= 0) return '***'
  return `${email[0]}***${email.slice(at)}`
}

/**
 * One preview search per account and filter set (decisions.md: same filters → same search_id).
 * Looked up first: `INSERT … ON CONFLICT` takes a value of the 32-bit id sequence on every call, so
 * repeated identical previews (each keystroke of a person, each poll of a script) used to burn ids.
 * Now only a filter set never seen for the account takes one; a concurrent first insert of the same
 * set loses the race quietly (DO NOTHING) and reads the winner's id. The lookup shares its round
 * trip with the data version (data-version.ts) that says whether a cached page may be served.
 * A preview search not asked for in PREVIEW_SEARCH_DAYS, and never exported, is deleted by the
 * clean-up (jobs/cleanup.ts): its last use is written at most once a day.
 */
const PREVIEW_HEAD = prepared(
  `SELECT s.id, coalesce(s.used_at, s.created_at) AS used_at, ${DATA_VERSION_COLUMNS}
     FROM (VALUES (1)) one
     LEFT JOIN data_version dv ON true
     LEFT JOIN searches s ON s.user_id = $1 AND s.filters_hash = $2 AND s.kind = 'preview'`,
)

async function previewHead(
  q: Queryable,
  userId: number,
  hash: string,
): Promise<{ searchId: number | undefined; usedAt: Date | null; version: DataVersion | null }> {
  const { rows } = await q.query<{
    id: number | null
    used_at: Date | null
    data_version: string | null
    data_max_created_at: Date | null
  }>(PREVIEW_HEAD, [userId, hash])
  const usedAt = rows[0]?.used_at
  return { searchId: rows[0]?.id ?? undefined, usedAt: usedAt ? new Date(usedAt) : null, version: dataVersionOf(rows[0]) }
}

const DAY_MS = 86_400_000

/** The search's last use, when the one written is a day old or more (so that it does not expire while asked for). */
async function touchPreviewSearch(q: Queryable, searchId: number, usedAt: Date | null, now: Date): Promise<number> {
  if (usedAt && now.getTime() - usedAt.getTime() >= DAY_MS) await q.query('UPDATE searches SET used_at = $2 WHERE id = $1', [searchId, now])
  return searchId
}

async function newPreviewSearch(q: Queryable, userId: number, filters: Filters, hash: string, now: Date): Promise<number> {
  const { rows } = await q.query<{ id: number }>(
    `INSERT INTO searches (user_id, kind, filters, filters_hash, created_at)
     VALUES ($1, 'preview', $2, $3, $4)
     ON CONFLICT (user_id, filters_hash) WHERE kind = 'preview' DO NOTHING
     RETURNING id`,
    [userId, JSON.stringify(filters), hash, now.toISOString()],
  )
  const id =
    rows[0]?.id ??
    (await q.query<{ id: number }>(`SELECT id FROM searches WHERE user_id = $1 AND filters_hash = $2 AND kind = 'preview'`, [userId, hash]))
      .rows[0]?.id
  if (id === undefined) throw new Error('preview search vanished between insert and read')
  return id
}

interface LeadRow {
  name: string
  emails: string[]
  phone: string | null
  address: string | null
  city: string
  zipcode: string | null
  country: string
  level1_location: string
  level2_location: string
  website: string | null
  instagram: string | null
  facebook: string | null
  categories: string[]
  rating: string | null
  review_count: number
  latitude: number
  longitude: number
  place_id: string
  collected_at: Date | string
}

/** One company of a preview (Lead in /api/schema/), its addresses masked. */
interface Lead extends Omit<LeadRow, 'emails' | 'rating' | 'collected_at'> {
  email: string[]
  rating: number | null
  collected_at: string
}

/**
 * A page of the preview: the same for every account, so it can be cached by data version. The
 * leads are kept as the end of the answer's JSON text (serialized once, and compressed once when
 * an answer is gzipped), after the account's own head (its search_id).
 */
interface PreviewPage {
  totalCount: number
  /** Extension `lists`: of the search's companies, how many its lists left out. */
  excluded: number
  /** `"results":[…]}`; null: the page is past the end (404) */
  tail: SharedJsonTail | null
}

/**
 * Pages by data version, filters, language and page (data-version.ts). Bounded: 2,000 pages or
 * about 32 MB (a 50-lead page is ≈ 60 KB as strings), whichever is reached first.
 */
const pageCache = cachePerDb(() => new VersionedCache<PreviewPage>(2000, 32 * 1024 * 1024, (p) => (p.tail?.bytes() ?? 0) + 64))

/**
 * The ids of a page of the preview, the cheapest of three ways, in rows read (issue 24):
 * - walking the primary key reads about (offset + page) × companies / matches company rows, in the
 *   order they lie on disk;
 * - fetching every match through the filter indexes and sorting reads `matches` company rows, each
 *   at a random place (about five times the cost of one read in order);
 * - with categories chosen (and every company counted by the kept counts), the matching entries of
 *   company_categories' index give the ids without reading a company (an entry costs a fifth of a row).
 */
function pageIds(
  filters: Filters,
  p: Params,
  counted: { count: number; companies: number; aggregated: boolean },
  take: number,
  offset: number,
  now: string,
) {
  const matches = Math.max(counted.count, 1)
  const walk = (take * Math.max(counted.companies, counted.count)) / matches
  const fetchAll = 5 * matches
  // company_categories' entries carry no list: a search leaving lists out reads the companies
  const fromIndex =
    counted.aggregated && filters.category.length && !filters.exclude_lists ? 0.2 * matches * filters.category.length + 5 * take : Infinity
  const limit = `LIMIT ${take - offset} OFFSET ${offset}`
  if (fromIndex < Math.min(walk, fetchAll)) {
    return `SELECT c.company_id AS id FROM company_categories c
             WHERE c.category_id = ANY(${p.add(filters.category)}::int[]) AND c.${filters.main_activity_only ? 'is_main' : 'listed'}
               AND ${p.where({ ...filters, category: [], main_activity_only: false })}
             GROUP BY c.company_id ORDER BY c.company_id ${limit}`
  }
  // `c.id + 0` hides the primary-key order from the planner
  return `SELECT c.id FROM companies c WHERE c.created_at <= ${now} AND ${p.where(filters)}
           ORDER BY ${walk < fetchAll ? 'c.id' : 'c.id + 0'} ${limit}`
}

async function previewPage(
  db: Db,
  account: number,
  filters: Filters,
  now: Date,
  lang: string,
  pageSize: number,
  offset: number,
): Promise<PreviewPage> {
  const counted = await countCompanies(db, filters, now, null, account)
  const { count: totalCount, excluded } = counted
  if (offset > 0 && offset >= totalCount) return { totalCount, excluded, tail: null }
  const p = new Params(account)
  const at = p.add(now.toISOString())
  const language = p.add(lang)
  const ids = pageIds(filters, p, counted, offset + pageSize, offset, `${at}::timestamptz`)
  const { rows } = await db.query<LeadRow>(
    `SELECT c.name, c.emails, c.phone, c.address, l3.name AS city, c.zipcode, c.country_code AS country,
            l1.name AS level1_location, l2.name AS level2_location, c.website, c.instagram, c.facebook,
            ARRAY(SELECT coalesce(cat.names ->> ${language}::text, cat.name_en) FROM categories cat
                  WHERE cat.id = ANY(c.category_ids) ORDER BY array_position(c.category_ids, cat.id)) AS categories,
            c.rating, c.review_count, c.latitude, c.longitude, c.place_id, c.collected_at
     FROM (${ids}) page
     JOIN companies c ON c.id = page.id AND c.created_at <= ${at}::timestamptz
     JOIN level3_locations l3 ON l3.id = c.level3_id
     JOIN level2_locations l2 ON l2.id = c.level2_id
     JOIN level1_locations l1 ON l1.id = c.level1_id
     ORDER BY c.id`,
    p.values,
  )
  const results: Lead[] = rows.map(({ emails, rating, collected_at, ...r }) => ({
    ...r,
    country: r.country.trim(),
    email: emails.map(maskEmail),
    rating: rating === null ? null : Number(rating),
    collected_at: new Date(collected_at).toISOString(),
  }))
  return { totalCount, excluded, tail: new SharedJsonTail(`"results":${JSON.stringify(results)}}`) }
}

/**
 * GET /api/companies/: the count of a search and a page of its leads, masked (the first page of
 * PREVIEW_SIZE, or pages of PAGE_SIZE with `paginate`), as the JSON text of the answer; 404 past the
 * end. The account's search_id for these filters (decisions.md) is the only part of the answer that
 * is not the same for every account, unless the search leaves the account's lists out (extension
 * `lists`): then the page is the account's, cached by its lists' match versions too (ownLists).
 */
export async function preview(
  db: Db,
  userId: number,
  filters: Filters,
  ask: { paginate: boolean; page: number; lang: string },
  now: Date,
): Promise<JsonText> {
  const { paginate, page, lang } = ask
  const hash = filtersHash(filters)
  const pageSize = paginate ? PAGE_SIZE : PREVIEW_SIZE
  const offset = paginate ? (page - 1) * PAGE_SIZE : 0

  // the lists are checked before the search is recorded or counted
  const [lists, head] = await Promise.all([ownLists(db, userId, filters), previewHead(db, userId, hash)])
  const compute = () => previewPage(db, userId, filters, now, lang, pageSize, offset)
  const [searchId, { totalCount, excluded, tail }] = await Promise.all([
    head.searchId === undefined
      ? newPreviewSearch(db, userId, filters, hash, now)
      : touchPreviewSearch(db, head.searchId, head.usedAt, now),
    settled(head.version, now) ? pageCache(db).get(head.version, `${hash}:${lists}:${lang}:${pageSize}:${offset}`, compute) : compute(),
  ])
  if (!tail) throw notFound('Invalid page.')
  // the keys of the answer's schema (CompanyPreview) in its order, written by hand in front of the cached leads
  const leftOut = filters.exclude_lists ? `"excluded_by_lists":${excluded},` : ''
  const own = `{"totalCount":${totalCount},"search_id":${searchId},"page":${paginate ? page : 1},"page_size":${pageSize},${leftOut}`
  return new JsonText(own, tail)
}

/** GET /api/companies/owned/: of a search's leads, those an export of this account already holds (extension `skip_owned`). */
export async function ownedLeads(db: Db, userId: number, filters: Filters, now: Date) {
  const lists = await ownLists(db, userId, filters)
  const [{ count: totalCount }, owned] = await Promise.all([
    readDataVersion(db).then((version) => countCompaniesAt(db, version, filters, now, { account: userId, lists })),
    ownedCount(db, userId, filters, now),
  ])
  return { totalCount, owned_count: owned, new_count: Math.max(0, totalCount - owned) }
}
