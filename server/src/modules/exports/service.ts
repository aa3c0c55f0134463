import type { Db, Queryable } from '../../db/db.ts'
import { balanceOf, chargeCredits, insufficientCredits, loadAccount, type ChargedFrom } from './credits.ts'
import { badRequest, HttpError, notFound } from '../../lib/errors.ts'
import { normaliseFilters, ownLists, type Filters } from '../search/filters.ts'
import type { ApiKeyCredential } from '../../app-env.ts'
import { checkKeyCap } from '../keys/scope.ts'
import type { EMAIL_COLUMNS } from './file-locale.ts'
import { countMatches, lockAccountExports, recordExportLeads, type LeadSet } from './lead-sets.ts'
import type { Mapping } from '../lists/mapping.ts'

/**
 * Export start and the download-delta rules (interface 4.3, decisions.md). Both charge in ONE
 * transaction, which locks the account row (SELECT … FOR UPDATE on PostgreSQL; PGlite runs
 * transactions one at a time) for the charge alone, at its end: the counts, the checks and the
 * export's lead list come first, then the balance is read again under the lock, the export row is
 * written and charged, and the transaction commits. Concurrent starts can never spend the same
 * credits twice. An account's exports take their turn on its exports lock first (lead-sets.ts),
 * which blocks nothing else of the account: what a skip_owned or fresh-data export holds depends on
 * the exports started before it.
 */

export type ExportFormat = 'csv' | 'excel'

export interface ExportRow {
  id: number
  user_id: number
  /** Claims of the job so far (issue 8 queue): more than one means it was taken over. */
  attempts: number
  /** When the clean-up deleted the file after the link expired. */
  file_removed_at?: Date | null
  kind: 'preview' | 'export'
  filters: unknown
  created_at: Date
  source_search_id: number | null
  delta_of: number | null
  status: string | null
  progress: number
  processed_count: number
  lead_count: number
  credits_charged: number
  export_format: ExportFormat | null
  max_leads: number | null
  capped: boolean
  created_after: Date | null
  snapshot_at: Date | null
  file_path: string | null
  filename: string | null
  /** The name given to the search (watched searches); a fresh-data export keeps its original's. */
  name: string | null
  file_size_bytes: number | string | null
  completed_at: Date | null
  expires_at: Date | null
  error: string | null
  /** The API key that started it (issue 12); null for a password session. */
  api_key_id?: string | null
  /** Extensions (issue 11): leave out leads the account already has; the file's columns and locale. */
  /** The export's leads are fixed in export_leads (every export since issue 11). */
  leads_recorded: boolean
  skip_owned: boolean
  skipped_owned: number
  columns: string[] | null
  file_locale: string | null
  email_columns: EmailColumns
  /** An enrichment export (issue 27, "Fill in my list"): the list it fills, its name and mapping when charged. */
  list_id: number | null
  list_name: string | null
  list_mapping: Mapping | null
}

export type EmailColumns = (typeof EMAIL_COLUMNS)[number]

/** The export extensions of a request (capabilities `skip_owned`, `export_columns`, `file_locale`, `email_columns`). */
export interface ExportOptions {
  skipOwned: boolean
  columns: string[] | null
  fileLocale: string | null
  emailColumns: EmailColumns
}
export const PLAIN_EXPORT: ExportOptions = { skipOwned: false, columns: null, fileLocale: null, emailColumns: 'joined' }

async function insertExport(
  q: Queryable,
  id: number,
  e: {
    userId: number
    /** The search's filters; an enrichment export has none. */
    filters: Filters | Record<string, never>
    format: ExportFormat
    maxLeads: number | null
    capped: boolean
    leadCount: number
    credits: number
    /** The preview it was started from; none for an enrichment export. */
    sourceSearchId: number | null
    deltaOf: number | null
    createdAfter: Date | null
    now: Date
    options: ExportOptions
    skippedOwned: number
    /** The API key that started it (null for a password session). */
    apiKey: ApiKeyCredential | null
    /** The original's name for fresh data; a new export has none until it is named. */
    name: string | null
    /** An enrichment export's list (issue 27). */
    list?: { id: number; name: string; mapping: Mapping } | null
  },
): Promise<void> {
  await q.query(
    `INSERT INTO searches (user_id, kind, filters, filters_hash, created_at, source_search_id, delta_of, status,
                           lead_count, credits_charged, export_format, max_leads, capped, created_after, snapshot_at,
                           skip_owned, skipped_owned, columns, file_locale, email_columns, api_key_id, id, leads_recorded, name,
                           list_id, list_name, list_mapping)
     VALUES ($1, 'export', $2, '', $3, $4, $5, 'PENDING', $6, $7, $8, $9, $10, $11, $3, $12, $13, $14, $15, $16, $17, $18, true, $19,
             $20, $21, $22)`,
    [
      e.userId,
      JSON.stringify(e.filters),
      e.now,
      e.sourceSearchId,
      e.deltaOf,
      e.leadCount,
      e.credits,
      e.format,
      e.maxLeads,
      e.capped,
      e.createdAfter,
      e.options.skipOwned,
      e.skippedOwned,
      e.options.columns === null ? null : JSON.stringify(e.options.columns),
      e.options.fileLocale,
      e.options.emailColumns,
      e.apiKey?.id ?? null,
      id,
      e.name,
      e.list?.id ?? null,
      e.list?.name ?? null,
      e.list ? JSON.stringify(e.list.mapping) : null,
    ],
  )
}

/**
 * Fixes the export's leads (`record`, under the account's exports lock, answers how many it fixed),
 * then charges what they number: the account row is locked from the charge to the commit, nothing
 * else (the caller's transaction ends right after). The count was checked against the balance
 * before, unlocked; it is checked again under the lock. The recorded number can only be lower than
 * the count (a company removed meanwhile), and the export is charged for what it will deliver.
 */
export async function createExport(
  q: Queryable,
  e: Parameters<typeof insertExport>[2] & {
    record: (q: Queryable, exportId: number) => Promise<number>
    charge: (recorded: number) => number
  },
): Promise<{ id: number; leadCount: number; credits: number; chargedFrom: ChargedFrom; available: number }> {
  const id = (await q.query<{ id: number }>(`SELECT nextval(pg_get_serial_sequence('searches', 'id'))::int AS id`)).rows[0]!.id
  const recorded = await e.record(q, id)
  const credits = e.charge(recorded)
  // the charge
  const account = await loadAccount(q, e.userId, e.now, true)
  if (!account) throw notFound()
  const balance = await balanceOf(q, account, e.now)
  if (balance.available < credits) throw insufficientCredits(credits, balance.available)
  // A key's monthly cap, counted after the account row is locked (concurrent exports wait their turn),
  // before this export's row exists.
  await checkKeyCap(q, e.apiKey, credits, e.now)
  await insertExport(q, id, { ...e, leadCount: recorded, credits })
  const chargedFrom = await chargeCredits(q, account, credits, id, e.now)
  return { id, leadCount: recorded, credits, chargedFrom, available: balance.available - credits }
}

export interface StartedExport {
  search_id: number
  status: 'PENDING'
  lead_count: number
  credits_charged: number
  /** Extension `credit_order`: which balances paid (the credits that expire first). */
  charged_from: ChargedFrom
  /** With `skip_owned`: matching leads left out because the account already has them. */
  skipped_owned?: number
}

/**
 * The account starting an export, read unlocked (it is locked for the charge only, createExport); 403
 * until its address is confirmed.
 */
export async function exportingAccount(q: Queryable, userId: number, now: Date) {
  const account = await loadAccount(q, userId, now)
  if (!account) throw notFound()
  if (!account.email_confirmed_at) {
    throw new HttpError(403, {
      detail: 'Confirm your email address first: open the link in the mail we sent when you signed up.',
      code: 'email_not_confirmed',
      validation_code: 'email_not_confirmed',
    })
  }
  return account
}

/** POST /api/download-csv/: one transaction, charge and queue; the caller kicks the worker. */
export async function startExport(
  db: Db,
  req: {
    userId: number
    searchId: number
    format: ExportFormat
    maxLeads: number | null
    now: Date
    options?: ExportOptions
    apiKey?: ApiKeyCredential | null
  },
): Promise<StartedExport> {
  const options = req.options ?? PLAIN_EXPORT
  return db.tx(async (q) => {
    const account = await exportingAccount(q, req.userId, req.now)
    const source = (
      await q.query<{ id: number; filters: unknown; source_search_id: number | null }>(
        'SELECT id, filters, source_search_id FROM searches WHERE id = $1 AND user_id = $2',
        [req.searchId, req.userId],
      )
    ).rows[0]
    if (!source) throw notFound('Search not found.')
    const filters = normaliseFilters(asFiltersInput(source.filters))
    await ownLists(q, req.userId, filters, 'search_id')
    // An account's exports start one after another (lead-sets.ts): what one leaves out (skip_owned)
    // depends on what the one before took, and their ids follow the order they are charged in.
    await lockAccountExports(q, req.userId)
    const set: LeadSet = { filters, upTo: req.now, skipOwnedBy: options.skipOwned ? req.userId : null, account: req.userId }
    const total = await countMatches(q, set)
    const skippedOwned = options.skipOwned ? (await countMatches(q, { filters, upTo: req.now, account: req.userId })) - total : 0
    const leadCount = req.maxLeads === null ? total : Math.min(total, req.maxLeads)
    if (leadCount === 0) {
      if (options.skipOwned && skippedOwned > 0) {
        throw badRequest(
          {
            search_id: [
              {
                message: `You already have all ${skippedOwned} leads of this search: nothing to export, nothing charged.`,
                code: 'all_leads_owned',
                params: { count: skippedOwned },
              },
            ],
          },
          'Nothing to export.',
        )
      }
      throw badRequest({ search_id: ['No companies match this search: there is nothing to export.'] }, 'Nothing to export.')
    }
    // checked again under the lock when charged; here, so that nothing is recorded for an export that cannot be paid
    const balance = await balanceOf(q, account, req.now)
    if (balance.available < leadCount) throw insufficientCredits(leadCount, balance.available)
    const created = await createExport(q, {
      userId: req.userId,
      filters,
      format: req.format,
      maxLeads: req.maxLeads,
      capped: req.maxLeads !== null && req.maxLeads < total,
      leadCount,
      credits: leadCount,
      sourceSearchId: source.source_search_id ?? source.id,
      deltaOf: null,
      createdAfter: null,
      now: req.now,
      options,
      skippedOwned,
      apiKey: req.apiKey ?? null,
      name: null,
      record: (tq, id) => recordExportLeads(tq, id, req.userId, set, leadCount),
      charge: (recorded) => recorded,
    })
    return {
      search_id: created.id,
      status: 'PENDING' as const,
      lead_count: created.leadCount,
      credits_charged: created.credits,
      charged_from: created.chargedFrom,
      ...(options.skipOwned ? { skipped_owned: skippedOwned } : {}),
    }
  })
}

export const asFiltersInput = (v: unknown): Record<string, unknown> =>
  v && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : {}

export type DeltaStatus = 'validated' | 'started' | 'rejected'
export type DeltaCode = 'ok' | 'no_new_leads' | 'insufficient_credits' | 'fresh_exports_not_allowed' | 'not_completed'

export interface DeltaResult {
  status: DeltaStatus
  validation_code: DeltaCode
  /** Why a request was rejected, for a person (decisions.md: 403 {detail, validation_code, …}). */
  detail?: string
  search_id: number
  lead_count: number
  required_credits: number
  available_credits: number
  freshness: {
    original_exported_at: string | null
    /** The newest snapshot among the original and its fresh-data exports: what is already bought. */
    last_exported_at: string | null
    original_lead_count: number
    current_total: number
    /** Companies created after last_exported_at (not yet bought). */
    new_since_export: number
    capped: boolean
  }
  freshness_checked_at: string
  /** Extension `credit_order`, when `started`: which balances paid. */
  charged_from?: ChargedFrom
}

const DELTA_HTTP: Record<DeltaCode, 200 | 403 | 409> = {
  ok: 200,
  no_new_leads: 200,
  insufficient_credits: 403,
  fresh_exports_not_allowed: 403,
  not_completed: 409,
}

/**
 * What this search has already bought: the export asked about and every fresh-data export made
 * from it or from one of those (any status: a FAILED one was charged too and is retried at no new
 * charge), walked from the root of the chain so that a delta of a delta sees its siblings.
 * `cutOff` is the newest snapshot among them, `credits` the sum they were charged.
 */
async function boughtSoFar(q: Queryable, userId: number, exportId: number): Promise<{ cutOff: Date; credits: number }> {
  const { rows } = await q.query<{ cut_off: Date | string; credits: number }>(
    `WITH RECURSIVE up AS (
       SELECT id, delta_of FROM searches WHERE id = $1 AND user_id = $2
       UNION ALL
       SELECT s.id, s.delta_of FROM searches s JOIN up ON s.id = up.delta_of WHERE s.user_id = $2
     ), chain AS (
       SELECT s.id, s.snapshot_at, s.created_at, s.credits_charged FROM searches s
        WHERE s.id = (SELECT id FROM up WHERE delta_of IS NULL LIMIT 1)
       UNION ALL
       SELECT s.id, s.snapshot_at, s.created_at, s.credits_charged FROM searches s JOIN chain ON s.delta_of = chain.id
        WHERE s.user_id = $2 AND s.kind = 'export'
     )
     SELECT max(coalesce(snapshot_at, created_at)) AS cut_off, coalesce(sum(credits_charged), 0)::int AS credits FROM chain`,
    [exportId, userId],
  )
  const row = rows[0]
  if (!row?.cut_off) throw new Error(`boughtSoFar: no chain for export ${exportId}`)
  return { cutOff: new Date(row.cut_off), credits: row.credits }
}

/**
 * download-delta (interface 4.3 rules 1–2, decisions.md):
 * - uncapped original: only companies created after what the search has already bought (the
 *   original's snapshot for the first delta, the newest fresh-data export's after that), charge =
 *   their number;
 * - capped original: a full-expansion export of all current matches, charge = current total − credits
 *   charged so far for it (the original's alone for the first delta).
 * A request that may start an export reads everything under the account's exports lock, so of
 * concurrent `{}` requests the first starts and the others see its export and answer `no_new_leads`.
 * `dryRun` validates only; otherwise a valid request starts the export at once (status `started`,
 * the new export's id in `search_id`, HTTP 202, `available_credits` after the charge).
 */
export async function downloadDelta(
  db: Db,
  req: { userId: number; searchId: number; dryRun: boolean; now: Date; apiKey?: ApiKeyCredential | null },
): Promise<{ httpStatus: 200 | 202 | 403 | 409; body: DeltaResult }> {
  return db.tx(async (q) => {
    const account = await loadAccount(q, req.userId, req.now)
    if (!account) throw notFound()
    if (!req.dryRun) await lockAccountExports(q, req.userId)
    const original = (
      await q.query<ExportRow>("SELECT * FROM searches WHERE id = $1 AND user_id = $2 AND kind = 'export'", [req.searchId, req.userId])
    ).rows[0]
    if (!original) throw notFound('Export not found.')
    if (original.list_id !== null) {
      // its leads are a list's matches, not a search's: there is no newer data to ask for
      throw badRequest(
        { search_id: [{ code: 'invalid_choice', message: 'This export filled in a list: fresh data is only for exports of a search.' }] },
        'Fresh data is only for exports of a search; this export filled in a list.',
      )
    }
    const filters = normaliseFilters(asFiltersInput(original.filters))
    await ownLists(q, req.userId, filters, 'search_id')
    const snapshot = original.snapshot_at ? new Date(original.snapshot_at) : new Date(original.created_at)
    const bought = await boughtSoFar(q, req.userId, original.id)
    const currentTotal = await countMatches(q, { filters, upTo: req.now, account: req.userId })
    const newSince = await countMatches(q, { filters, upTo: req.now, after: bought.cutOff, account: req.userId })
    const balance = await balanceOf(q, account, req.now)
    // What the fresh-data export holds. A skip-owned original (extension) keeps skipping: it holds the
    // leads of the set the account does not have yet, and is charged for exactly those.
    const set: LeadSet = {
      filters,
      upTo: req.now,
      after: original.capped ? null : bought.cutOff,
      skipOwnedBy: original.skip_owned ? req.userId : null,
      account: req.userId,
    }
    const unowned = original.skip_owned ? await countMatches(q, set) : null
    const leadCount = unowned ?? (original.capped ? currentTotal : newSince)
    const required = unowned ?? (original.capped ? Math.max(0, currentTotal - bought.credits) : newSince)
    const result = (
      status: DeltaStatus,
      code: DeltaCode,
      extra: { searchId?: number; detail?: string; available?: number; chargedFrom?: ChargedFrom } = {},
    ): DeltaResult => ({
      status,
      validation_code: code,
      ...(extra.detail ? { detail: extra.detail } : {}),
      search_id: extra.searchId ?? original.id,
      lead_count: leadCount,
      required_credits: required,
      available_credits: extra.available ?? balance.available,
      freshness: {
        original_exported_at: snapshot.toISOString(),
        last_exported_at: bought.cutOff.toISOString(),
        original_lead_count: original.lead_count,
        current_total: currentTotal,
        new_since_export: newSince,
        capped: original.capped,
      },
      freshness_checked_at: req.now.toISOString(),
      ...(extra.chargedFrom ? { charged_from: extra.chargedFrom } : {}),
    })
    const reject = (code: DeltaCode, detail: string) => ({ httpStatus: DELTA_HTTP[code], body: result('rejected', code, { detail }) })

    if (!account.plan?.allows_fresh_exports) {
      return reject('fresh_exports_not_allowed', 'Your plan does not include fresh-data exports.')
    }
    if (original.status !== 'COMPLETED') {
      return reject(
        'not_completed',
        `This export is ${(original.status ?? 'PENDING').toLowerCase()}: fresh data can be asked for once it has completed.`,
      )
    }
    if (required === 0 || leadCount === 0) {
      return reject(
        'no_new_leads',
        original.capped
          ? 'The full search holds no leads beyond those already paid for: nothing to export, nothing charged.'
          : `No companies have been added since ${bought.cutOff.toISOString()}, the last export of this search: nothing to export, nothing charged.`,
      )
    }
    if (balance.available < required) {
      return reject('insufficient_credits', `Not enough credits: this needs ${required} and ${balance.available} are available.`)
    }
    if (req.dryRun) return { httpStatus: 200 as const, body: result('validated', 'ok') }

    const created = await createExport(q, {
      userId: req.userId,
      filters,
      format: original.export_format ?? 'csv',
      maxLeads: null,
      capped: false,
      leadCount,
      credits: required,
      sourceSearchId: original.source_search_id ?? original.id,
      deltaOf: original.id,
      createdAfter: original.capped ? null : bought.cutOff,
      now: req.now,
      // the same kind of file as the original's
      options: {
        skipOwned: original.skip_owned,
        columns: original.columns,
        fileLocale: original.file_locale,
        emailColumns: original.email_columns,
      },
      skippedOwned: 0,
      apiKey: req.apiKey ?? null,
      // the name the person gave the search goes with its fresh data (it is the same search)
      name: original.name,
      record: (tq, id) => recordExportLeads(tq, id, req.userId, set, null),
      // a capped original's full expansion is charged the difference (interface 4.3 rule 2), whatever was recorded
      charge: (recorded) => (unowned === null && original.capped ? required : recorded),
    })
    return {
      httpStatus: 202 as const,
      body: result('started', 'ok', { searchId: created.id, available: created.available, chargedFrom: created.chargedFrom }),
    }
  })
}

/** The caller's export (never a preview): 404 for another account's or none. */
export async function ownExport(q: Queryable, userId: number, searchId: number): Promise<ExportRow> {
  const row = (await q.query<ExportRow>("SELECT * FROM searches WHERE id = $1 AND user_id = $2 AND kind = 'export'", [searchId, userId]))
    .rows[0]
  if (!row) throw notFound('Export not found.')
  return row
}

export type ExportStatus = 'PENDING' | 'PROCESSING' | 'COMPLETED' | 'FAILED'

/** GET /api/download-status/{id}/: where the caller's export stands. */
export async function exportProgress(q: Queryable, userId: number, searchId: number) {
  const row = await ownExport(q, userId, searchId)
  return {
    search_id: row.id,
    status: (row.status ?? 'PENDING') as ExportStatus,
    progress: row.progress,
    processed_count: row.processed_count,
    lead_count: row.lead_count,
    error: row.error,
  }
}

/**
 * Queues a FAILED export again at no new charge: its leads (export_leads) and its charge stay, so
 * the worker writes the same file. 409 for an export in any other status; the caller kicks the worker.
 */
export async function retryExport(db: Db, userId: number, searchId: number): Promise<void> {
  const { rows } = await db.query<{ id: number }>(
    `UPDATE searches SET status = 'PENDING', error = NULL, progress = 0, processed_count = 0
      WHERE id = $1 AND user_id = $2 AND kind = 'export' AND status = 'FAILED' RETURNING id`,
    [searchId, userId],
  )
  if (rows.length) return
  const exists = await db.query<{ status: string }>("SELECT status FROM searches WHERE id = $1 AND user_id = $2 AND kind = 'export'", [
    searchId,
    userId,
  ])
  if (!exists.rows[0]) throw notFound('Export not found.')
  throw new HttpError(409, {
    detail: `Only a failed export can be retried (status ${exists.rows[0].status}).`,
    code: 'conflict',
    status: exists.rows[0].status,
  })
}
