import ExcelJS from 'exceljs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { EXPORT_COLUMNS } from '../src/modules/exports/file-locale.ts'
import { balance, body, grant, paidUser, parseCsv, signUp, waitForExport, type TestUser } from './account-helpers.ts'
import { startTestService, type TestService } from './helpers.ts'
import { confirm, csv, uploaded, waitMatched } from './lists-helpers.ts'

/**
 * Issue 27, "Fill in my list": an export of a matched list's companies in the person's own file,
 * charged per matched company (never an unmatched row), on the export's path (status, file, retry).
 */

let svc: TestService
interface Company {
  id: number
  name: string
  website: string
  phone: string
  emails: string[]
  city: string
}
/** Three companies that their website alone finds (a registrable domain no other company has). */
let a: Company, b: Company, c: Company

beforeAll(async () => {
  svc = await startTestService()
  const { rows } = await svc.deps.db.query<Company>(
    `SELECT c.id, c.name, c.website, c.phone, c.emails, l.name AS city FROM companies c
       JOIN level3_locations l ON l.id = c.level3_id JOIN company_match_keys k ON k.company_id = c.id
      WHERE k.site_domain IS NOT NULL AND c.website IS NOT NULL AND c.phone IS NOT NULL AND cardinality(c.emails) > 0
        AND (SELECT count(*) FROM company_match_keys o WHERE o.site_domain = k.site_domain) = 1
      ORDER BY c.id LIMIT 3`,
  )
  ;[a, b, c] = rows as [Company, Company, Company]
})
afterAll(() => svc?.close())

const HEADERS = ['Kundennr', 'Firma', 'Webseite', 'Telefon', 'Notiz']
/** Five rows: three companies (one twice), one that matches nothing, the person's own texts beside them. */
const rows = () => [
  HEADERS,
  ['K-1', 'Unser Name für A', a.website, '', 'note 1'],
  ['K-2', 'Niemand GmbH', '', '', '=1+1'],
  ['K-3', '', b.website, 'ask reception', ''],
  ['K-4', c.name, c.website, '', 'note 4'],
  ['K-5', 'A again', a.website, '', ''],
]
const MAPPING = { name: 1, website: 2, phone: 3 }
const FILLS: string[] = EXPORT_COLUMNS.filter((col) => !['name', 'website', 'phone'].includes(col))

interface ErrorBody {
  code: string
  [k: string]: unknown
}
interface Quote {
  matched_rows: number
  companies: number
  owned: number
  lead_count: number
  credits_required: number
  keeps: string[]
  fills: string[]
  fills_empty: string[]
}
interface Started {
  search_id: number
  status: string
  lead_count: number
  credits_charged: number
  skipped_owned?: number
}

async function matchedList(u: TestUser, name = 'kunden.csv') {
  const list = await uploaded(svc, u, { name, bytes: csv(rows()) })
  await confirm(svc, u, list.id, MAPPING)
  expect(await waitMatched(svc, u, list.id)).toMatchObject({ status: 'matched' })
  return list
}

const quote = async (u: TestUser, id: number, query = '') => {
  const res = await svc.request(`/api/lists/${id}/enrichment/${query}`, { token: u.access })
  expect(res.status, await res.clone().text()).toBe(200)
  return body<Quote>(res)
}
const enrich = (token: string, id: number, json: Record<string, unknown> = {}) =>
  svc.request(`/api/lists/${id}/enrichment/`, { method: 'POST', token, json })

async function enriched(u: TestUser, id: number, json: Record<string, unknown> = {}): Promise<Started> {
  const res = await enrich(u.access, id, json)
  expect(res.status, await res.clone().text()).toBe(202)
  const started = await body<Started>(res)
  expect((await waitForExport(svc, u.access, started.search_id)).status).toBe('COMPLETED')
  return started
}

async function fileBytes(u: TestUser, id: number): Promise<Buffer> {
  const res = await svc.request(`/api/download-completed-csv/${id}/`, { token: u.access })
  expect(res.status).toBe(200)
  const d = await body<{ download_url: string; filename: string }>(res)
  return Buffer.from(await (await fetch(d.download_url)).arrayBuffer())
}

const chargedLeads = async (userId: number) =>
  (
    await svc.deps.db.query<{ n: number }>(
      'SELECT coalesce(sum(cardinality(company_ids)), 0)::int AS n FROM export_leads WHERE user_id = $1',
      [userId],
    )
  ).rows[0]!.n

describe('fill in my list', () => {
  it('charges the matched companies once, never an unmatched row, and writes the person’s file filled in', async () => {
    const u = await paidUser(svc, 100)
    const list = await matchedList(u)
    const q = await quote(u, list.id)
    expect(q).toEqual({
      list_id: list.id,
      matched_rows: 4,
      companies: 3,
      owned: 0,
      lead_count: 3,
      credits_required: 3,
      keeps: HEADERS,
      fills: FILLS,
      fills_empty: ['name', 'website', 'phone'],
    })

    // a price other than the agreed one: 409, nothing charged
    const changed = await enrich(u.access, list.id, { expected_credits: 2 })
    expect(changed.status).toBe(409)
    expect(await body(changed)).toMatchObject({ code: 'price_changed', credits_required: 3 })
    expect(await balance(svc, u.access)).toBe(100)

    const started = await enriched(u, list.id, { expected_credits: 3 })
    expect(started).toMatchObject({ status: 'PENDING', lead_count: 3, credits_charged: 3, skipped_owned: 0 })
    expect(await balance(svc, u.access)).toBe(97)
    expect(await chargedLeads(u.id)).toBe(3)

    const file = parseCsv((await fileBytes(u, started.search_id)).toString('utf8'))
    expect(file[0]).toEqual([...HEADERS, ...FILLS, 'match_status'])
    expect(file).toHaveLength(6)
    const at = (row: string[], column: string) => row[HEADERS.length + FILLS.indexOf(column)]
    // the person's rows in their order, every own cell kept; only the empty cells of mapped fields filled
    expect(file.slice(1).map((r) => r.slice(0, HEADERS.length))).toEqual([
      ['K-1', 'Unser Name für A', a.website, a.phone, 'note 1'],
      ['K-2', 'Niemand GmbH', '', '', `'=1+1`],
      ['K-3', b.name, b.website, 'ask reception', ''],
      ['K-4', c.name, c.website, c.phone, 'note 4'],
      ['K-5', 'A again', a.website, a.phone, ''],
    ])
    expect(file.slice(1).map((r) => r.at(-1))).toEqual(['matched', 'unmatched', 'matched', 'matched', 'matched'])
    expect([1, 3, 4, 5].map((i) => at(file[i]!, 'email'))).toEqual([a, b, c, a].map((x) => x.emails.join(';')))
    expect([1, 3, 4, 5].map((i) => at(file[i]!, 'city'))).toEqual([a, b, c, a].map((x) => x.city))
    // an unmatched row gets no new cell
    expect(file[2]!.slice(HEADERS.length, -1).every((cell) => cell === '')).toBe(true)

    // watched like any export, shown with its list, and not a search
    const detail = await body<{ enrichments: Array<{ search_id: number; status: string; lead_count: number }> }>(
      await svc.request(`/api/lists/${list.id}/`, { token: u.access }),
    )
    expect(detail.enrichments).toMatchObject([{ search_id: started.search_id, status: 'COMPLETED', lead_count: 3 }])
    const entry = await body(await svc.request(`/api/user/search-history/${started.search_id}/`, { token: u.access }))
    expect(entry).toMatchObject({ search_id: started.search_id, filters: {}, list: { id: list.id, name: 'kunden' }, credits_charged: 3 })
    const history = await body<{ results: Array<{ search_id: number }> }>(
      await svc.request('/api/user/search-history/', { token: u.access }),
    )
    expect(history.results.map((r) => r.search_id)).not.toContain(started.search_id)
    const delta = await svc.request(`/api/user/search-history/${started.search_id}/download-delta/`, {
      method: 'POST',
      token: u.access,
      json: {},
    })
    expect(delta.status).toBe(400)
    expect((await body<{ detail: string }>(delta)).detail).toMatch(/list/)
    // nor can it be watched: a watched search is asked for fresh data
    const watch = await svc.request(`/api/user/search-history/${started.search_id}/`, {
      method: 'PATCH',
      token: u.access,
      json: { watched: true },
    })
    expect(watch.status).toBe(400)
    expect(Object.keys((await body<{ errors: object }>(watch)).errors)).toEqual(['watched'])
    expect(await balance(svc, u.access)).toBe(97)

    // the same list again: what the account owns costs nothing with skip_owned (the default)…
    expect(await quote(u, list.id)).toMatchObject({ companies: 3, owned: 3, credits_required: 0 })
    const again = await enriched(u, list.id)
    expect(again).toMatchObject({ lead_count: 0, credits_charged: 0, skipped_owned: 3 })
    expect(await balance(svc, u.access)).toBe(97)
    // …and is filled in all the same: those companies are the account's
    const second = parseCsv((await fileBytes(u, again.search_id)).toString('utf8'))
    expect(second).toEqual(file)
    // without it, every matched company is charged
    expect(await quote(u, list.id, '?skip_owned=false')).toMatchObject({ credits_required: 3 })
    expect((await svc.request(`/api/lists/${list.id}/enrichment/?skip_owned=maybe`, { token: u.access })).status).toBe(400)
  })

  it('writes a list longer than a batch whole, in its order', async () => {
    const u = await paidUser(svc, 100)
    // 4,500 rows: three batches on the embedded database (2,000 a batch)
    const many = Array.from({ length: 4500 }, (_, i) => [`K-${i + 1}`, `Row ${i + 1}`, i === 4499 ? c.website : '', '', ''])
    const list = await uploaded(svc, u, { name: 'long.csv', bytes: csv([HEADERS, ...many]) })
    await confirm(svc, u, list.id, MAPPING)
    expect(await waitMatched(svc, u, list.id)).toMatchObject({ status: 'matched' })
    const started = await enriched(u, list.id)
    expect(started).toMatchObject({ lead_count: 1, credits_charged: 1 })
    const file = parseCsv((await fileBytes(u, started.search_id)).toString('utf8'))
    expect(file).toHaveLength(4501)
    expect(file.slice(1).map((r) => r[0])).toEqual(many.map((r) => r[0]))
    expect(file[4500]!.slice(0, 4)).toEqual(['K-4500', 'Row 4500', c.website, c.phone])
    expect(file[4500]!.at(-1)).toBe('matched')
    expect(file[4499]!.at(-1)).toBe('unmatched')
  })

  it('writes an XLSX with the headers in the file’s language', async () => {
    const u = await paidUser(svc, 100)
    const list = await matchedList(u)
    const started = await enriched(u, list.id, { export_format: 'excel', file_locale: 'de' })
    const wb = new ExcelJS.Workbook()
    await wb.xlsx.load((await fileBytes(u, started.search_id)) as unknown as ArrayBuffer)
    const sheet = wb.worksheets[0]!
    const width = HEADERS.length + FILLS.length + 1
    const row = (n: number) =>
      Array.from({ length: width }, (_, i) => {
        const v = sheet.getRow(n).getCell(i + 1).value
        return v == null ? '' : String(v)
      })
    const header = row(1)
    expect(header.slice(0, HEADERS.length)).toEqual(HEADERS)
    expect(header).toContain('E-Mail')
    expect(header.at(-1)).toBe('match_status')
    expect(sheet.getRow(1).cellCount).toBe(width)
    // the export's header style, over the person's columns too
    expect(header.every((_, i) => sheet.getRow(1).getCell(i + 1).font?.bold === true)).toBe(true)
    const email = header.indexOf('E-Mail')
    expect(row(2).slice(0, HEADERS.length)).toEqual(['K-1', 'Unser Name für A', a.website, a.phone, 'note 1'])
    expect(row(2)[email]).toBe(a.emails.join(';'))
    expect(row(2).at(-1)).toBe('matched')
    // the person's formula stays text
    expect(row(3).slice(0, HEADERS.length)).toEqual(['K-2', 'Niemand GmbH', '', '', '=1+1'])
    expect(sheet.getRow(3).getCell(5).type).toBe(ExcelJS.ValueType.String)
    expect(row(3)[email]).toBe('')
    expect(row(3).at(-1)).toBe('unmatched')
    expect(row(4).slice(0, 2)).toEqual(['K-3', b.name])
    expect(sheet.rowCount).toBe(6)
  })

  it('refuses without enough credits and charges nothing', async () => {
    const u = await signUp(svc)
    await grant(svc, u.access, { subscription: 2 })
    const list = await matchedList(u)
    const res = await enrich(u.access, list.id)
    expect(res.status).toBe(403)
    expect(await body(res)).toMatchObject({ code: 'insufficient_credits', required_credits: 3, available_credits: 2 })
    expect(await balance(svc, u.access)).toBe(2)
    expect(await chargedLeads(u.id)).toBe(0)
    expect((await body<{ enrichments: unknown[] }>(await svc.request(`/api/lists/${list.id}/`, { token: u.access }))).enrichments).toEqual(
      [],
    )
  })

  it('two enrichments at once on the last credits: one starts, the other is refused', async () => {
    const u = await paidUser(svc, 3)
    const list = await matchedList(u)
    const answers = await Promise.all([0, 1].map(() => enrich(u.access, list.id, { skip_owned: false })))
    expect(answers.map((r) => r.status).sort()).toEqual([202, 403])
    expect(await balance(svc, u.access)).toBe(0)
    expect(await chargedLeads(u.id)).toBe(3)
  })

  it('a failed enrichment is retried at no new charge', async () => {
    const u = await paidUser(svc, 100)
    const list = await matchedList(u)
    expect((await svc.request('/api/_test/fail-next-export/', { method: 'POST', token: u.access })).status).toBe(200)
    const started = await body<Started>(await enrich(u.access, list.id))
    expect((await waitForExport(svc, u.access, started.search_id)).status).toBe('FAILED')
    const retry = await svc.request(`/api/user/search-history/${started.search_id}/retry/`, { method: 'POST', token: u.access, json: {} })
    expect(retry.status).toBe(202)
    expect(await waitForExport(svc, u.access, started.search_id)).toMatchObject({ status: 'COMPLETED', progress: 100, processed_count: 3 })
    expect(await balance(svc, u.access)).toBe(97)
    expect(parseCsv((await fileBytes(u, started.search_id)).toString('utf8'))).toHaveLength(6)
  })

  it('writes the matches it was charged for, whatever the list’s rows become', async () => {
    const u = await paidUser(svc, 100)
    const list = await matchedList(u)
    expect((await svc.request('/api/_test/fail-next-export/', { method: 'POST', token: u.access })).status).toBe(200)
    const started = await body<Started>(await enrich(u.access, list.id))
    expect((await waitForExport(svc, u.access, started.search_id)).status).toBe('FAILED')
    // after the charge, row 1 is un-matched and the unmatched row matched by hand to a company not paid for
    await svc.request(`/api/lists/${list.id}/rows/1/match/`, { method: 'PUT', token: u.access, json: { company_id: null } })
    await svc.request(`/api/lists/${list.id}/rows/2/match/`, { method: 'PUT', token: u.access, json: { company_id: c.id + 1 } })
    await svc.request(`/api/user/search-history/${started.search_id}/retry/`, { method: 'POST', token: u.access, json: {} })
    expect((await waitForExport(svc, u.access, started.search_id)).status).toBe('COMPLETED')
    const file = parseCsv((await fileBytes(u, started.search_id)).toString('utf8'))
    expect(file.slice(1).map((r) => r.at(-1))).toEqual(['matched', 'unmatched', 'matched', 'matched', 'matched'])
    expect(file[1]![3]).toBe(a.phone)
    expect(file[2]!.slice(HEADERS.length, -1).every((cell) => cell === '')).toBe(true)
  })

  it('another account’s list is 404; a list not matched yet is 409; a read key may ask the price only', async () => {
    const owner = await paidUser(svc, 100)
    const list = await matchedList(owner)
    const other = await paidUser(svc, 100)
    expect((await svc.request(`/api/lists/${list.id}/enrichment/`, { token: other.access })).status).toBe(404)
    expect((await enrich(other.access, list.id)).status).toBe(404)
    expect(await balance(svc, other.access)).toBe(100)

    const waiting = await uploaded(svc, owner, { name: 'w.csv', bytes: csv(rows()) })
    const notYet = await svc.request(`/api/lists/${waiting.id}/enrichment/`, { token: owner.access })
    expect(notYet.status).toBe(409)
    expect(await body<ErrorBody>(notYet)).toMatchObject({ code: 'conflict', status: 'uploaded' })
    expect((await enrich(owner.access, waiting.id)).status).toBe(409)

    const key = async (scope: string) =>
      (await body<{ token: string }>(await svc.request('/api/user/api-keys/', { method: 'POST', token: owner.access, json: { scope } })))
        .token
    const read = await key('read')
    expect((await svc.request(`/api/lists/${list.id}/enrichment/`, { token: read })).status).toBe(200)
    const refused = await enrich(read, list.id)
    expect(refused.status).toBe(403)
    expect((await body<ErrorBody>(refused)).code).toBe('api_key_read_only')
    expect((await enrich(await key('export'), list.id)).status).toBe(202)
    expect(await balance(svc, owner.access)).toBe(97)
  })

  it('a list is not deleted while its enrichment is being written; the export outlives it', async () => {
    const u = await paidUser(svc, 100)
    const list = await matchedList(u, 'gone.csv')
    const started = await enriched(u, list.id)
    // as another instance holds it mid-file: its lease is live, so no worker here takes it
    const hold = (status: string, lease: string | null) =>
      svc.deps.db.query(
        `UPDATE searches SET status = $2, lease_owner = $3, lease_until = CASE WHEN $3::text IS NULL THEN NULL ELSE now() + interval '1 hour' END
          WHERE id = $1`,
        [started.search_id, status, lease],
      )
    await hold('PROCESSING', 'another-instance')
    const refused = await svc.request(`/api/lists/${list.id}/`, { method: 'DELETE', token: u.access })
    expect(refused.status).toBe(409)
    expect((await body<ErrorBody>(refused)).code).toBe('conflict')
    await hold('COMPLETED', null)
    expect((await svc.request(`/api/lists/${list.id}/`, { method: 'DELETE', token: u.access })).status).toBe(204)
    expect(await body(await svc.request(`/api/user/search-history/${started.search_id}/`, { token: u.access }))).toMatchObject({
      list: { id: list.id, name: 'gone' },
    })
    expect((await fileBytes(u, started.search_id)).length).toBeGreaterThan(0)
  })

  it('is documented as part of the lists extension', async () => {
    const u = await signUp(svc)
    const caps = await body<{ lists: { enrichment?: unknown } }>(await svc.request('/api/capabilities/', { token: u.access }))
    expect(caps.lists.enrichment).toMatchObject({ version: 1 })
    const doc = await body<{ paths: Record<string, Record<string, { tags: string[]; 'x-extension'?: boolean }>> }>(
      await svc.request('/api/schema/'),
    )
    const path = doc.paths['/api/lists/{id}/enrichment'] ?? doc.paths['/api/lists/{id}/enrichment/']
    expect(Object.keys(path!).sort()).toEqual(['get', 'post'])
    for (const op of Object.values(path!)) expect(op).toMatchObject({ tags: ['Lists'], 'x-extension': true })
  })
})
