import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createApp } from '../src/app.ts'
import { loadConfig } from '../src/config.ts'
import { refusedRoutes } from '../src/interface-profile.ts'
import { startTestService, type TestService } from './helpers.ts'
import { advanceClock, balance, body, login, paidUser as paidUserOf, parseCsv, signUp, type TestUser } from './account-helpers.ts'

/**
 * SERVICE_PROFILE=interface (issue 20): the reference service answering what the interface promises
 * and nothing more. The reference profile's behaviour is what every other file of this suite tests.
 */

let svc: TestService
beforeAll(async () => {
  svc = await startTestService({ serviceProfile: 'interface' })
})
afterAll(async () => {
  await svc?.close()
})

const paidUser = (subscription?: number) => paidUserOf(svc, subscription)
const get = (path: string, token?: string) => svc.request(path, { token })
const post = (path: string, token: string, json?: unknown) => svc.request(path, { method: 'POST', token, json })

const OPAQUE = /^s-\d+$/

/** A preview through the profile: its search_id is an opaque string. */
async function preview(u: TestUser, query: string) {
  const res = await get(`/api/companies/?${query}`, u.access)
  expect(res.status).toBe(200)
  return body<{ totalCount: number; search_id: string; results: Array<Record<string, unknown>> }>(res)
}

/** Starts an export: 202 with an empty body (the answer's shape is "not shown"). */
async function startExport(u: TestUser, json: Record<string, unknown>) {
  const res = await post('/api/download-csv/', u.access, json)
  expect(res.status, await res.clone().text()).toBe(202)
  expect(await res.text()).toBe('')
}

/** Polls download-status by `id` (a preview's id addresses its newest export) until it ends. */
async function waitFor(u: TestUser, id: string, timeoutMs = 30_000): Promise<string> {
  const until = Date.now() + timeoutMs
  for (;;) {
    const res = await get(`/api/download-status/${id}/`, u.access)
    expect(res.status).toBe(200)
    const b = await body<{ status: string }>(res)
    expect(Object.keys(b)).toEqual(['status'])
    if (b.status === 'COMPLETED' || b.status === 'FAILED') return b.status
    if (Date.now() > until) throw new Error(`export ${id} still ${b.status}`)
    await new Promise((r) => setTimeout(r, 50))
  }
}

async function download(u: TestUser, id: string) {
  const res = await get(`/api/download-completed-csv/${id}/`, u.access)
  expect(res.status).toBe(200)
  const d = await body<{ download_url: string; filename: string }>(res)
  expect(Object.keys(d).sort()).toEqual(['download_url', 'expires_at', 'file_size_bytes', 'file_size_mb', 'filename'])
  const file = await fetch(d.download_url)
  expect(file.status).toBe(200)
  return parseCsv(await file.text())
}

const exportRows = async (userId: number) =>
  (await svc.deps.db.query<{ id: number }>("SELECT id FROM searches WHERE user_id = $1 AND kind = 'export' ORDER BY id", [userId])).rows

describe('the switch', () => {
  it('is SERVICE_PROFILE, `reference` unless set; a misspelt profile stops the start', () => {
    const env = { SECRET_KEY: 'x', DATA_DIR: svc.deps.config.dataDir }
    expect(loadConfig(env).serviceProfile).toBe('reference')
    expect(loadConfig({ ...env, SERVICE_PROFILE: 'interface' }).serviceProfile).toBe('interface')
    expect(() => loadConfig({ ...env, SERVICE_PROFILE: 'interfaces' })).toThrow(/SERVICE_PROFILE/)
  })
})

describe('no extensions', () => {
  it('answers 404 for capabilities, every x-extension route of the registry and the history list and entry', async () => {
    const u = await paidUser()
    const capabilities = await get('/api/capabilities/', u.access)
    expect(capabilities.status).toBe(404)
    expect(await body(capabilities)).toEqual({ detail: 'Not found.' })

    // what the registry marks, walked here independently of the layer
    const app = createApp(svc.deps)
    const marked = app.openAPIRegistry.definitions.flatMap((d) =>
      d.type === 'route' && (d.route as Record<string, unknown>)['x-extension'] === true
        ? [`${d.route.method.toUpperCase()} ${d.route.path}`]
        : [],
    )
    expect(marked.length).toBeGreaterThan(10)
    const refused = refusedRoutes(app)
    // the links of the mails still work (confirmed sign-up, "this wasn't me" on an email change: reference behaviour): the ones kept
    const kept = ['POST /api/auth/confirm-email', 'GET /api/auth/email-change/cancel', 'POST /api/auth/email-change/cancel']
    expect(refused.sort()).toEqual(
      [
        ...new Set([
          ...marked.filter((r) => !kept.includes(r)),
          'GET /api/user/search-history',
          'GET /api/user/search-history/{search_id}',
          'PATCH /api/user/search-history/{search_id}',
          'GET /api/schema',
        ]),
      ].sort(),
    )
    expect(refused).toEqual(
      expect.arrayContaining([
        'GET /api/capabilities',
        'GET /api/companies/facets',
        'GET /api/companies/owned',
        'POST /api/auth/logout',
        'POST /api/auth/confirm-email/resend',
        'POST /api/user/password',
        'GET /api/user/webhooks',
        'POST /api/user/webhooks/{id}/rotate-secret',
      ]),
    )

    const p = await preview(u, 'countries=GB')
    await startExport(u, { search_id: p.search_id, export_format: 'csv', max_leads: 1 })
    const exportId = `s-${(await exportRows(u.id)).at(-1)!.id}`
    for (const route of refused) {
      const [method, path] = route.split(' ') as [string, string]
      const url = path.replace('{search_id}', exportId).replace(/\{[^}]+\}/g, '1') + '/'
      const res = await svc.request(url, { method, token: u.access, json: method === 'GET' ? undefined : {} })
      expect(res.status, route).toBe(404)
      expect(await body(res), route).toEqual({ detail: 'Not found.' })
    }
    // not signed in: the same 404 as a path that does not exist
    expect((await get('/api/user/webhooks/')).status).toBe(404)
  })

  it('keeps the look-ups, the plans without the trailing slash and the test hooks', async () => {
    const u = await paidUser()
    for (const path of [
      '/api/locations/countries/',
      '/api/locations/level1/?country=DE',
      '/api/locations/level3/?country=DE',
      '/api/categories/?q=re',
      '/api/cities/DE/',
    ]) {
      const res = await get(path, u.access)
      expect(res.status, path).toBe(200)
      expect(Array.isArray(await body(res)), path).toBe(true)
    }
    const plans = await get('/api/plans')
    expect(plans.status).toBe(200)
    expect(await plans.json()).toBeTruthy()
    expect((await post('/api/_test/fail-next-export/', u.access)).status).toBe(200)
  })
})

describe('ids and the export flow', () => {
  it('preview → export (202, no body) → status and download by the preview’s opaque id', async () => {
    const u = await paidUser(2000)
    const before = await balance(svc, u.access)
    const p = await preview(u, 'countries=DE')
    expect(p.search_id).toMatch(OPAQUE)
    expect(Object.keys(p).sort()).toEqual(['results', 'search_id', 'totalCount'])
    expect(p.totalCount).toBeGreaterThan(1)
    // ratings as Django REST Framework writes decimals
    const ratings = p.results.map((r) => r.rating).filter((r) => r !== null)
    expect(ratings.length).toBeGreaterThan(0)
    for (const r of ratings) expect(r).toMatch(/^\d\.\d\d$/)

    await startExport(u, { search_id: p.search_id, export_format: 'csv' })
    expect(await balance(svc, u.access)).toBe(before - p.totalCount)
    expect(await waitFor(u, p.search_id)).toBe('COMPLETED')
    const rows = await download(u, p.search_id)
    expect(rows).toHaveLength(1 + p.totalCount)

    // the newest export of the search is the one its id addresses
    await startExport(u, { search_id: p.search_id, export_format: 'csv', max_leads: 2 })
    expect(await waitFor(u, p.search_id)).toBe('COMPLETED')
    expect(await download(u, p.search_id)).toHaveLength(1 + 2)

    // an export's own id keeps addressing that export
    const [first] = await exportRows(u.id)
    expect(await download(u, `s-${first!.id}`)).toHaveLength(1 + p.totalCount)

    // an API key addresses it the same way
    const key = await body<{ token: string }>(await post('/api/user/api-keys/', u.access, {}))
    expect((await svc.request(`/api/download-status/${p.search_id}/`, { token: `Token ${key.token}` })).status).toBe(200)
  })

  it('refuses bare numeric ids, in paths and in the export request', async () => {
    const u = await paidUser(1000)
    const p = await preview(u, 'countries=FR')
    await startExport(u, { search_id: p.search_id, export_format: 'csv', max_leads: 1 })
    const [{ id }] = (await exportRows(u.id)) as [{ id: number }]
    for (const path of [`/api/download-status/${id}/`, `/api/download-completed-csv/${id}/`]) {
      const res = await get(path, u.access)
      expect(res.status, path).toBe(404)
      expect(await body(res)).toEqual({ detail: 'Not found.' })
    }
    for (const path of [`/api/user/search-history/${id}/retry/`, `/api/user/search-history/${id}/download-delta/`]) {
      expect((await post(path, u.access, {})).status, path).toBe(404)
    }
    // other spellings of the same path reach the same route, and the same refusal
    const encoded = [...String(id)].map((d) => `%3${d}`).join('')
    for (const path of [`/api/download-status/${id}`, `/api/download-status/${encoded}/`, `/api/download-completed-csv/${encoded}`]) {
      expect((await get(path, u.access)).status, path).toBe(404)
    }
    expect((await svc.request(`/api/download-status/${id}/`, { method: 'HEAD', token: u.access })).status).toBe(404)
    expect((await get(`/api/download-status/s-${encoded}/`, u.access)).status).toBe(200)
    const before = await balance(svc, u.access)
    for (const search_id of [Number(p.search_id.slice(2)), p.search_id.slice(2), 's-0', 's-99999999999']) {
      const res = await post('/api/download-csv/', u.access, { search_id, export_format: 'csv' })
      expect(res.status, String(search_id)).toBe(400)
      expect(Object.keys((await body<{ errors: object }>(res)).errors)).toEqual(['search_id'])
    }
    expect(await balance(svc, u.access)).toBe(before)
    // and an unauthenticated request learns nothing
    const anonymous = await get(`/api/download-status/${p.search_id}/`)
    expect(anonymous.status).toBe(401)
    expect(await body(anonymous)).toEqual({ detail: 'Authentication credentials were not provided.' })
    const bad = await get(`/api/download-status/${p.search_id}/`, 'not.a.token')
    expect(bad.status).toBe(401)
    expect(await body(bad)).toEqual({ detail: expect.any(String), code: 'token_not_valid' })
  })

  it('retries a failed export by the preview’s id: 204, no new charge', async () => {
    const u = await paidUser(500)
    const p = await preview(u, 'countries=IT')
    expect((await post('/api/_test/fail-next-export/', u.access)).status).toBe(200)
    await startExport(u, { search_id: p.search_id, export_format: 'csv', max_leads: 5 })
    expect(await waitFor(u, p.search_id)).toBe('FAILED')
    const link = await get(`/api/download-completed-csv/${p.search_id}/`, u.access)
    expect(link.status).toBe(409)
    expect(Object.keys(await body(link))).toEqual(['detail'])
    expect(await balance(svc, u.access)).toBe(495)

    const retry = await post(`/api/user/search-history/${p.search_id}/retry/`, u.access, {})
    expect(retry.status).toBe(204)
    expect(await retry.text()).toBe('')
    expect(await waitFor(u, p.search_id)).toBe('COMPLETED')
    expect(await download(u, p.search_id)).toHaveLength(1 + 5)
    expect(await balance(svc, u.access)).toBe(495)
    expect((await post(`/api/user/search-history/${p.search_id}/retry/`, u.access, {})).status).toBe(409)
  })

  it('download-delta by the preview’s id: only the fields of 2.5, the new export’s opaque id', async () => {
    const u = await paidUser(5000)
    const p = await preview(u, 'countries=NL')
    await startExport(u, { search_id: p.search_id, export_format: 'csv' })
    expect(await waitFor(u, p.search_id)).toBe('COMPLETED')
    await advanceClock(svc, 60)
    expect((await post('/api/_test/new-companies/', u.access, { count: 4, countries: ['NL'] })).status).toBe(201)

    const fields = [
      'available_credits',
      'freshness',
      'freshness_checked_at',
      'lead_count',
      'required_credits',
      'search_id',
      'status',
      'validation_code',
    ]
    const dry = await post(`/api/user/search-history/${p.search_id}/download-delta/`, u.access, { dry_run: true })
    expect(dry.status).toBe(200)
    const verdict = await body<Record<string, unknown>>(dry)
    expect(Object.keys(verdict).sort()).toEqual(fields)
    expect(verdict).toMatchObject({ status: 'validated', validation_code: 'ok', lead_count: 4, required_credits: 4 })
    expect(verdict.search_id).toMatch(OPAQUE)

    const before = await balance(svc, u.access)
    const started = await post(`/api/user/search-history/${p.search_id}/download-delta/`, u.access, {})
    expect(started.status).toBe(202)
    const s = await body<Record<string, unknown> & { search_id: string }>(started)
    expect(Object.keys(s).sort()).toEqual(fields)
    expect(s).toMatchObject({ status: 'started', lead_count: 4 })
    expect(s.search_id).toMatch(OPAQUE)
    expect(s.search_id).not.toBe(verdict.search_id)
    expect(await balance(svc, u.access)).toBe(before - 4)
    expect(await waitFor(u, s.search_id)).toBe('COMPLETED')
    expect(await download(u, s.search_id)).toHaveLength(1 + 4)
    // the preview still addresses the search's own export, not the fresh-data one
    expect(await download(u, p.search_id)).toHaveLength(1 + p.totalCount)
  })
})

describe('not enough credits', () => {
  it('is a 402 with only `detail`, at export start and at a fresh-data start, and nothing is charged', async () => {
    const u = await paidUser(3)
    const p = await preview(u, 'countries=PL')
    expect(p.totalCount).toBeGreaterThan(3)
    const res = await post('/api/download-csv/', u.access, { search_id: p.search_id, export_format: 'csv' })
    expect(res.status).toBe(402)
    expect(await body(res)).toEqual({ detail: expect.stringMatching(/credits/i) })
    expect(await balance(svc, u.access)).toBe(3)
    expect(await exportRows(u.id)).toHaveLength(0)

    await startExport(u, { search_id: p.search_id, export_format: 'csv', max_leads: 3 })
    expect(await waitFor(u, p.search_id)).toBe('COMPLETED')
    expect(await balance(svc, u.access)).toBe(0)
    // capped: the fresh-data export is the full expansion, which the balance cannot pay
    const delta = await post(`/api/user/search-history/${p.search_id}/download-delta/`, u.access, {})
    expect(delta.status).toBe(402)
    expect(await body(delta)).toEqual({ detail: expect.stringMatching(/credits/i) })
    expect(await exportRows(u.id)).toHaveLength(1)
    // a dry run is a verdict, not a refusal: 2.5 with its validation_code
    const dry = await post(`/api/user/search-history/${p.search_id}/download-delta/`, u.access, { dry_run: true })
    expect(dry.status).toBe(403)
    expect(await body(dry)).toMatchObject({ status: 'rejected', validation_code: 'insufficient_credits', available_credits: 0 })
  })
})

describe('one account cannot reach another’s exports through the mapping', () => {
  it('answers 404 to every id of another account, preview or export', async () => {
    const a = await paidUser(1000)
    const b = await paidUser(1000)
    const p = await preview(a, 'countries=ES')
    await startExport(a, { search_id: p.search_id, export_format: 'csv', max_leads: 2 })
    expect(await waitFor(a, p.search_id)).toBe('COMPLETED')
    const exportId = `s-${(await exportRows(a.id))[0]!.id}`
    // b previewing the same filters gets a search of its own
    const own = await preview(b, 'countries=ES')
    expect(own.search_id).not.toBe(p.search_id)

    for (const id of [p.search_id, exportId]) {
      for (const path of [`/api/download-status/${id}/`, `/api/download-completed-csv/${id}/`]) {
        const res = await get(path, b.access)
        expect(res.status, path).toBe(404)
        expect(await body(res)).toEqual({ detail: 'Not found.' })
      }
      for (const path of [`/api/user/search-history/${id}/retry/`, `/api/user/search-history/${id}/download-delta/`]) {
        expect((await post(path, b.access, {})).status, path).toBe(404)
      }
      expect((await post('/api/download-csv/', b.access, { search_id: id, export_format: 'csv' })).status).toBe(404)
    }
    // b's own preview was never exported: it addresses nothing, least of all a's export
    expect((await get(`/api/download-status/${own.search_id}/`, b.access)).status).toBe(404)
    expect(await balance(svc, b.access)).toBe(1000)
    expect(await exportRows(b.id)).toHaveLength(0)
  })
})

describe('minimal shapes', () => {
  it('the profile has the fields of 2.1, its plan those of 2.2; the login’s user is the smaller object', async () => {
    const u = await paidUser()
    const userFields = [
      'can_download_fresh_exports',
      'current_period_end',
      'current_period_start',
      'email',
      'first_name',
      'id',
      'last_name',
      'preferred_language',
      'purchased_credits_available',
      'purchased_credits_expiring_soon',
      'remaining_credits',
      'subscription_plan',
      'total_credits',
    ]
    const planFields = [
      'allows_fresh_exports',
      'created_at',
      'is_active',
      'is_sellable',
      'link_expiration_days',
      'monthly_credits',
      'plan_type',
      'price_id',
      'price_per_month',
      'product_id',
      'updated_at',
    ]
    for (const res of [
      await get('/api/user/profile/', u.access),
      await svc.request('/api/user/profile/', { method: 'PATCH', token: u.access, json: { first_name: 'Ada' } }),
    ]) {
      expect(res.status).toBe(200)
      const p = await body<{ subscription_plan: object }>(res)
      expect(Object.keys(p).sort()).toEqual(userFields)
      expect(Object.keys(p.subscription_plan).sort()).toEqual(planFields)
    }

    const signedIn = await login(svc, u.email, u.password)
    expect(Object.keys(signedIn).sort()).toEqual(['access', 'refresh', 'user'])
    expect(signedIn.user).toEqual({
      id: String(u.id),
      email: u.email,
      first_name: 'Ada',
      last_name: '',
      remaining_credits: expect.any(Number),
      subscription_plan: 'Pro',
    })
    const refreshed = await svc.request('/api/token/refresh/', { method: 'POST', json: { refresh: signedIn.refresh } })
    expect(refreshed.status).toBe(200)
    expect(Object.keys(await body(refreshed)).sort()).toEqual(['access', 'refresh'])
  })

  it('API keys carry the fields of 2.3, and a field beyond `expiry` is a 400 on that field', async () => {
    const u = await signUp(svc)
    const created = await post('/api/user/api-keys/', u.access, { expiry: '2099-01-01T00:00:00Z' })
    expect(created.status).toBe(201)
    const c = await body<{ token: string; api_key: object }>(created)
    expect(Object.keys(c).sort()).toEqual(['api_key', 'token'])
    expect(Object.keys(c.api_key).sort()).toEqual(['created', 'expiry', 'id', 'token_key'])
    const list = await body<object[]>(await get('/api/user/api-keys/', u.access))
    expect(list).toHaveLength(1)
    expect(Object.keys(list[0]!).sort()).toEqual(['created', 'expiry', 'id', 'token_key'])

    const refused = await post('/api/user/api-keys/', u.access, { scope: 'read', monthly_credit_cap: 5, name: 'ci' })
    expect(refused.status).toBe(400)
    const errors = (await body<{ errors: Record<string, string[]> }>(refused)).errors
    expect(Object.keys(errors).sort()).toEqual(['monthly_credit_cap', 'name', 'scope'])
    expect(await body<object[]>(await get('/api/user/api-keys/', u.access))).toHaveLength(1)
    // still authenticated first
    expect((await svc.request('/api/user/api-keys/', { method: 'POST', json: { scope: 'read' } })).status).toBe(401)
  })

  it('the export request refuses the extension fields, each on its own field, and charges nothing', async () => {
    const u = await paidUser(1000)
    const p = await preview(u, 'countries=TH')
    const res = await post('/api/download-csv/', u.access, {
      search_id: p.search_id,
      export_format: 'csv',
      skip_owned: true,
      columns: ['name'],
      file_locale: 'de',
    })
    expect(res.status).toBe(400)
    expect(Object.keys((await body<{ errors: object }>(res)).errors).sort()).toEqual(['columns', 'file_locale', 'skip_owned'])
    expect(await balance(svc, u.access)).toBe(1000)
    expect(await exportRows(u.id)).toHaveLength(0)
  })

  it('the extension query parameters are unknown parameters: 400 on each, as the real service has none of them', async () => {
    const u = await paidUser(1000)
    const territory = 'within=' + encodeURIComponent('{"type":"Polygon","coordinates":[[[0,0],[1,0],[1,1],[0,0]]]}')
    const res = await get(`/api/companies/?countries=TH&near=13.7,100.5,10&${territory}&exclude_lists=1`, u.access)
    expect(res.status).toBe(400)
    expect(Object.keys((await body<{ errors: object }>(res)).errors).sort()).toEqual(['exclude_lists', 'near', 'within'])
    const places = await get('/api/locations/search/?q=Bang&lng=th', u.access)
    expect(places.status).toBe(400)
    expect(Object.keys((await body<{ errors: object }>(places)).errors)).toEqual(['lng'])
    // the same requests without them are answered
    expect((await get('/api/companies/?countries=TH', u.access)).status).toBe(200)
    expect((await get('/api/locations/search/?q=Bang', u.access)).status).toBe(200)
  })

  it('geography: level 2 paginated, location search 200 without a body; errors carry `detail` only', async () => {
    const u = await paidUser()
    const res = await get('/api/locations/level2/?country=DE', u.access)
    expect(res.status).toBe(200)
    const page = await body<{ count: number; next: null; previous: null; results: object[] }>(res)
    expect(Object.keys(page).sort()).toEqual(['count', 'next', 'previous', 'results'])
    expect(page).toMatchObject({ next: null, previous: null })
    expect(page.count).toBe(page.results.length)
    expect(page.count).toBeGreaterThan(0)
    expect(Object.keys(page.results[0]!).sort()).toEqual(['code', 'id', 'level1_id', 'level1_name', 'name'])

    const search = await get('/api/locations/search/?q=ber&country=DE', u.access)
    expect(search.status).toBe(200)
    expect(await search.text()).toBe('')

    const unknown = await get('/api/no-such-thing/', u.access)
    expect(unknown.status).toBe(404)
    expect(await body(unknown)).toEqual({ detail: 'Not found.' })
    const invalid = await get('/api/locations/level2/?country=XXX', u.access)
    expect(invalid.status).toBe(400)
    expect(Object.keys(await body(invalid)).sort()).toEqual(['detail', 'errors'])
  })
})
