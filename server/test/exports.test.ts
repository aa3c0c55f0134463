import ExcelJS from 'exceljs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startExportWorker } from '../src/jobs/export-worker.ts'
import { startTestService, type TestService } from './helpers.ts'
import {
  advanceClock,
  body,
  grant,
  paidUser as paidUserOf,
  parseCsv,
  postOnOwnConnection,
  preview,
  profile,
  signUp,
  startExport,
  waitForExport,
  type TestUser,
} from './account-helpers.ts'

let svc: TestService
beforeAll(async () => {
  svc = await startTestService()
})
afterAll(async () => {
  await svc?.close()
})

type Errors = { detail: string; errors: Record<string, string[]> }
interface Descriptor {
  download_url: string
  filename: string
  file_size_bytes: number
  file_size_mb: number
  expires_at: string
}

const paidUser = (subscription?: number) => paidUserOf(svc, subscription)

async function descriptor(u: TestUser, id: number): Promise<Descriptor> {
  const res = await svc.request(`/api/download-completed-csv/${id}/`, { token: u.access })
  expect(res.status).toBe(200)
  return body<Descriptor>(res)
}

const exportCount = async (userId: number) =>
  (await svc.deps.db.query<{ n: number }>("SELECT count(*)::int AS n FROM searches WHERE user_id = $1 AND kind = 'export'", [userId]))
    .rows[0]!.n

describe('CSV export, end to end', () => {
  it('charges at start, writes exactly lead_count rows, and serves them through a signed link', async () => {
    const u = await paidUser(1000)
    const p = await preview(svc, u.access, 'countries=DE')
    expect(p.totalCount).toBeGreaterThan(0)
    const res = await startExport(svc, u.access, { search_id: p.search_id, export_format: 'csv' })
    expect(res.status).toBe(202)
    const started = await body<{ search_id: number; status: string; lead_count: number; credits_charged: number }>(res)
    expect(started).toEqual({
      search_id: expect.any(Number),
      status: 'PENDING',
      lead_count: p.totalCount,
      credits_charged: p.totalCount,
      charged_from: { subscription: p.totalCount, purchased: 0 }, // extension credit_order
    })
    expect(started.search_id).not.toBe(p.search_id)
    expect((await profile(svc, u.access)).remaining_credits).toBe(1000 - p.totalCount)

    const done = await waitForExport(svc, u.access, started.search_id)
    expect(done).toEqual({
      search_id: started.search_id,
      status: 'COMPLETED',
      progress: 100,
      processed_count: p.totalCount,
      lead_count: p.totalCount,
      error: null,
    })

    const d = await descriptor(u, started.search_id)
    expect(d.filename).toMatch(new RegExp(`^leads-de-.*${started.search_id}\\.csv$`))
    expect(d.download_url).toMatch(
      new RegExp(`^http://127\\.0\\.0\\.1:\\d+/api/files/${started.search_id}/\\?expires=\\d+&sig=[0-9a-f]{64}$`),
    )
    expect(d.download_url).not.toContain(u.access)
    expect(d.file_size_mb).toBeCloseTo(d.file_size_bytes / 1048576, 2)
    const completedAt = (
      await svc.deps.db.query<{ completed_at: Date }>('SELECT completed_at FROM searches WHERE id = $1', [started.search_id])
    ).rows[0]!.completed_at
    // Pro links live 14 days
    expect(new Date(d.expires_at).getTime() - new Date(completedAt).getTime()).toBe(14 * 86_400_000)

    const file = await fetch(d.download_url) // no Authorization: the signature is the credential
    expect(file.status).toBe(200)
    expect(file.headers.get('content-type')).toBe('text/csv; charset=utf-8')
    expect(file.headers.get('content-disposition')).toBe(`attachment; filename="${d.filename}"`)
    const text = await file.text()
    expect(Buffer.byteLength(text)).toBe(d.file_size_bytes)
    const rows = parseCsv(text)
    const [header, ...leads] = rows
    expect(header).toEqual(expect.arrayContaining(['name', 'email', 'phone', 'website', 'city', 'country', 'categories', 'place_id']))
    expect(leads).toHaveLength(p.totalCount)
    expect(leads).toHaveLength(started.credits_charged)
    const country = header!.indexOf('country')
    expect(leads.every((r) => r.length === header!.length && r[country] === 'DE')).toBe(true)
    expect(new Set(leads.map((r) => r[header!.indexOf('place_id')])).size).toBe(leads.length)
  })

  it('an earlier export can be exported again (its filters are reused)', async () => {
    const u = await paidUser(2000)
    const p = await preview(svc, u.access, 'countries=FR&email=true')
    const first = await body<{ search_id: number; lead_count: number }>(
      await startExport(svc, u.access, { search_id: p.search_id, export_format: 'csv', max_leads: 3 }),
    )
    await waitForExport(svc, u.access, first.search_id)
    const again = await startExport(svc, u.access, { search_id: first.search_id, export_format: 'csv' })
    expect(again.status).toBe(202)
    expect((await body<{ lead_count: number }>(again)).lead_count).toBe(p.totalCount)
  })
})

describe('preview and export agree', () => {
  it('the export charges exactly the preview’s totalCount for varied filters', async () => {
    const u = await paidUser(1_000_000)
    const pick = async (sql: string) => (await svc.deps.db.query<{ v: number }>(sql)).rows.map((r) => r.v)
    const [cat] = await pick('SELECT unnest(category_ids) AS v FROM companies GROUP BY 1 ORDER BY count(*) DESC LIMIT 1')
    const [l1] = await pick("SELECT level1_id AS v FROM companies WHERE country_code = 'DE' GROUP BY 1 ORDER BY count(*) DESC LIMIT 1")
    const [l2] = await pick("SELECT level2_id AS v FROM companies WHERE country_code = 'FR' GROUP BY 1 ORDER BY count(*) DESC LIMIT 1")
    const [l3, l3b] = await pick("SELECT level3_id AS v FROM companies WHERE country_code = 'GB' GROUP BY 1 ORDER BY count(*) DESC LIMIT 2")
    const queries = [
      'countries=DE,FR',
      `category=${cat}`,
      `category=${cat}&main_activity_only=true`,
      `countries=DE&level1_location=${l1}&email=true`,
      `level2_location=${l2}&phone_number=true`,
      `level3_location=${l3}&level3_location=${l3b}&website=true`,
      `countries=ES,IT&category=${cat}&email=true&phone_number=true`,
    ]
    let nonEmpty = 0
    for (const q of queries) {
      const p = await preview(svc, u.access, q)
      const res = await startExport(svc, u.access, { search_id: p.search_id, export_format: 'csv' })
      if (p.totalCount === 0) {
        expect(res.status, q).toBe(400)
        continue
      }
      expect(res.status, q).toBe(202)
      expect((await body<{ lead_count: number }>(res)).lead_count, q).toBe(p.totalCount)
      nonEmpty += 1
    }
    expect(nonEmpty).toBeGreaterThanOrEqual(5)
  })
})

describe('Excel export and caps', () => {
  it('writes an XLSX with exactly max_leads rows when capped', async () => {
    const u = await paidUser()
    const p = await preview(svc, u.access, 'countries=FR')
    expect(p.totalCount).toBeGreaterThan(7)
    const started = await body<{ search_id: number; lead_count: number; credits_charged: number }>(
      await startExport(svc, u.access, { search_id: p.search_id, export_format: 'excel', max_leads: 7 }),
    )
    expect(started).toMatchObject({ lead_count: 7, credits_charged: 7 })
    await waitForExport(svc, u.access, started.search_id)
    const d = await descriptor(u, started.search_id)
    expect(d.filename.endsWith('.xlsx')).toBe(true)
    const file = await fetch(d.download_url)
    expect(file.headers.get('content-type')).toBe('application/vnd.openxmlformats-officedocument.spreadsheetml.sheet')
    const wb = new ExcelJS.Workbook()
    await wb.xlsx.load(await file.arrayBuffer())
    const ws = wb.worksheets[0]!
    expect(ws.rowCount).toBe(1 + 7)
    expect(ws.getRow(1).getCell(1).value).toBe('name')
    const entry = await body<{ capped: boolean; max_leads: number }>(
      await svc.request(`/api/user/search-history/${started.search_id}/`, { token: u.access }),
    )
    expect(entry).toMatchObject({ capped: true, max_leads: 7 })
  })

  it('a cap above the total exports the total and is not "capped"', async () => {
    const u = await paidUser()
    const p = await preview(svc, u.access, 'countries=GB')
    const started = await body<{ search_id: number; lead_count: number }>(
      await startExport(svc, u.access, { search_id: p.search_id, export_format: 'csv', max_leads: p.totalCount + 50 }),
    )
    expect(started.lead_count).toBe(p.totalCount)
    const entry = await body<{ capped: boolean }>(await svc.request(`/api/user/search-history/${started.search_id}/`, { token: u.access }))
    expect(entry.capped).toBe(false)
  })
})

describe('spreadsheet formula injection', () => {
  it("CSV: a text cell a spreadsheet would run as a formula gets a leading ', phone numbers stay; XLSX cells are text", async () => {
    const hostile = [
      {
        name: '=HYPERLINK("http://evil.example","click")',
        phone: '+31 20 123-4567',
        website: '@SUM(1+1)',
        address: "-2+3+cmd|' /C calc'!A0",
        instagram: '\t=1+1',
        facebook: '\r=1+1',
      },
      {
        name: "+cmd|' /C calc'!A0",
        phone: "+1+cmd|' /C calc'!A0",
        website: 'Shop\n=1+1',
        address: '-12 Main St',
        instagram: 'Main St 1, @SUM(1)',
        facebook: 'Shop; "=1+1',
      },
      {
        name: 'Plain Bakery',
        phone: '-(555) 010.99/1',
        website: 'a;+cmd|x',
        address: 'Dam 1; Dam 2',
        instagram: 'https://instagram.com/x',
        facebook: 'Shop;=1+1',
      },
    ]
    const { rows: ids } = await svc.deps.db.query<{ id: number }>("SELECT id FROM companies WHERE country_code = 'NL' ORDER BY id LIMIT 3")
    expect(ids).toHaveLength(3)
    for (const [i, h] of hostile.entries()) {
      await svc.deps.db.query(
        'UPDATE companies SET name = $2, phone = $3, website = $4, address = $5, instagram = $6, facebook = $7 WHERE id = $1',
        [ids[i]!.id, h.name, h.phone, h.website, h.address, h.instagram, h.facebook],
      )
    }
    const u = await paidUser()
    const p = await preview(svc, u.access, 'countries=NL')
    const run = async (export_format: 'csv' | 'excel') => {
      const started = await body<{ search_id: number }>(
        await startExport(svc, u.access, { search_id: p.search_id, export_format, max_leads: 3 }),
      )
      expect((await waitForExport(svc, u.access, started.search_id)).status).toBe('COMPLETED')
      return fetch((await descriptor(u, started.search_id)).download_url)
    }

    const [header, ...leads] = parseCsv(await (await run('csv')).text())
    const col = (row: string[], name: string) => row[header!.indexOf(name)]
    expect(leads).toHaveLength(3) // a CR or LF inside a cell is quoted: it never splits a row
    expect(leads.every((r) => r.length === header!.length)).toBe(true)
    expect(leads.map((r) => col(r, 'name'))).toEqual(["'" + hostile[0]!.name, "'" + hostile[1]!.name, 'Plain Bakery'])
    expect(leads.map((r) => col(r, 'phone'))).toEqual(['+31 20 123-4567', "'" + hostile[1]!.phone, '-(555) 010.99/1'])
    // the text after a CR, LF or tab is checked like the text after a ; (issue 22)
    expect(leads.map((r) => col(r, 'website'))).toEqual(["'@SUM(1+1)", "Shop\n'=1+1", "a;'+cmd|x"])
    expect(leads.map((r) => col(r, 'address'))).toEqual(["'" + hostile[0]!.address, "'-12 Main St", 'Dam 1; Dam 2'])
    expect(col(leads[0]!, 'instagram')).toBe("'\t'=1+1")
    expect(col(leads[0]!, 'facebook')).toBe("'\r'=1+1")
    expect(col(leads[2]!, 'instagram')).toBe('https://instagram.com/x')
    // every ;- or ,-separated segment, as a ;-separator spreadsheet that ignores the quoting would
    // split a cell, starts as text (phone numbers aside)
    expect(col(leads[2]!, 'facebook')).toBe("Shop;'=1+1")
    expect(col(leads[1]!, 'facebook')).toBe('Shop; "\'=1+1')
    expect(col(leads[1]!, 'instagram')).toBe("Main St 1, '@SUM(1)")
    const segments = leads
      .flat()
      .flatMap((cell) => cell.split(/[;,\r\n\t]/))
      .map((s) => s.replace(/^[\s"]+/, ''))
    const runs = segments.filter((s) => /^[=@]/.test(s) || (/^[+-]/.test(s) && !/^[+-][\d ()./-]*$/.test(s)))
    expect(runs).toEqual([])
    expect(segments.length).toBeGreaterThan(leads.flat().length) // the split did happen

    const wb = new ExcelJS.Workbook()
    await wb.xlsx.load(await (await run('excel')).arrayBuffer())
    const ws = wb.worksheets[0]!
    const nameCell = ws.getRow(2).getCell(1)
    expect(nameCell.type).toBe(ExcelJS.ValueType.String) // text, never a formula
    expect(nameCell.value).toBe(hostile[0]!.name)
  })
})

describe('credits', () => {
  it('charges the credits that expire first (purchased lots and the subscription by date); expired lots never', async () => {
    const u = await signUp(svc)
    // the subscription's credits expire at the period's end: in 20 days, between the two live lots
    const period = await svc.request('/api/_test/grant-credits/', {
      method: 'POST',
      token: u.access,
      json: { subscription: 10, period_ends_in_days: 20 },
    })
    expect(period.status).toBe(200)
    await grant(svc, u.access, { purchased: 50, purchased_expires_in_days: 30 })
    await grant(svc, u.access, { purchased: 50, purchased_expires_in_days: 3 })
    await grant(svc, u.access, { purchased: 100, purchased_expires_in_days: -1 })
    const p = await preview(svc, u.access, '')
    expect(p.totalCount).toBeGreaterThan(110)
    // 10 + 50 + 50 = 110 spendable: 111 is one too many, whatever the expired lot holds
    const tooMuch = await startExport(svc, u.access, { search_id: p.search_id, export_format: 'csv', max_leads: 111 })
    expect(tooMuch.status).toBe(403)
    expect(await body(tooMuch)).toMatchObject({ validation_code: 'insufficient_credits', required_credits: 111, available_credits: 110 })

    const res = await startExport(svc, u.access, { search_id: p.search_id, export_format: 'csv', max_leads: 55 })
    expect(res.status).toBe(202)
    expect(await body(res)).toMatchObject({ credits_charged: 55, charged_from: { subscription: 5, purchased: 50 } })
    const lots = await svc.deps.db.query<{ amount: number; remaining: number; expires_at: Date }>(
      'SELECT amount, remaining, expires_at FROM credit_lots WHERE user_id = $1 ORDER BY expires_at',
      [u.id],
    )
    expect(lots.rows.map((l) => [l.amount, l.remaining])).toEqual([
      [100, 100], // expired: untouched
      [50, 0], // expiring in 3 days: spent first
      [50, 50], // expiring in 30 days: after the subscription (period ends in 20), untouched
    ])
    const me = await profile(svc, u.access)
    expect(me.remaining_credits).toBe(5)
    expect(me.purchased_credits_available).toBe(50)
    expect(me.purchased_credits_expiring_soon).toBe(0)
    const charge = await svc.deps.db.query<{ from_subscription: number; from_purchased: number }>(
      'SELECT from_subscription, from_purchased FROM credit_charges WHERE user_id = $1',
      [u.id],
    )
    expect(charge.rows).toEqual([{ from_subscription: 5, from_purchased: 50 }])
  })

  it('refuses an export the account cannot pay for with 403 and writes nothing', async () => {
    const u = await signUp(svc) // free plan: 100 credits
    const p = await preview(svc, u.access, '')
    expect(p.totalCount).toBeGreaterThan(100)
    const res = await startExport(svc, u.access, { search_id: p.search_id, export_format: 'excel' })
    expect(res.status).toBe(403)
    expect(await body(res)).toEqual({
      detail: expect.any(String),
      code: 'insufficient_credits',
      validation_code: 'insufficient_credits',
      required_credits: p.totalCount,
      available_credits: 100,
    })
    expect(await exportCount(u.id)).toBe(0)
    expect((await profile(svc, u.access)).remaining_credits).toBe(100)
    const charges = await svc.deps.db.query('SELECT 1 FROM credit_charges WHERE user_id = $1', [u.id])
    expect(charges.rows).toHaveLength(0)
  })

  it('20 concurrent starts on an account that can pay for exactly 5 start exactly 5', async () => {
    const u = await signUp(svc)
    await grant(svc, u.access, { subscription: 20, purchased: 30, purchased_expires_in_days: 10 })
    const p = await preview(svc, u.access, '')
    const results = await Promise.all(
      Array.from({ length: 20 }, () => startExport(svc, u.access, { search_id: p.search_id, export_format: 'csv', max_leads: 10 })),
    )
    const statuses = results.map((r) => r.status).sort()
    expect(statuses.filter((s) => s === 202)).toHaveLength(5)
    expect(statuses.filter((s) => s === 403)).toHaveLength(15)
    const me = await profile(svc, u.access)
    expect(me.remaining_credits).toBe(0)
    expect(me.purchased_credits_available).toBe(0)
    expect(await exportCount(u.id)).toBe(5)
    const lots = await svc.deps.db.query<{ remaining: number }>('SELECT remaining FROM credit_lots WHERE user_id = $1', [u.id])
    expect(lots.rows.every((l) => l.remaining >= 0)).toBe(true)
  })

  it('refuses a search with nothing to export with 400 and charges nothing', async () => {
    const u = await paidUser(50)
    const { rows } = await svc.deps.db.query<{ id: number }>(
      `INSERT INTO searches (user_id, kind, filters, filters_hash, created_at) VALUES ($1, 'preview', $2, 'none', $3) RETURNING id`,
      [u.id, JSON.stringify({ countries: ['ZZ'] }), svc.deps.clock.now()],
    )
    const res = await startExport(svc, u.access, { search_id: rows[0]!.id, export_format: 'csv' })
    expect(res.status).toBe(400)
    expect((await body<Errors>(res)).errors.search_id).toBeDefined()
    expect((await profile(svc, u.access)).remaining_credits).toBe(50)
  })
})

describe('bad input and other accounts', () => {
  it.each([
    [{ export_format: 'pdf' }, 'export_format'],
    [{ export_format: undefined }, 'export_format'],
    [{ max_leads: 0 }, 'max_leads'],
    [{ max_leads: -5 }, 'max_leads'],
    [{ max_leads: 2_147_483_648 }, 'max_leads'],
    [{ max_leads: 2.5 }, 'max_leads'],
    [{ max_leads: '10' }, 'max_leads'],
    [{ search_id: '1' }, 'search_id'],
    [{ search_id: 0 }, 'search_id'],
    [{ search_id: 2_147_483_648 }, 'search_id'],
    [{ search_id: undefined }, 'search_id'],
  ])('POST /api/download-csv/ refuses %j with 400 on the field', async (override, field) => {
    const u = await paidUser(100)
    const p = await preview(svc, u.access, 'countries=DE')
    const res = await startExport(svc, u.access, { search_id: p.search_id, export_format: 'csv', ...override })
    expect(res.status).toBe(400)
    expect((await body<Errors>(res)).errors[field]?.length).toBeGreaterThan(0)
    expect(await exportCount(u.id)).toBe(0)
  })

  it('refuses malformed JSON (400) and a body over 1 MB (413)', async () => {
    const u = await paidUser(100)
    const headers = { Authorization: `Bearer ${u.access}`, 'Content-Type': 'application/json' }
    const bad = await svc.request('/api/download-csv/', { method: 'POST', headers, body: '{"search_id": 1,' })
    expect(bad.status).toBe(400)
    const big = await postOnOwnConnection(
      `${svc.url}/api/download-csv/`,
      headers,
      JSON.stringify({ search_id: 1, export_format: 'csv', pad: 'x'.repeat(1024 * 1024) }),
    )
    expect(big.status).toBe(413)
    expect(JSON.parse(big.body)).toHaveProperty('detail')
    expect(await exportCount(u.id)).toBe(0)
  })

  it("answers 404 for another account's searches and exports, everywhere", async () => {
    const owner = await paidUser(1000)
    const other = await paidUser(1000)
    const p = await preview(svc, owner.access, 'countries=ES')
    const started = await body<{ search_id: number }>(
      await startExport(svc, owner.access, { search_id: p.search_id, export_format: 'csv', max_leads: 2 }),
    )
    await waitForExport(svc, owner.access, started.search_id)
    const id = started.search_id
    expect((await startExport(svc, other.access, { search_id: p.search_id, export_format: 'csv' })).status).toBe(404)
    expect((await startExport(svc, other.access, { search_id: id, export_format: 'csv' })).status).toBe(404)
    for (const path of [`/api/download-status/${id}/`, `/api/download-completed-csv/${id}/`, `/api/user/search-history/${id}/`]) {
      const res = await svc.request(path, { token: other.access })
      expect(res.status).toBe(404)
      expect(await body(res)).toEqual({ detail: expect.any(String), code: expect.any(String) })
    }
    for (const path of [`/api/user/search-history/${id}/download-delta/`, `/api/user/search-history/${id}/retry/`]) {
      expect((await svc.request(path, { method: 'POST', token: other.access, json: {} })).status).toBe(404)
    }
    // unknown ids, and a preview's id where an export is expected
    expect((await startExport(svc, owner.access, { search_id: 2_000_000_000, export_format: 'csv' })).status).toBe(404)
    expect((await svc.request(`/api/download-status/${p.search_id}/`, { token: owner.access })).status).toBe(404)
    expect((await svc.request('/api/download-status/abc/', { token: owner.access })).status).toBe(400)
    expect((await svc.request('/api/download-status/99999999999/', { token: owner.access })).status).toBe(400)
    expect((await profile(svc, other.access)).remaining_credits).toBe(1000)
  })
})

describe('failures and retry', () => {
  it('a failed export reports its error, has no link (409), and its retry completes at no new charge', async () => {
    const u = await paidUser(500)
    const p = await preview(svc, u.access, 'countries=IT')
    expect((await svc.request('/api/_test/fail-next-export/', { method: 'POST', token: u.access })).status).toBe(200)
    const started = await body<{ search_id: number; lead_count: number }>(
      await startExport(svc, u.access, { search_id: p.search_id, export_format: 'csv', max_leads: 25 }),
    )
    const failed = await waitForExport(svc, u.access, started.search_id)
    expect(failed.status).toBe('FAILED')
    expect(failed.error).toEqual(expect.any(String))
    const link = await svc.request(`/api/download-completed-csv/${started.search_id}/`, { token: u.access })
    expect(link.status).toBe(409)
    expect(await body(link)).toHaveProperty('detail')
    expect((await profile(svc, u.access)).remaining_credits).toBe(475)

    const retry = await svc.request(`/api/user/search-history/${started.search_id}/retry/`, { method: 'POST', token: u.access, json: {} })
    expect(retry.status).toBe(202)
    expect(await body(retry)).toEqual({ search_id: started.search_id, status: 'PENDING' })
    const done = await waitForExport(svc, u.access, started.search_id)
    expect(done).toMatchObject({ status: 'COMPLETED', error: null, processed_count: 25 })
    expect((await profile(svc, u.access)).remaining_credits).toBe(475)
    const charges = await svc.deps.db.query('SELECT 1 FROM credit_charges WHERE search_id = $1', [started.search_id])
    expect(charges.rows).toHaveLength(1)
    const rows = parseCsv(await (await fetch((await descriptor(u, started.search_id)).download_url)).text())
    expect(rows).toHaveLength(1 + 25)

    const again = await svc.request(`/api/user/search-history/${started.search_id}/retry/`, { method: 'POST', token: u.access, json: {} })
    expect(again.status).toBe(409)
  })

  it('a worker starting up picks up exports a previous run left PENDING or PROCESSING', async () => {
    const u = await paidUser(500)
    const p = await preview(svc, u.access, 'countries=US')
    const started = await body<{ search_id: number }>(
      await startExport(svc, u.access, { search_id: p.search_id, export_format: 'csv', max_leads: 4 }),
    )
    await waitForExport(svc, u.access, started.search_id)
    // as if the process had died mid-file
    await svc.deps.db.query(
      "UPDATE searches SET status = 'PROCESSING', progress = 50, processed_count = 2, file_path = NULL, filename = NULL WHERE id = $1",
      [started.search_id],
    )
    const worker = startExportWorker({ db: svc.deps.db, clock: svc.deps.clock, config: svc.deps.config })
    try {
      const done = await waitForExport(svc, u.access, started.search_id)
      expect(done).toMatchObject({ status: 'COMPLETED', processed_count: 4 })
    } finally {
      await worker.stop()
    }
  })
})

describe('signed links and expiry (test clock)', () => {
  it('refuses a bad or tampered signature with 403 and an expired link with 410, descriptor too', async () => {
    const u = await signUp(svc) // free plan: links live 3 days
    const p = await preview(svc, u.access, 'countries=TH')
    const started = await body<{ search_id: number }>(
      await startExport(svc, u.access, { search_id: p.search_id, export_format: 'csv', max_leads: 5 }),
    )
    await waitForExport(svc, u.access, started.search_id)
    const d = await descriptor(u, started.search_id)
    const url = new URL(d.download_url)
    const sig = url.searchParams.get('sig')!
    const expires = Number(url.searchParams.get('expires'))
    expect(expires * 1000).toBe(new Date(d.expires_at).getTime() - (new Date(d.expires_at).getTime() % 1000))

    const tampered = [
      `${url.origin}${url.pathname}?expires=${expires}&sig=${sig.replace(/^./, (ch) => (ch === 'a' ? 'b' : 'a'))}`,
      `${url.origin}${url.pathname}?expires=${expires + 86_400}&sig=${sig}`,
      `${url.origin}/api/files/${started.search_id - 1}/?expires=${expires}&sig=${sig}`,
      `${url.origin}${url.pathname}?expires=${expires}&sig=nothex`,
    ]
    for (const t of tampered) {
      const res = await fetch(t)
      expect(res.status).toBe(403)
      expect(await body(res)).toHaveProperty('detail')
    }
    expect((await fetch(`${url.origin}${url.pathname}`)).status).toBe(400)
    expect((await fetch(d.download_url)).status).toBe(200)

    await advanceClock(svc, 3 * 86_400 + 1)
    const expired = await fetch(d.download_url)
    expect(expired.status).toBe(410)
    expect(await body(expired)).toHaveProperty('detail')
    const { access } = await body<{ access: string }>(
      await svc.request('/api/auth/login/', { method: 'POST', json: { username: u.email, password: u.password } }),
    )
    const gone = await svc.request(`/api/download-completed-csv/${started.search_id}/`, { token: access })
    expect(gone.status).toBe(410)
    expect(await body(gone)).toEqual({ detail: expect.any(String), code: expect.any(String) })
  })
})
