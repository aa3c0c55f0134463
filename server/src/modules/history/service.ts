import type { Db } from '../../db/db.ts'
import { badRequest, notFound } from '../../lib/errors.ts'
import type { ChargedFrom } from '../exports/credits.ts'
import type { ExportFormat, ExportRow } from '../exports/service.ts'

/** Watched searches one account may hold: the dashboard asks one free dry run per watched search. */
export const MAX_WATCHED = 20
export const MAX_NAME = 80

type ExportStatus = 'PENDING' | 'PROCESSING' | 'COMPLETED' | 'FAILED'

/** One export as the history lists it (HistoryEntry in /api/schema/). */
export interface HistoryEntry {
  search_id: number
  filters: Record<string, unknown>
  created_at: string
  status: ExportStatus
  progress: number
  lead_count: number
  credits_charged: number
  charged_from: ChargedFrom | null
  export_format: ExportFormat
  capped: boolean
  max_leads: number | null
  delta_of: number | null
  filename: string | null
  file_size_bytes: number | null
  completed_at: string | null
  expires_at: string | null
  error: string | null
  file_removed: boolean
  api_key: { id: string; token_key: string } | null
  name: string | null
  watched: boolean
  /** An enrichment export (issue 27): the list it filled in. */
  list?: { id: number; name: string }
}

/** An export row with the prefix of the key that started it (LEFT JOIN api_keys) and the balances that paid it. */
type EntryRow = ExportRow & {
  api_key_token_key?: string | null
  name?: string | null
  watched?: boolean
  charged_from?: ChargedFrom | string | null
}
const ENTRY_SELECT = `SELECT s.*, k.token_key AS api_key_token_key,
       (SELECT CASE WHEN count(*) > 0 THEN json_build_object('subscription', sum(ch.from_subscription)::int, 'purchased', sum(ch.from_purchased)::int) END
          FROM credit_charges ch WHERE ch.search_id = s.id) AS charged_from
  FROM searches s LEFT JOIN api_keys k ON k.id = s.api_key_id`

const iso = (d: Date | null) => (d ? new Date(d).toISOString() : null)

const chargedFrom = (v: EntryRow['charged_from']): ChargedFrom | null =>
  typeof v === 'string' ? (JSON.parse(v) as ChargedFrom) : (v ?? null)

function toEntry(r: EntryRow): HistoryEntry {
  return {
    search_id: r.id,
    filters: r.filters && typeof r.filters === 'object' ? (r.filters as Record<string, unknown>) : {},
    created_at: new Date(r.created_at).toISOString(),
    status: (r.status ?? 'PENDING') as ExportStatus,
    progress: r.progress,
    lead_count: r.lead_count,
    credits_charged: r.credits_charged,
    charged_from: chargedFrom(r.charged_from),
    export_format: r.export_format ?? 'csv',
    capped: r.capped,
    max_leads: r.max_leads,
    delta_of: r.delta_of,
    filename: r.filename,
    file_size_bytes: r.file_size_bytes === null ? null : Number(r.file_size_bytes),
    completed_at: iso(r.completed_at),
    expires_at: iso(r.expires_at),
    error: r.error,
    file_removed: r.file_removed_at !== null && r.file_removed_at !== undefined,
    api_key: r.api_key_id && r.api_key_token_key ? { id: r.api_key_id, token_key: r.api_key_token_key } : null,
    name: r.name ?? null,
    watched: r.watched === true,
    ...(r.list_id !== null && r.list_name !== null ? { list: { id: r.list_id, name: r.list_name } } : {}),
  }
}

/** The export statuses a history search narrows to (extension `history_search`). */
export const EXPORT_STATUSES: readonly ExportStatus[] = ['PENDING', 'PROCESSING', 'COMPLETED', 'FAILED']
export const MAX_QUERY = 100

/** What a history search narrows the list to (extension `history_search`); every part optional. */
export interface HistorySearch {
  /** Matched, case- and accent-blind, against the search's name, its places' and categories' names, and its number. */
  text?: string
  /** ISO 3166 alpha-2, upper case: a country the search's filters hold. */
  country?: string
  statuses?: readonly ExportStatus[]
}

/**
 * Combining marks dropped before matching: Latin, Cyrillic, Hebrew and Arabic points, Thai vowel and
 * tone marks, and the combining blocks. PostgreSQL's regular expressions have no \p{M}; these are the
 * marks of the 27 languages' scripts, so "zurich" finds "Zürich" and "קפה" finds "קָפֶה".
 */
const MARKS = String.raw`[\u0300-\u036f\u0483-\u0489\u0591-\u05bd\u05bf\u05c1\u05c2\u05c4\u05c5\u05c7\u0610-\u061a\u064b-\u065f\u0670\u0e31\u0e34-\u0e3a\u0e47-\u0e4e\u1ab0-\u1aff\u1dc0-\u1dff\u20d0-\u20ff\ufe20-\ufe2f]`

/**
 * Case- and accent-blind form of an SQL text expression, written the same for both sides of a match so
 * they cannot fold differently: decomposed (NFKD), marks dropped, lower case, and the two letters that
 * do not decompose spelled as a person types them without them (ł → l, ß → ss; lib/name-match.ts).
 */
const foldSql = (expr: string) =>
  `replace(translate(lower(regexp_replace(normalize(${expr}, NFKD), '${MARKS}', '', 'g')), 'ł', 'l'), 'ß', 'ss')`

/** Ids of one filter list of `searches s` (a list of numbers in the stored filters; absent in old rows). */
const filterIds = (key: string) => `SELECT jsonb_array_elements_text(coalesce(s.filters -> '${key}', '[]'))::int`

/**
 * The SQL condition on `searches s` for a history search, its parameters numbered from `firstParam`.
 * The text finds a search by what a person reads on its entry: its name, the names of its places (in
 * any language the service knows them by) and categories (in every language), or its number
 * ("12" or "#12").
 */
function historySearchWhere(search: HistorySearch, firstParam: number): { sql: string; params: unknown[] } {
  const params: unknown[] = []
  const p = (value: unknown) => {
    params.push(value)
    return `$${firstParam + params.length - 1}`
  }
  const conditions: string[] = []
  const text = search.text?.trim() ?? ''
  if (text) {
    const q = `${foldSql(`${p(text)}::text`)}`
    const found = (expr: string) => `strpos(${foldSql(expr)}, ${q}) > 0`
    const number = text.replace(/^#/, '')
    conditions.push(`(
      ${found("coalesce(s.name, '')")}
      ${/^\d+$/.test(number) ? `OR strpos(s.id::text, ${p(number)}) > 0` : ''}
      OR EXISTS (SELECT 1 FROM categories cat LEFT JOIN LATERAL jsonb_each_text(cat.names) n ON true
                  WHERE cat.id IN (${filterIds('category')}) AND (${found('cat.name_en')} OR ${found('n.value')}))
      OR EXISTS (SELECT 1 FROM (SELECT 1 AS level, id, name FROM level1_locations WHERE id IN (${filterIds('level1_location')})
                                UNION ALL SELECT 2, id, name FROM level2_locations WHERE id IN (${filterIds('level2_location')})
                                UNION ALL SELECT 3, id, name FROM level3_locations WHERE id IN (${filterIds('level3_location')})) place
                  WHERE ${found('place.name')}
                     OR EXISTS (SELECT 1 FROM place_names pn WHERE pn.level = place.level AND pn.place_id = place.id AND ${found('pn.name')})))`)
  }
  if (search.country) conditions.push(`coalesce(s.filters -> 'countries', '[]') @> jsonb_build_array(${p(search.country)}::text)`)
  if (search.statuses?.length) conditions.push(`s.status = ANY(${p(search.statuses)}::text[])`)
  return { sql: conditions.map((c) => ` AND ${c}`).join(''), params }
}

/**
 * A page of the account's exports, newest first: only the watched ones with `watchedOnly`, only those
 * a history search finds with `search`; `count` is theirs. 404 past the last page.
 */
export async function historyPage(
  db: Db,
  userId: number,
  ask: { page: number; pageSize: number; watchedOnly: boolean; search?: HistorySearch },
): Promise<{ count: number; pages: number; entries: HistoryEntry[] }> {
  const found = historySearchWhere(ask.search ?? {}, 2)
  // an enrichment export (issue 27) is a list filled in, not a search: its list shows it
  const where = `s.user_id = $1 AND s.kind = 'export' AND s.list_id IS NULL${ask.watchedOnly ? ' AND s.watched' : ''}${found.sql}`
  const count =
    (await db.query<{ n: number }>(`SELECT count(*)::int AS n FROM searches s WHERE ${where}`, [userId, ...found.params])).rows[0]?.n ?? 0
  const pages = Math.max(1, Math.ceil(count / ask.pageSize))
  if (ask.page > pages) throw notFound('Invalid page.')
  const limit = 2 + found.params.length
  const { rows } = await db.query<EntryRow>(
    `${ENTRY_SELECT} WHERE ${where}
        ORDER BY s.created_at DESC, s.id DESC LIMIT $${limit} OFFSET $${limit + 1}`,
    [userId, ...found.params, ask.pageSize, (ask.page - 1) * ask.pageSize],
  )
  return { count, pages, entries: rows.map(toEntry) }
}

export async function historyEntry(db: Db, userId: number, searchId: number): Promise<HistoryEntry> {
  const row = (await db.query<EntryRow>(`${ENTRY_SELECT} WHERE s.id = $1 AND s.user_id = $2 AND s.kind = 'export'`, [searchId, userId]))
    .rows[0]
  if (!row) throw notFound('Export not found.')
  return toEntry(row)
}

/**
 * Names and/or watches a search (extension `watched_searches`): `name` null removes it, undefined
 * keeps it. Only an original export can be watched, and at most MAX_WATCHED per account.
 */
export async function updateEntry(
  db: Db,
  userId: number,
  searchId: number,
  change: { name: string | null | undefined; watched: boolean | undefined },
): Promise<HistoryEntry> {
  const { name, watched } = change
  const row = await db.tx(async (q) => {
    // the account row is the lock: two requests watching at once cannot pass the limit together
    await q.query('SELECT id FROM users WHERE id = $1 FOR UPDATE', [userId])
    const entry = (
      await q.query<{ delta_of: number | null; watched: boolean; list_name: string | null }>(
        "SELECT delta_of, watched, list_name FROM searches WHERE id = $1 AND user_id = $2 AND kind = 'export'",
        [searchId, userId],
      )
    ).rows[0]
    if (!entry) throw notFound('Export not found.')
    if (watched === true && !entry.watched) {
      // a list's fill-in is no search: nothing to ask fresh data of (download-delta refuses it too)
      if (entry.list_name !== null) {
        throw badRequest({ watched: [`This export fills in the list “${entry.list_name}”: it is not a search to watch.`] })
      }
      if (entry.delta_of !== null) {
        throw badRequest({ watched: [`This is a fresh-data export of #${entry.delta_of}: watch that search instead.`] })
      }
      const n = (
        await q.query<{ n: number }>("SELECT count(*)::int AS n FROM searches WHERE user_id = $1 AND kind = 'export' AND watched", [userId])
      ).rows[0]!.n
      if (n >= MAX_WATCHED) {
        throw badRequest({
          watched: [
            {
              code: 'watch_limit',
              message: `You already watch ${MAX_WATCHED} searches: stop watching one first.`,
              params: { limit: MAX_WATCHED },
            },
          ],
        })
      }
    }
    await q.query(
      'UPDATE searches SET name = CASE WHEN $3 THEN $4 ELSE name END, watched = coalesce($5, watched) WHERE id = $1 AND user_id = $2',
      [searchId, userId, name !== undefined, name ?? null, watched ?? null],
    )
    return (await q.query<EntryRow>(`${ENTRY_SELECT} WHERE s.id = $1 AND s.user_id = $2`, [searchId, userId])).rows[0]!
  })
  return toEntry(row)
}
