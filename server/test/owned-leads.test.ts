import ExcelJS from 'exceljs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { recordLegacyExports } from '../src/modules/exports/lead-sets.ts'
import { startTestService, type TestService } from './helpers.ts'
import {
  advanceClock,
  balance as balanceOf,
  body,
  paidUser as paidUserOf,
  parseCsv,
  preview,
  signUp,
  startExport,
  waitForExport,
  type TestUser,
} from './account-helpers.ts'

/** Issue 11, parts 2–4: never pay twice for a lead, chosen columns, spreadsheet-ready files. */

let svc: TestService
beforeAll(async () => {
  svc = await startTestService()
})
afterAll(async () => {
  await svc?.close()
})

interface Started {
  search_id: number
  lead_count: number
  credits_charged: number
  skipped_owned?: number
}
interface Owned {
  totalCount: number
  owned_count: number
  new_count: number
}

const paidUser = (subscription = 100_000) => paidUserOf(svc, subscription)

async function exportOf(u: TestUser, query: string, extra: Record<string, unknown> = {}): Promise<Started> {
  const p = await preview(svc, u.access, query)
  const res = await startExport(svc, u.access, { search_id: p.search_id, export_format: 'csv', ...extra })
  expect(res.status, JSON.stringify(await res.clone().json())).toBe(202)
  const started = await body<Started>(res)
  expect((await waitForExport(svc, u.access, started.search_id)).status).toBe('COMPLETED')
  return started
}

async function fileBytes(u: TestUser, id: number): Promise<Buffer> {
  const d = await body<{ download_url: string }>(await svc.request(`/api/download-completed-csv/${id}/`, { token: u.access }))
  return Buffer.from(await (await fetch(d.download_url)).arrayBuffer())
}

/** The place_ids of a plain CSV export (place_id is the 19th of the interface's columns). */
async function placeIds(u: TestUser, id: number): Promise<string[]> {
  const [header, ...rows] = parseCsv((await fileBytes(u, id)).toString('utf8'))
  const at = header!.indexOf('place_id')
  return rows.map((r) => r[at]!)
}

const owned = async (u: TestUser, query: string) => body<Owned>(await svc.request(`/api/companies/owned/?${query}`, { token: u.access }))
const balance = (u: TestUser) => balanceOf(svc, u.access)

describe('capabilities and schema', () => {
  it('lists skip_owned, export_columns and file_locale, each documented as an extension', async () => {
    const u = await signUp(svc)
    const caps = await body<Record<string, Record<string, unknown>>>(await svc.request('/api/capabilities/', { token: u.access }))
    expect(caps.skip_owned).toEqual({ version: 1 })
    expect(caps.export_columns!.columns).toContain('place_id')
    expect(caps.file_locale!.languages).toHaveLength(27)
    const schema = await body<{
      paths: Record<string, Record<string, Record<string, unknown>>>
      components: { schemas: Record<string, { properties: Record<string, Record<string, unknown>> }> }
    }>(await svc.request('/api/schema/'))
    expect(schema.paths['/api/companies/owned']!.get!['x-extension']).toBe(true)
    const request = schema.components.schemas.ExportRequest!.properties
    for (const field of ['skip_owned', 'columns', 'file_locale']) expect(request[field]!['x-extension'], field).toBe(true)
  })
})

describe('never pay twice for a lead (skip_owned)', () => {
  it('after two overlapping exports, delivers and charges only the difference', async () => {
    const u = await paidUser()
    expect(await owned(u, 'countries=DE')).toMatchObject({ owned_count: 0 })
    const first = await exportOf(u, 'countries=DE&email=true')
    const firstIds = await placeIds(u, first.search_id)
    const all = await preview(svc, u.access, 'countries=DE')
    expect(firstIds.length).toBeGreaterThan(0)
    expect(firstIds.length).toBeLessThan(all.totalCount)

    const o = await owned(u, 'countries=DE')
    expect(o).toEqual({ totalCount: all.totalCount, owned_count: firstIds.length, new_count: all.totalCount - firstIds.length })

    const before = await balance(u)
    const second = await exportOf(u, 'countries=DE', { skip_owned: true })
    expect(second).toMatchObject({ lead_count: o.new_count, credits_charged: o.new_count, skipped_owned: firstIds.length })
    expect(before - (await balance(u))).toBe(o.new_count)
    const secondIds = await placeIds(u, second.search_id)
    expect(secondIds).toHaveLength(o.new_count)
    expect(secondIds.filter((id) => firstIds.includes(id))).toEqual([])

    // everything owned now: a third asks for nothing and is charged nothing
    expect(await owned(u, 'countries=DE')).toMatchObject({ owned_count: all.totalCount, new_count: 0 })
    const p = await preview(svc, u.access, 'countries=DE')
    const third = await startExport(svc, u.access, { search_id: p.search_id, export_format: 'csv', skip_owned: true })
    expect(third.status).toBe(400)
    expect((await body<{ error_codes: Record<string, Array<{ code: string; count: number }>> }>(third)).error_codes.search_id![0]).toEqual({
      code: 'all_leads_owned',
      count: all.totalCount,
    })
    expect(await balance(u)).toBe(before - o.new_count)

    // without skip_owned, the interface's behaviour: every match, every credit
    const plain = await exportOf(u, 'countries=DE', { max_leads: 3 })
    expect(plain).toMatchObject({ lead_count: 3, credits_charged: 3 })
    expect(plain.skipped_owned).toBeUndefined()
  })

  it('10 concurrent skip-owned exports never deliver or charge a lead twice', async () => {
    const u = await paidUser()
    const p = await preview(svc, u.access, 'countries=FR')
    const cap = Math.ceil(p.totalCount / 7) // 7 exports take everything, the other 3 find nothing left
    const before = await balance(u)
    const answers = await Promise.all(
      Array.from({ length: 10 }, () =>
        startExport(svc, u.access, { search_id: p.search_id, export_format: 'csv', max_leads: cap, skip_owned: true }),
      ),
    )
    const started = await Promise.all(answers.filter((r) => r.status === 202).map((r) => body<Started>(r)))
    const refused = answers.filter((r) => r.status !== 202)
    expect(started).toHaveLength(7)
    for (const r of refused) expect(r.status).toBe(400)
    const charged = started.reduce((sum, s) => sum + s.credits_charged, 0)
    expect(charged).toBe(p.totalCount)
    expect(before - (await balance(u))).toBe(p.totalCount)

    const ids: string[] = []
    for (const s of started) {
      expect((await waitForExport(svc, u.access, s.search_id)).status).toBe('COMPLETED')
      const got = await placeIds(u, s.search_id)
      expect(got).toHaveLength(s.lead_count)
      ids.push(...got)
    }
    expect(new Set(ids).size).toBe(p.totalCount)
  })

  it('a fresh-data export of a skip-owned export keeps skipping what the account has', async () => {
    const u = await paidUser()
    // the account owns 2 new companies through another search, then exports the wider one skipping owned
    const first = await exportOf(u, 'countries=NL', { skip_owned: true })
    await advanceClock(svc, 60)
    await svc.request('/api/_test/new-companies/', { method: 'POST', token: u.access, json: { count: 5, countries: ['NL'] } })
    const narrow = await exportOf(u, 'countries=NL', { max_leads: 2, skip_owned: true })
    expect(narrow.lead_count).toBe(2)
    const dry = await body<{ lead_count: number; required_credits: number }>(
      await svc.request(`/api/user/search-history/${first.search_id}/download-delta/`, {
        method: 'POST',
        token: u.access,
        json: { dry_run: true },
      }),
    )
    expect(dry).toMatchObject({ lead_count: 3, required_credits: 3 })
  })

  it('exports made before leads were recorded count as owned once recorded at start-up', async () => {
    const u = await paidUser()
    const e = await exportOf(u, 'countries=ES', { max_leads: 4 })
    await svc.deps.db.query('DELETE FROM export_leads WHERE export_id = $1', [e.search_id])
    await svc.deps.db.query('UPDATE searches SET leads_recorded = false WHERE id = $1', [e.search_id])
    expect((await owned(u, 'countries=ES')).owned_count).toBe(0)
    expect(await recordLegacyExports(svc.deps.db)).toBeGreaterThanOrEqual(1)
    expect((await owned(u, 'countries=ES')).owned_count).toBe(4)
  })
})

describe('chosen columns and spreadsheet-ready files', () => {
  it('a file holds exactly the chosen columns, in that order', async () => {
    const u = await paidUser()
    const e = await exportOf(u, 'countries=GB', { max_leads: 5, columns: ['email', 'name', 'place_id'] })
    const rows = parseCsv((await fileBytes(u, e.search_id)).toString('utf8'))
    expect(rows[0]).toEqual(['email', 'name', 'place_id'])
    expect(rows.slice(1).every((r) => r.length === 3)).toBe(true)
  })

  it('refuses unknown and repeated columns with per-field codes', async () => {
    const u = await paidUser()
    const p = await preview(svc, u.access, 'countries=GB')
    const bad = await startExport(svc, u.access, { search_id: p.search_id, export_format: 'csv', columns: ['name', 'salary', 'name'] })
    expect(bad.status).toBe(400)
    const codes = (await body<{ error_codes: Record<string, Array<{ code: string }>> }>(bad)).error_codes
    expect(codes['columns.1']?.[0]?.code).toBe('invalid_choice')
    const twice = await startExport(svc, u.access, { search_id: p.search_id, export_format: 'csv', columns: ['name', 'name'] })
    expect((await body<{ error_codes: Record<string, Array<{ code: string }>> }>(twice)).error_codes['columns.1']?.[0]?.code).toBe(
      'duplicate_value',
    )
    const locale = await startExport(svc, u.access, { search_id: p.search_id, export_format: 'csv', file_locale: 'xx' })
    expect(locale.status).toBe(400)
  })

  it('a German CSV is ;-separated with German headers, comma decimals, a BOM and the original names', async () => {
    const u = await paidUser()
    const e = await exportOf(u, 'countries=DE', {
      max_leads: 60,
      file_locale: 'de',
      columns: ['name', 'city', 'rating', 'latitude', 'review_count'],
    })
    const bytes = await fileBytes(u, e.search_id)
    expect([...bytes.subarray(0, 3)]).toEqual([0xef, 0xbb, 0xbf])
    const rows = parseCsv(bytes.subarray(3).toString('utf8'), ';')
    expect(rows[0]).toEqual(['Name', 'Ort', 'Bewertung', 'Breitengrad', 'Bewertungen'])
    const data = rows.slice(1)
    expect(data).toHaveLength(60)
    expect(data.every((r) => r.length === 5)).toBe(true)
    expect(data.every((r) => /^-?\d+,\d+$/.test(r[3]!))).toBe(true) // latitude with a decimal comma
    expect(data.some((r) => /^\d,\d$/.test(r[2]!))).toBe(true) // a rating like 4,5
    expect(data.some((r) => /[äöüß]/i.test(r[0]!))).toBe(true) // Müller, Schneider… as they are
  })

  it('a Hebrew Excel file has Hebrew headers on a right-to-left sheet', async () => {
    const u = await paidUser()
    const e = await exportOf(u, 'countries=IL', { max_leads: 5, export_format: 'excel', file_locale: 'he', columns: ['name', 'phone'] })
    const wb = new ExcelJS.Workbook()
    await wb.xlsx.load((await fileBytes(u, e.search_id)) as unknown as ArrayBuffer)
    const ws = wb.worksheets[0]!
    expect(ws.views[0]?.rightToLeft).toBe(true)
    expect(ws.getRow(1).values).toEqual([undefined, 'שם', 'טלפון'])
    expect(String(ws.getRow(2).getCell(1).value)).toMatch(/[\u0590-\u05ff]/)
    expect(ws.rowCount).toBe(6)
  })
})
