import type { Db, Queryable } from '../../db/db.ts'
import { HttpError } from '../../lib/errors.ts'
import type { ApiKeyCredential } from '../../app-env.ts'
import { balanceOf, insufficientCredits } from '../exports/credits.ts'
import { EXPORT_COLUMNS, type ExportColumn } from '../exports/file-locale.ts'
import { lockAccountExports } from '../exports/lead-sets.ts'
import { createExport, exportingAccount, PLAIN_EXPORT, type ExportFormat, type StartedExport } from '../exports/service.ts'
import { ownedIdsSql } from '../search/company-counts.ts'
import { LIST_FIELDS, type ListField, type Mapping } from './mapping.ts'
import { ownList, type ListRow } from './service.ts'

/**
 * "Fill in my list" (issue 27): an export made from a matched list. It is charged, recorded and
 * written like any export (modules/exports/service.ts createExport, jobs/export-worker.ts), one credit
 * per matched company the account does not own yet (every matched company without `skip_owned`),
 * never for an unmatched or ambiguous row. Its file is the person's own (enrichment-file.ts).
 */

/** The export column holding each field a list's column can be mapped to. */
export const FIELD_COLUMNS: Record<ListField, ExportColumn> = {
  name: 'name',
  website: 'website',
  email: 'email',
  phone: 'phone',
  street: 'address',
  city: 'city',
  postal_code: 'zipcode',
  country: 'country',
}

export interface EnrichmentPlan {
  /** The file's own headers, kept as they are. */
  keeps: string[]
  /** Columns the file lacks, appended after its own. */
  fills: ExportColumn[]
  /** Mapped fields whose empty cells are filled in place. */
  fillsEmpty: ListField[]
}

/**
 * What the file becomes. Appended are the columns an export's lead has that none of the file's
 * mapped columns holds: a matched company is charged what an export's lead costs, so it brings what
 * an export's lead holds (contact details, address parts, categories, rating, position…), and a field
 * the file already has is filled in its own column rather than repeated. An unmapped column of the
 * file is the person's to read: it is kept and never written into.
 */
export function enrichmentPlan(headers: readonly string[], mapping: Mapping): EnrichmentPlan {
  const fillsEmpty = LIST_FIELDS.filter((f) => mapping[f] !== undefined)
  const held = new Set(fillsEmpty.map((f) => FIELD_COLUMNS[f]))
  return { keeps: [...headers], fills: EXPORT_COLUMNS.filter((c) => !held.has(c)), fillsEmpty }
}

/** The list of an enrichment: the caller's, wholly matched (409 `conflict` while it is not). */
async function matchedList(q: Queryable, userId: number, listId: number): Promise<ListRow & { mapping: Mapping }> {
  const list = await ownList(q, userId, listId)
  if (list.status !== 'matched' || list.mapping === null) {
    throw new HttpError(409, {
      detail: `The list is not matched (status ${list.status}): it can be filled in once its matching has finished.`,
      code: 'conflict',
      status: list.status,
    })
  }
  return list as ListRow & { mapping: Mapping }
}

interface Counts {
  matched_rows: number
  companies: number
  owned: number
}

/** The list's matched rows, the distinct companies they name, and how many of those the account owns. */
async function enrichmentCounts(q: Queryable, userId: number, listId: number): Promise<Counts> {
  const { rows } = await q.query<Counts>(
    `SELECT count(*)::int AS matched_rows, count(DISTINCT r.company_id)::int AS companies,
            count(DISTINCT r.company_id) FILTER (WHERE r.company_id IN (${ownedIdsSql('$2')}))::int AS owned
       FROM list_rows r WHERE r.list_id = $1 AND r.status = 'matched' AND r.company_id IS NOT NULL`,
    [listId, userId],
  )
  return rows[0]!
}

const priceOf = (counts: Counts, skipOwned: boolean) => (skipOwned ? counts.companies - counts.owned : counts.companies)

/** GET /api/lists/{id}/enrichment/: what filling in the list would cost and do; nothing is charged. */
export async function enrichmentQuote(q: Queryable, userId: number, listId: number, skipOwned: boolean) {
  const list = await matchedList(q, userId, listId)
  const counts = await enrichmentCounts(q, userId, listId)
  const plan = enrichmentPlan(list.headers, list.mapping)
  const price = priceOf(counts, skipOwned)
  return {
    list_id: list.id,
    ...counts,
    lead_count: price,
    credits_required: price,
    keeps: plan.keeps,
    fills: plan.fills,
    fills_empty: plan.fillsEmpty,
  }
}

/**
 * Records the list's matched companies as the leads of export `exportId` (all of them, or those the
 * account does not own with `skipOwned`), and adds those it did not own to its owned counts; answers
 * how many were recorded. It writes what recordExportLeads (exports/lead-sets.ts) writes for a
 * search's leads, from the list's rows instead of a search's filters, so the account never pays
 * twice for them. Under the account's exports lock (taken by the caller).
 */
async function recordListLeads(q: Queryable, exportId: number, userId: number, listId: number, skipOwned: boolean): Promise<number> {
  // a list's 200,000 companies sorted and grouped in memory, not in temporary files (as recordExportLeads)
  await q.query("SELECT set_config('work_mem', '64MB', true)")
  const { rows } = await q.query<{ n: number }>(
    `WITH owned AS MATERIALIZED (${ownedIdsSql('$2')}),
     picked AS MATERIALIZED (
       SELECT c.id, c.country_code, c.level1_id, c.level2_id, c.level3_id, c.has_email, c.has_phone, c.has_website,
              c.main_category_id, c.category_ids
         FROM companies c
        WHERE c.id IN (SELECT company_id FROM list_rows WHERE list_id = $3 AND status = 'matched' AND company_id IS NOT NULL)
          ${skipOwned ? 'AND NOT EXISTS (SELECT 1 FROM owned o WHERE o.id = c.id)' : ''}),
     listed AS (
       INSERT INTO export_leads (export_id, chunk, user_id, company_ids)
       SELECT $1::int, id >> 10, $2::int, array_agg(id ORDER BY id) FROM picked GROUP BY id >> 10
       ON CONFLICT DO NOTHING RETURNING cardinality(company_ids) AS n),
     fresh AS MATERIALIZED (SELECT * FROM picked k WHERE NOT EXISTS (SELECT 1 FROM owned o WHERE o.id = k.id)),
     places AS (
       INSERT INTO owned_counts AS t (user_id, country_code, level1_id, level2_id, level3_id, has_email, has_phone, has_website, n)
       SELECT $2::int, country_code, level1_id, level2_id, level3_id, has_email, has_phone, has_website, count(*)
         FROM fresh GROUP BY 2, 3, 4, 5, 6, 7, 8
       ON CONFLICT (user_id, level3_id, level2_id, level1_id, country_code, has_email, has_phone, has_website) DO UPDATE SET n = t.n + EXCLUDED.n),
     categories AS (
       INSERT INTO owned_category_counts AS t (user_id, category_id, country_code, has_email, has_phone, has_website, n, n_main)
       SELECT $2::int, category_id, country_code, has_email, has_phone, has_website, sum(n), sum(n_main)
         FROM (SELECT unnest(category_ids) AS category_id, 1 AS n, 0 AS n_main, country_code, has_email, has_phone, has_website FROM fresh
               UNION ALL
               SELECT main_category_id, 0, 1, country_code, has_email, has_phone, has_website FROM fresh) k
        GROUP BY 2, 3, 4, 5, 6
       ON CONFLICT (user_id, category_id, country_code, has_email, has_phone, has_website)
       DO UPDATE SET n = t.n + EXCLUDED.n, n_main = t.n_main + EXCLUDED.n_main)
     SELECT coalesce(sum(n), 0)::int AS n FROM listed`,
    [exportId, userId, listId],
  )
  return rows[0]?.n ?? 0
}

/**
 * POST /api/lists/{id}/enrichment/: one transaction, as POST /api/download-csv: on the account's
 * exports lock, the price counted, `expected_credits` compared (409 `price_changed`), the balance
 * checked (403), then the leads recorded and the account charged under its row lock (createExport);
 * the rows' matches are kept with the export, so its file is the same whenever it is written.
 */
export async function startEnrichment(
  db: Db,
  req: {
    userId: number
    listId: number
    skipOwned: boolean
    format: ExportFormat
    fileLocale: string | null
    expectedCredits: number | null
    now: Date
    apiKey: ApiKeyCredential | null
  },
): Promise<StartedExport> {
  return db.tx(async (q) => {
    const account = await exportingAccount(q, req.userId, req.now)
    const list = await matchedList(q, req.userId, req.listId)
    await lockAccountExports(q, req.userId)
    const counts = await enrichmentCounts(q, req.userId, list.id)
    const price = priceOf(counts, req.skipOwned)
    if (req.expectedCredits !== null && req.expectedCredits !== price) {
      throw new HttpError(409, {
        detail: `The price has changed: filling in this list now costs ${price} credits, not ${req.expectedCredits}. Nothing was charged.`,
        code: 'price_changed',
        credits_required: price,
      })
    }
    // checked again under the lock when charged; here, so that nothing is recorded for what cannot be paid
    const balance = await balanceOf(q, account, req.now)
    if (balance.available < price) throw insufficientCredits(price, balance.available)
    const created = await createExport(q, {
      userId: req.userId,
      filters: {},
      format: req.format,
      maxLeads: null,
      capped: false,
      leadCount: price,
      credits: price,
      sourceSearchId: null,
      deltaOf: null,
      createdAfter: null,
      now: req.now,
      options: { ...PLAIN_EXPORT, skipOwned: req.skipOwned, fileLocale: req.fileLocale },
      skippedOwned: req.skipOwned ? counts.owned : 0,
      apiKey: req.apiKey,
      name: null,
      list: { id: list.id, name: list.name, mapping: list.mapping },
      record: (tq, id) => recordListLeads(tq, id, req.userId, list.id, req.skipOwned),
      charge: (recorded) => recorded,
    })
    await q.query(
      `INSERT INTO enrichment_rows (export_id, row_no, status, company_id)
       SELECT $1, row_no, status, company_id FROM list_rows WHERE list_id = $2 AND status IN ('matched', 'ambiguous')`,
      [created.id, list.id],
    )
    return {
      search_id: created.id,
      status: 'PENDING' as const,
      lead_count: created.leadCount,
      credits_charged: created.credits,
      charged_from: created.chargedFrom,
      ...(req.skipOwned ? { skipped_owned: counts.owned } : {}),
    }
  })
}
