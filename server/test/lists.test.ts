import ExcelJS from 'exceljs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { listsExcludeWhere } from '../src/modules/lists/service.ts'
import { startTestService, type TestService } from './helpers.ts'
import { body, parseCsv, signUp, type TestUser } from './account-helpers.ts'
import { confirm, csv, upload, uploaded, waitMatched, type ListAnswer } from './lists-helpers.ts'

/** Issue 27, extension `lists`: uploads in every form a person's file comes in, bad files, privacy, scopes, limits, the report. */

let svc: TestService
let u: TestUser
beforeAll(async () => {
  svc = await startTestService()
  u = await signUp(svc)
})
afterAll(() => svc?.close())

interface ErrorBody {
  code: string
  errors?: Record<string, string[]>
  error_codes?: Record<string, Array<{ code: string } & Record<string, unknown>>>
}

const ROWS = [
  ['Firmenname', 'Ort', 'Telefon', 'Webseite'],
  ['Bäckerei Müller', 'Köln', '0221 123456', 'www.mueller-baeckerei.de'],
  ['Café Größenwahn', 'München', '+49 89 7654321', ''],
  ['Fleischerei Weiß; Söhne', 'Düsseldorf', '', 'weiss.de'],
]

function encode(text: string, encoding: 'utf-8' | 'utf-8-bom' | 'windows-1252' | 'utf-16le' | 'utf-16be'): Uint8Array {
  if (encoding === 'utf-8') return Buffer.from(text, 'utf8')
  if (encoding === 'utf-8-bom') return Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(text, 'utf8')])
  if (encoding === 'windows-1252') return Buffer.from(text, 'latin1') // the texts here are all in Latin-1's range, where the two agree
  const le = Buffer.from(`\ufeff${text}`, 'utf16le')
  return encoding === 'utf-16le' ? le : Buffer.from(le).swap16()
}

async function xlsx(rows: Array<Array<string | number | boolean | { error: string }>>): Promise<Uint8Array> {
  const wb = new ExcelJS.Workbook()
  const ws = wb.addWorksheet('Kunden')
  for (const r of rows) ws.addRow(r)
  return new Uint8Array(await wb.xlsx.writeBuffer())
}

const problem = async (res: Response) => {
  expect(res.status).toBe(400)
  const b = await body<ErrorBody>(res)
  expect(b.code).toBe('invalid_input')
  expect(b.errors?.file?.[0]).toBeTruthy()
  return b.error_codes!.file![0]!
}

describe('capabilities and schema', () => {
  it('lists the extension with its limits, and documents every route as an extension', async () => {
    const caps = await body<Record<string, Record<string, unknown>>>(await svc.request('/api/capabilities/', { token: u.access }))
    expect(caps.lists).toMatchObject({ version: 1, limit: 20, max_rows: 200_000, max_file_mb: 50, rules: ['domain', 'phone', 'name_city'] })
    const doc = await body<{ paths: Record<string, Record<string, { 'x-extension'?: boolean }>> }>(await svc.request('/api/schema/'))
    const paths = Object.keys(doc.paths).filter((p) => p.startsWith('/api/lists'))
    expect(paths.length).toBeGreaterThanOrEqual(6)
    for (const p of paths) for (const op of Object.values(doc.paths[p]!)) expect(op['x-extension'], p).toBe(true)
    const root = doc.paths['/api/lists'] ?? doc.paths['/api/lists/']
    expect(Object.keys(root!)).toEqual(expect.arrayContaining(['get', 'post']))
  })
})

describe('uploads', () => {
  for (const encoding of ['utf-8', 'utf-8-bom', 'windows-1252', 'utf-16le', 'utf-16be'] as const) {
    for (const delimiter of [',', ';', '\t', '|']) {
      it(`reads ${encoding} with ${JSON.stringify(delimiter)}`, async () => {
        const list = await uploaded(svc, u, { name: 'kunden.csv', bytes: encode(csv(ROWS, delimiter), encoding) })
        expect(list).toMatchObject({
          status: 'uploaded',
          file_type: 'csv',
          encoding: encoding === 'utf-8-bom' ? 'utf-8' : encoding,
          delimiter,
          name: 'kunden',
          headers: ROWS[0],
          total_rows: 3,
          proposed_mapping: { name: 0, city: 1, phone: 2, website: 3 },
        })
        expect(list.preview.map((r) => r.cells)).toEqual(ROWS.slice(1))
        await svc.request(`/api/lists/${list.id}/`, { method: 'DELETE', token: u.access })
      })
    }
  }

  it('reads the first sheet of an XLSX workbook: shared and inline texts, numbers, blank rows left out', async () => {
    const list = await uploaded(
      svc,
      u,
      {
        name: 'clients.xlsx',
        bytes: await xlsx([['Nom', 'Ville', 'Téléphone'], ['Boulangerie Martin', 'Lyon', 33478123456], [], ['Café', 'Paris', '']]),
      },
      { name: 'Mes clients' },
    )
    expect(list).toMatchObject({ name: 'Mes clients', file_type: 'xlsx', headers: ['Nom', 'Ville', 'Téléphone'], total_rows: 2 })
    expect(list.proposed_mapping).toEqual({ name: 0, city: 1, phone: 2 })
    expect(list.preview.map((r) => r.cells)).toEqual([
      ['Boulangerie Martin', 'Lyon', '33478123456'],
      ['Café', 'Paris', ''],
    ])
    await svc.request(`/api/lists/${list.id}/`, { method: 'DELETE', token: u.access })
  })
})

describe('bad files: a 400 naming the problem', () => {
  it('an empty file, a header without rows, blank lines only', async () => {
    expect(await problem(await upload(svc, u.access, { name: 'a.csv', bytes: '' }))).toEqual({ code: 'file_empty' })
    expect(await problem(await upload(svc, u.access, { name: 'a.csv', bytes: 'Name,City\r\n' }))).toEqual({ code: 'file_empty' })
    expect(await problem(await upload(svc, u.access, { name: 'a.csv', bytes: '\r\n ,  \r\n\r\n' }))).toEqual({ code: 'file_empty' })
  })

  it('a first row of data rather than names', async () => {
    const res = await upload(svc, u.access, { name: 'a.csv', bytes: 'Bäckerei Müller,info@mueller.de,0221 123456\r\nx,y,z\r\n' })
    expect(await problem(res)).toEqual({ code: 'file_no_header' })
  })

  it('more rows than allowed', async () => {
    const text = `Name\n${'x\n'.repeat(200_001)}`
    expect(await problem(await upload(svc, u.access, { name: 'big.csv', bytes: text }))).toEqual({
      code: 'file_too_many_rows',
      limit: 200_000,
    })
    // exactly the limit is fine
    const ok = await uploaded(svc, u, { name: 'ok.csv', bytes: `Name\n${'x\n'.repeat(200_000)}` })
    expect(ok.total_rows).toBe(200_000)
    await svc.request(`/api/lists/${ok.id}/`, { method: 'DELETE', token: u.access })
  }, 240_000)

  it('a file larger than 50 MB', async () => {
    const big = new Uint8Array(50 * 1024 * 1024 + 10).fill(0x61)
    expect(await problem(await upload(svc, u.access, { name: 'big.csv', bytes: big }))).toEqual({ code: 'file_too_large', limit: 50 })
  })

  it('an unreadable cell or a damaged file', async () => {
    const quote = await problem(await upload(svc, u.access, { name: 'a.csv', bytes: 'Name,City\r\n"Open quote,Berlin\r\n' }))
    expect(quote.code).toBe('file_unreadable')
    const errorCell = await problem(
      await upload(svc, u.access, {
        name: 'a.xlsx',
        bytes: await xlsx([
          ['Name', 'City'],
          [{ error: '#REF!' }, 'Berlin'],
        ]),
      }),
    )
    expect(errorCell.code).toBe('file_unreadable')
    const res = await upload(svc, u.access, { name: 'a.xlsx', bytes: Buffer.concat([Buffer.from('PK\x03\x04'), Buffer.alloc(100, 7)]) })
    expect((await problem(res)).code).toBe('file_unreadable')
  })

  it('an XLSX whose sheet would unpack past the limit is refused before it is unpacked (zip bomb)', async () => {
    const bytes = Buffer.from(await xlsx([['Name'], ['x']]))
    // declare the sheet 3 GB unpacked in the zip's central directory, as a bomb does
    const name = Buffer.from('xl/worksheets/sheet1.xml')
    for (
      let at = bytes.indexOf(Buffer.from([0x50, 0x4b, 0x01, 0x02]));
      at >= 0;
      at = bytes.indexOf(Buffer.from([0x50, 0x4b, 0x01, 0x02]), at + 4)
    ) {
      const nameLength = bytes.readUInt16LE(at + 28)
      if (bytes.subarray(at + 46, at + 46 + nameLength).equals(name)) bytes.writeUInt32LE(3_000_000_000, at + 24)
    }
    const issue = await problem(await upload(svc, u.access, { name: 'bomb.xlsx', bytes }))
    expect(issue.code).toBe('file_unreadable')
    const res = await upload(svc, u.access, { name: 'bomb.xlsx', bytes })
    expect((await body<ErrorBody>(res)).errors!.file![0]).toMatch(/unpacks to more than/)
  })

  it('neither CSV nor XLSX', async () => {
    const xls = Buffer.from([0xd0, 0xcf, 0x11, 0xe0, 0xa1, 0xb1, 0x1a, 0xe1, 0, 0, 0])
    expect(await problem(await upload(svc, u.access, { name: 'old.xls', bytes: xls }))).toEqual({ code: 'file_type_unsupported' })
    const binary = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0, 0, 0, 13])
    expect(await problem(await upload(svc, u.access, { name: 'logo.png', bytes: binary }))).toEqual({ code: 'file_type_unsupported' })
  })

  it('no file part, or not a form', async () => {
    const form = new FormData()
    form.set('name', 'x')
    const res = await svc.request('/api/lists/', { method: 'POST', token: u.access, body: form })
    expect(res.status).toBe(400)
    expect((await body<ErrorBody>(res)).error_codes).toEqual({ file: [{ code: 'required' }] })
    const json = await svc.request('/api/lists/', { method: 'POST', token: u.access, json: { file: 'x' } })
    expect(json.status).toBe(415)
  })

  it('a name with control or direction characters, a country that is not a code', async () => {
    const named = await upload(svc, u.access, { name: 'a.csv', bytes: csv(ROWS) }, { name: 'Export \u202e79#' })
    expect(named.status).toBe(400)
    expect((await body<ErrorBody>(named)).error_codes).toEqual({ name: [{ code: 'control_characters' }] })
    const country = await upload(svc, u.access, { name: 'a.csv', bytes: csv(ROWS) }, { default_country: 'Germany' })
    expect((await body<ErrorBody>(country)).error_codes).toEqual({ default_country: [{ code: 'invalid_country_code' }] })
  })

  it('nothing of a refused file is left behind', async () => {
    const lists = await body<ListAnswer[]>(await svc.request('/api/lists/', { token: u.access }))
    expect(lists).toEqual([])
  })
})

describe('mapping', () => {
  it('refuses unknown fields, missing columns, a column twice, and a mapping that cannot find a business', async () => {
    const list = await uploaded(svc, u, { name: 'm.csv', bytes: csv(ROWS) })
    const put = (mapping: Record<string, unknown>) =>
      svc.request(`/api/lists/${list.id}/mapping/`, { method: 'PUT', token: u.access, json: { mapping } })
    const codes = async (res: Response) => {
      expect(res.status).toBe(400)
      return (await body<ErrorBody>(res)).error_codes
    }
    expect(await codes(await put({ nickname: 0, name: 0, city: 1 }))).toEqual({ 'mapping.nickname': [{ code: 'invalid_choice' }] })
    expect(await codes(await put({ name: 0, city: 9 }))).toEqual({ 'mapping.city': [{ code: 'invalid_choice' }] })
    expect(await codes(await put({ name: 0, city: 0 }))).toEqual({ 'mapping.city': [{ code: 'duplicate_value' }] })
    expect(await codes(await put({ name: 0 }))).toEqual({ mapping: [{ code: 'mapping_incomplete' }] })
    const queued = await confirm(svc, u, list.id, { name: 0, city: 1, phone: 2, website: null })
    expect(queued).toMatchObject({ status: 'queued', mapping: { name: 0, city: 1, phone: 2 } })
    expect((await waitMatched(svc, u, list.id)).status).toBe('matched')
    await svc.request(`/api/lists/${list.id}/`, { method: 'DELETE', token: u.access })
  })
})

describe('privacy, scopes and limits', () => {
  it('another account gets 404 for every route of a list', async () => {
    const list = await uploaded(svc, u, { name: 'p.csv', bytes: csv(ROWS) })
    const other = await signUp(svc)
    const id = list.id
    const calls: Array<[string, string, unknown?]> = [
      ['GET', `/api/lists/${id}/`],
      ['DELETE', `/api/lists/${id}/`],
      ['PUT', `/api/lists/${id}/mapping/`, { mapping: { name: 0, city: 1 } }],
      ['POST', `/api/lists/${id}/cancel/`],
      ['GET', `/api/lists/${id}/report/`],
      ['GET', `/api/lists/${id}/rows/`],
      ['PUT', `/api/lists/${id}/rows/1/match/`, { company_id: 1 }],
      ['GET', `/api/lists/${id}/report.csv`],
    ]
    for (const [method, path, json] of calls) {
      const res = await svc.request(path, { method, token: other.access, ...(json ? { json } : {}) })
      expect(res.status, `${method} ${path}`).toBe(404)
    }
    expect(await body(await svc.request('/api/lists/', { token: other.access }))).toEqual([])
    // and the list is untouched
    expect((await body<ListAnswer>(await svc.request(`/api/lists/${id}/`, { token: u.access }))).status).toBe('uploaded')
    await svc.request(`/api/lists/${id}/`, { method: 'DELETE', token: u.access })
  })

  it('a read key reads lists; only an export key uploads and changes them', async () => {
    const owner = await signUp(svc)
    const key = async (scope: string) =>
      (await body<{ token: string }>(await svc.request('/api/user/api-keys/', { method: 'POST', token: owner.access, json: { scope } })))
        .token
    const read = await key('read')
    const write = await key('export')
    const refused = await upload(svc, read, { name: 'k.csv', bytes: csv(ROWS) })
    expect(refused.status).toBe(403)
    expect((await body<ErrorBody>(refused)).code).toBe('api_key_read_only')
    const made = await upload(svc, write, { name: 'k.csv', bytes: csv(ROWS) })
    expect(made.status).toBe(201)
    const { id } = await body<ListAnswer>(made)
    expect((await svc.request(`/api/lists/${id}/`, { token: read })).status).toBe(200)
    expect((await svc.request(`/api/lists/${id}/report/`, { token: read })).status).toBe(200)
    for (const [method, path, json] of [
      ['PUT', `/api/lists/${id}/mapping/`, { mapping: { name: 0, city: 1 } }],
      ['DELETE', `/api/lists/${id}/`, undefined],
    ] as const) {
      const res = await svc.request(path, { method, token: read, ...(json ? { json } : {}) })
      expect(res.status, path).toBe(403)
    }
    expect(
      (await svc.request(`/api/lists/${id}/mapping/`, { method: 'PUT', token: write, json: { mapping: { name: 0, city: 1 } } })).status,
    ).toBe(202)
  })

  it('an account holds at most 20 lists', async () => {
    const owner = await signUp(svc)
    const ids: number[] = []
    for (let i = 0; i < 20; i++) ids.push((await uploaded(svc, owner, { name: `l${i}.csv`, bytes: csv(ROWS) })).id)
    const refused = await upload(svc, owner.access, { name: 'l20.csv', bytes: csv(ROWS) })
    expect(refused.status).toBe(409)
    expect(await body(refused)).toMatchObject({ code: 'list_limit', limit: 20 })
    expect((await svc.request(`/api/lists/${ids[0]}/`, { method: 'DELETE', token: owner.access })).status).toBe(204)
    expect((await upload(svc, owner.access, { name: 'l20.csv', bytes: csv(ROWS) })).status).toBe(201)
  })
})

describe('report, rows and the report file', () => {
  it('counts by status and rule; rows can be matched and un-matched by hand; the CSV is safe to open', async () => {
    const { rows: companies } = await svc.deps.db.query<{ id: number; name: string; website: string; city: string }>(
      `SELECT c.id, c.name, c.website, l.name AS city FROM companies c JOIN level3_locations l ON l.id = c.level3_id
        JOIN company_match_keys k ON k.company_id = c.id
       WHERE k.site_domain IS NOT NULL AND c.website IS NOT NULL
         AND (SELECT count(*) FROM company_match_keys o WHERE o.site_domain = k.site_domain) = 1
       ORDER BY c.id LIMIT 2`,
    )
    const [a, b] = companies as [(typeof companies)[number], (typeof companies)[number]]
    const list = await uploaded(svc, u, {
      name: 'r.csv',
      bytes: csv([
        ['Name', 'City', 'Website'],
        [a.name, a.city, a.website],
        ['=HYPERLINK("http://evil.example","x")', 'Nowhere', ''],
        [b.name, b.city, b.website],
      ]),
    })
    await confirm(svc, u, list.id, list.proposed_mapping)
    expect(await waitMatched(svc, u, list.id)).toMatchObject({ status: 'matched', matched_rows: 3 })
    const report = await body(await svc.request(`/api/lists/${list.id}/report/`, { token: u.access }))
    expect(report).toMatchObject({
      total_rows: 3,
      matched: 2,
      ambiguous: 0,
      unmatched: 1,
      pending: 0,
      by_rule: { domain: 2, phone: 0, name_city: 0, manual: 0 },
    })

    const page = await body<{
      count: number
      results: Array<{
        row_no: number
        status: string
        match: { company_id: number; rule: string; confidence: number; name: string } | null
      }>
    }>(await svc.request(`/api/lists/${list.id}/rows/?status=matched`, { token: u.access }))
    expect(page.count).toBe(2)
    expect(page.results.map((r) => [r.row_no, r.match?.company_id, r.match?.rule, r.match?.name])).toEqual([
      [1, a.id, 'domain', a.name],
      [3, b.id, 'domain', b.name],
    ])
    expect(page.results[0]!.match!.confidence).toBeGreaterThan(0.9)

    // by hand: row 2 to company a, row 1 un-matched
    const matched = await svc.request(`/api/lists/${list.id}/rows/2/match/`, { method: 'PUT', token: u.access, json: { company_id: a.id } })
    expect(await body(matched)).toMatchObject({ row_no: 2, status: 'matched', match: { company_id: a.id, rule: 'manual', confidence: 1 } })
    await svc.request(`/api/lists/${list.id}/rows/1/match/`, { method: 'PUT', token: u.access, json: { company_id: null } })
    expect(await body(await svc.request(`/api/lists/${list.id}/report/`, { token: u.access }))).toMatchObject({
      matched: 2,
      unmatched: 1,
      by_rule: { domain: 1, manual: 1 },
    })
    expect(
      (await svc.request(`/api/lists/${list.id}/rows/2/match/`, { method: 'PUT', token: u.access, json: { company_id: 2_000_000_000 } }))
        .status,
    ).toBe(400)
    expect(
      (await svc.request(`/api/lists/${list.id}/rows/99/match/`, { method: 'PUT', token: u.access, json: { company_id: a.id } })).status,
    ).toBe(404)

    const file = await svc.request(`/api/lists/${list.id}/report.csv`, { token: u.access })
    expect(file.status).toBe(200)
    expect(file.headers.get('content-type')).toMatch(/^text\/csv/)
    expect(file.headers.get('content-disposition')).toMatch(/attachment/)
    const text = await file.text()
    const rows = parseCsv(text.replace(/^\ufeff/, ''))
    expect(rows[0]).toEqual([
      'row',
      'Name',
      'City',
      'Website',
      'match_status',
      'company_id',
      'company_name',
      'company_city',
      'rule',
      'confidence',
    ])
    expect(rows[1]!.slice(4, 6)).toEqual(['unmatched', ''])
    // a formula from the person's file (or a company's name) is text in the report, never run by a spreadsheet
    expect(rows[2]![1]).toBe(`'=HYPERLINK("http://evil.example","x")`)
    expect(rows[2]!.slice(4, 9)).toEqual(['matched', String(a.id), a.name, a.city, 'manual'])
    expect(rows[3]!.slice(4, 9)).toEqual(['matched', String(b.id), b.name, b.city, 'domain'])
    // no token, no file: it is never in the address
    expect((await svc.request(`/api/lists/${list.id}/report.csv`)).status).toBe(401)
  })

  it('shows an ambiguous row’s candidates as companies to choose from, best first, and a match’s address', async () => {
    const { rows: companies } = await svc.deps.db.query<{
      id: number
      name: string
      website: string | null
      address: string | null
      zipcode: string | null
      city: string
    }>(
      `SELECT c.id, c.name, c.website, c.address, c.zipcode, l.name AS city FROM companies c JOIN level3_locations l ON l.id = c.level3_id
        WHERE c.address IS NOT NULL AND c.zipcode IS NOT NULL ORDER BY c.id LIMIT 3`,
    )
    const [a, b, c] = companies as [(typeof companies)[number], (typeof companies)[number], (typeof companies)[number]]
    const list = await uploaded(svc, u, {
      name: 'amb.csv',
      bytes: csv([
        ['Name', 'City'],
        [a.name, a.city],
        ['Somebody', 'Somewhere'],
      ]),
    })
    await confirm(svc, u, list.id, { name: 0, city: 1 })
    expect((await waitMatched(svc, u, list.id)).status).toBe('matched')
    // the matcher's verdict on row 2, as it writes a tie (the ranking itself is lists-matching.test.ts')
    await svc.deps.db.query(
      `UPDATE list_rows SET status = 'ambiguous', company_id = NULL, rule = NULL, confidence = NULL, candidates = $2 WHERE list_id = $1 AND row_no = 2`,
      [list.id, [c.id, b.id]],
    )
    await svc.request(`/api/lists/${list.id}/rows/1/match/`, { method: 'PUT', token: u.access, json: { company_id: a.id } })
    const brief = (x: typeof a) => ({
      company_id: x.id,
      name: x.name,
      city: x.city,
      street: x.address,
      postal_code: x.zipcode,
      website: x.website,
    })
    const page = await body<{ results: Array<{ row_no: number; match: Record<string, unknown> | null; candidates: unknown[] }> }>(
      await svc.request(`/api/lists/${list.id}/rows/`, { token: u.access }),
    )
    expect(page.results[0]).toMatchObject({
      row_no: 1,
      match: { company_id: a.id, name: a.name, city: a.city, street: a.address, postal_code: a.zipcode },
      candidates: [],
    })
    expect(page.results[1]).toMatchObject({ row_no: 2, status: 'ambiguous', match: null, candidates: [brief(c), brief(b)] })
    // one is chosen by hand: the row is matched to it and names no candidates any more
    const chosen = await svc.request(`/api/lists/${list.id}/rows/2/match/`, { method: 'PUT', token: u.access, json: { company_id: b.id } })
    expect(await body(chosen)).toMatchObject({ status: 'matched', match: { company_id: b.id, rule: 'manual' }, candidates: [] })
  })

  it('gives its matched companies as an SQL condition for suppression, for its owner only', async () => {
    const { rows: some } = await svc.deps.db.query<{ phone: string }>(
      `SELECT c.phone FROM companies c JOIN company_match_keys k ON k.company_id = c.id
        WHERE k.phone_e164 IS NOT NULL AND (SELECT count(*) FROM company_match_keys o WHERE o.phone_e164 = k.phone_e164) = 1
        ORDER BY c.id LIMIT 5`,
    )
    const list = await uploaded(svc, u, { name: 's.csv', bytes: csv([['Phone'], ...some.map((c) => [c.phone]), ['+49 30 0000001']]) })
    await confirm(svc, u, list.id, { phone: 0 })
    expect((await waitMatched(svc, u, list.id)).status).toBe('matched')
    const count = async (userId: number) => {
      const where = listsExcludeWhere([list.id], userId, 1)
      const { rows } = await svc.deps.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM companies c WHERE ${where.sql}`, where.params)
      return rows[0]!.n
    }
    const { rows } = await svc.deps.db.query<{ n: number }>('SELECT count(*)::int AS n FROM companies')
    const all = rows[0]!.n
    expect(await count(u.id)).toBe(all - 5)
    // another account naming this list leaves out nothing
    const other = await signUp(svc)
    expect(await count(other.id)).toBe(all)
  })

  it('deleting a list deletes its rows', async () => {
    const list = await uploaded(svc, u, { name: 'd.csv', bytes: csv(ROWS) })
    expect((await svc.request(`/api/lists/${list.id}/`, { method: 'DELETE', token: u.access })).status).toBe(204)
    expect((await svc.request(`/api/lists/${list.id}/`, { token: u.access })).status).toBe(404)
    const { rows } = await svc.deps.db.query<{ n: number }>('SELECT count(*)::int AS n FROM list_rows WHERE list_id = $1', [list.id])
    expect(rows[0]!.n).toBe(0)
  })
})
