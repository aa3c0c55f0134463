import { readFile, rm, mkdtemp } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import path from 'node:path'
import ExcelJS from 'exceljs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { writeExportFile } from '../src/jobs/export-file.ts'
import { advanceClock, body, paidUser, parseCsv, preview, signUp, startExport, waitForExport, type TestUser } from './account-helpers.ts'
import { startTestService, type TestService } from './helpers.ts'

/**
 * Issue 25, extension `email_columns`: `split` writes a lead's emails one per column (`email_1`,
 * `email_2`, …; "E-Mail 1"… in a German file), as many as the most emails a lead of the export has, at
 * most 5, the fifth holding any further ones `;`-joined; kept with the export for its retry and its
 * fresh-data exports.
 */

let svc: TestService
/** The first companies by id: every export of the first leads below holds them. */
let first: number[]
const SEVEN = Array.from({ length: 7 }, (_, i) => `seven${i + 1}@example.com`)

beforeAll(async () => {
  svc = await startTestService()
  first = (await svc.deps.db.query<{ id: number }>('SELECT id FROM companies ORDER BY id LIMIT 4')).rows.map((r) => r.id)
  const emails = [SEVEN, [], ['solo@example.com'], ['first@example.com', 'second@example.com']]
  for (const [i, list] of emails.entries()) {
    await svc.deps.db.query('UPDATE companies SET emails = $2 WHERE id = $1', [first[i], list])
  }
})
afterAll(async () => {
  await svc?.close()
})

interface Started {
  search_id: number
  lead_count: number
}

async function exportOf(u: TestUser, query: string, extra: Record<string, unknown>): Promise<Started> {
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

/** Each exported company's emails as the database holds them, in the file's order (by id). */
async function storedEmails(exportId: number): Promise<string[][]> {
  const { rows } = await svc.deps.db.query<{ emails: string[] }>(
    `SELECT c.emails FROM export_leads e CROSS JOIN unnest(e.company_ids) AS l(id) JOIN companies c ON c.id = l.id
      WHERE e.export_id = $1 ORDER BY c.id`,
    [exportId],
  )
  return rows.map((r) => r.emails)
}

/** Five email cells: the first four emails one each, the fifth holding the rest; empty where there are fewer. */
const fiveCells = (emails: string[]) => [...[0, 1, 2, 3].map((i) => emails[i] ?? ''), emails.slice(4).join(';')]

describe('capabilities and schema', () => {
  it('lists email_columns and documents the request field as an extension', async () => {
    const u = await signUp(svc)
    const caps = await body<Record<string, unknown>>(await svc.request('/api/capabilities/', { token: u.access }))
    expect(caps.email_columns).toEqual({ version: 1, values: ['joined', 'split'], max_columns: 5 })
    const schema = await body<{ components: { schemas: Record<string, { properties: Record<string, Record<string, unknown>> }> } }>(
      await svc.request('/api/schema/'),
    )
    expect(schema.components.schemas.ExportRequest!.properties.email_columns).toMatchObject({
      enum: ['joined', 'split'],
      'x-extension': true,
    })
  })

  it('refuses another value with a message and a code for the field, charging nothing', async () => {
    const u = await paidUser(svc, 100)
    const p = await preview(svc, u.access, '')
    for (const value of ['several', true, 5]) {
      const res = await startExport(svc, u.access, { search_id: p.search_id, export_format: 'csv', max_leads: 1, email_columns: value })
      expect(res.status).toBe(400)
      const answer = await body<{ errors: Record<string, string[]>; error_codes: Record<string, Array<{ code: string }>> }>(res)
      expect(Object.keys(answer.errors)).toEqual(['email_columns'])
      expect(answer.errors.email_columns![0]).toEqual(expect.stringMatching(/\w/))
      expect(answer.error_codes.email_columns![0]!.code).toBe('invalid_choice')
    }
    expect(
      (await body<{ remaining_credits: number }>(await svc.request('/api/user/profile/', { token: u.access }))).remaining_credits,
    ).toBe(100)
  })
})

describe('one email per column', () => {
  it('CSV: email_1 … email_5 in place of email, in stored order; a sixth and seventh email share the fifth cell', async () => {
    const u = await paidUser(svc)
    const e = await exportOf(u, '', { max_leads: 12, columns: ['name', 'email', 'phone'], email_columns: 'split' })
    const [header, ...rows] = parseCsv((await fileBytes(u, e.search_id)).toString('utf8'))
    expect(header).toEqual(['name', 'email_1', 'email_2', 'email_3', 'email_4', 'email_5', 'phone'])
    expect(rows).toHaveLength(12)
    // the first four companies, as set above: seven emails, none, one, two
    expect(rows.slice(0, 4).map((r) => r.slice(1, 6))).toEqual([
      [
        'seven1@example.com',
        'seven2@example.com',
        'seven3@example.com',
        'seven4@example.com',
        'seven5@example.com;seven6@example.com;seven7@example.com',
      ],
      ['', '', '', '', ''],
      ['solo@example.com', '', '', '', ''],
      ['first@example.com', 'second@example.com', '', '', ''],
    ])
    expect(rows.map((r) => r.slice(1, 6))).toEqual((await storedEmails(e.search_id)).map(fiveCells))
    expect((await svc.deps.db.query('SELECT email_columns FROM searches WHERE id = $1', [e.search_id])).rows[0]).toEqual({
      email_columns: 'split',
    })
  })

  it('the default keeps them in one cell, joined by ";"', async () => {
    const u = await paidUser(svc)
    const e = await exportOf(u, '', { max_leads: 4, columns: ['email', 'name'] })
    const [header, ...rows] = parseCsv((await fileBytes(u, e.search_id)).toString('utf8'))
    expect(header).toEqual(['email', 'name'])
    expect(rows.map((r) => r[0])).toEqual([SEVEN.join(';'), '', 'solo@example.com', 'first@example.com;second@example.com'])
  })

  it('XLSX in German: "E-Mail 1" … "E-Mail 5", a text cell each, empty cells left out; the filter covers the wider sheet', async () => {
    const u = await paidUser(svc)
    const e = await exportOf(u, '', {
      max_leads: 12,
      export_format: 'excel',
      file_locale: 'de',
      columns: ['email', 'name'],
      email_columns: 'split',
    })
    const wb = new ExcelJS.Workbook()
    await wb.xlsx.load((await fileBytes(u, e.search_id)) as unknown as ArrayBuffer)
    const ws = wb.worksheets[0]!
    expect((ws.getRow(1).values as unknown[]).slice(1)).toEqual(['E-Mail 1', 'E-Mail 2', 'E-Mail 3', 'E-Mail 4', 'E-Mail 5', 'Name'])
    expect(ws.autoFilter).toBe('A1:F13')
    const cells = [...Array(12).keys()].map((i) => [1, 2, 3, 4, 5].map((c) => ws.getRow(i + 2).getCell(c).value ?? ''))
    expect(cells).toEqual((await storedEmails(e.search_id)).map(fiveCells))
    expect(cells[0]![4]).toBe('seven5@example.com;seven6@example.com;seven7@example.com')
  })

  it('as many columns as the most emails a lead of the export has; one, empty, when none has any', async () => {
    const db = svc.deps.db
    const dir = await mkdtemp(path.join(tmpdir(), 'leads-email-columns-'))
    // two lists no account owns, as the export's start writes them: leads with at most two emails (one
    // with two), and leads without any
    const list = async (exportId: number, where: string) => {
      await db.query(
        `INSERT INTO export_leads (export_id, chunk, user_id, company_ids)
         SELECT $1::int, id >> 10, -1, array_agg(id ORDER BY id)
           FROM (SELECT id FROM companies WHERE ${where} ORDER BY id LIMIT 20) s GROUP BY id >> 10`,
        [exportId],
      )
      return (
        await db.query<{ n: number }>('SELECT sum(cardinality(company_ids))::int AS n FROM export_leads WHERE export_id = $1', [exportId])
      ).rows[0]!.n
    }
    try {
      for (const [exportId, where, header] of [
        [-2, `cardinality(emails) <= 2 AND id >= ${first[3]}`, ['name', 'email_1', 'email_2']],
        [-3, 'cardinality(emails) = 0', ['name', 'email_1']],
      ] as const) {
        const leads = await list(exportId, where)
        const file = path.join(dir, `${-exportId}.csv`)
        const spec = {
          id: exportId,
          lead_count: leads,
          export_format: 'csv',
          file_locale: null,
          columns: ['name', 'email'],
          email_columns: 'split',
        }
        expect(await writeExportFile(db, spec, file, async () => undefined)).toBe(leads)
        const [got, ...rows] = parseCsv(await readFile(file, 'utf8'))
        expect(got).toEqual(header)
        expect(rows).toHaveLength(leads)
        expect(rows.map((r) => r.slice(1))).toEqual(
          (await storedEmails(exportId)).map((emails) => header.slice(1).map((_, i) => emails[i] ?? '')),
        )
      }
    } finally {
      await db.query('DELETE FROM export_leads WHERE export_id IN (-2, -3)')
      await rm(dir, { recursive: true, force: true })
    }
  })

  it('a retry and a fresh-data export write one email per column too', async () => {
    const u = await paidUser(svc, 100_000)
    // the retry: the first run fails, the second writes the file
    const p = await preview(svc, u.access, '')
    expect((await svc.request('/api/_test/fail-next-export/', { method: 'POST', token: u.access })).status).toBe(200)
    const failing = await body<Started>(
      await startExport(svc, u.access, {
        search_id: p.search_id,
        export_format: 'csv',
        max_leads: 5,
        columns: ['email'],
        email_columns: 'split',
      }),
    )
    expect((await waitForExport(svc, u.access, failing.search_id)).status).toBe('FAILED')
    const retry = await svc.request(`/api/user/search-history/${failing.search_id}/retry/`, { method: 'POST', token: u.access, json: {} })
    expect(retry.status).toBe(202)
    expect((await waitForExport(svc, u.access, failing.search_id)).status).toBe('COMPLETED')
    expect(parseCsv((await fileBytes(u, failing.search_id)).toString('utf8'))[0]).toEqual([
      'email_1',
      'email_2',
      'email_3',
      'email_4',
      'email_5',
    ])

    // fresh data: the companies added since the original, in the original's kind of file
    const original = await exportOf(u, 'countries=DE', { columns: ['name', 'email'], email_columns: 'split' })
    await advanceClock(svc, 60)
    const added = await svc.request('/api/_test/new-companies/', { method: 'POST', token: u.access, json: { count: 4, countries: ['DE'] } })
    expect(added.status).toBe(201)
    await svc.deps.db.query(
      "UPDATE companies SET emails = ARRAY['new1@example.com', 'new2@example.com'] WHERE id = (SELECT max(id) FROM companies)",
    )
    const delta = await svc.request(`/api/user/search-history/${original.search_id}/download-delta/`, {
      method: 'POST',
      token: u.access,
      json: {},
    })
    expect(delta.status).toBe(202)
    const fresh = await body<{ search_id: number; lead_count: number }>(delta)
    expect(fresh.lead_count).toBe(4)
    expect((await waitForExport(svc, u.access, fresh.search_id)).status).toBe('COMPLETED')
    const [header, ...rows] = parseCsv((await fileBytes(u, fresh.search_id)).toString('utf8'))
    expect(header!.slice(0, 3)).toEqual(['name', 'email_1', 'email_2'])
    expect(rows.at(-1)!.slice(1, 3)).toEqual(['new1@example.com', 'new2@example.com'])
  })
})
