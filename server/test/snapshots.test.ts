import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestService, type TestService } from './helpers.ts'
import { body } from './account-helpers.ts'

const TOKEN = 'snapshot-service-token-for-tests'
let svc: TestService
beforeAll(async () => {
  svc = await startTestService({ pageSnapshotToken: TOKEN })
})
afterAll(async () => {
  await svc?.close()
})

const get = (p: string, serviceToken?: string) =>
  svc.request(p, { headers: serviceToken === undefined ? {} : { 'X-Service-Token': serviceToken } })

describe('page snapshots', () => {
  it('assembles the latest snapshot of each section of a country', async () => {
    const res = await get('/api/page-snapshots/de/', TOKEN)
    expect(res.status).toBe(200)
    const snap = await body<{
      country: string
      country_name: string
      generated_at: string
      sections: {
        summary: { company_count: number; with_email: number }
        top_categories: { name: string; name_en: string; company_count: number }[]
        top_cities: { id: string; name: string; company_count: number }[]
      }
    }>(res)
    expect(snap).toMatchObject({ country: 'DE', country_name: 'Germany', language: 'de' })
    expect(Number.isNaN(Date.parse(snap.generated_at))).toBe(false)
    const { rows } = await svc.deps.db.query<{ n: number }>(`SELECT count(*)::int AS n FROM companies WHERE country_code = 'DE'`)
    expect(snap.sections.summary.company_count).toBe(rows[0]!.n)
    expect(snap.sections.top_categories.length).toBeGreaterThan(0)
    expect(snap.sections.top_categories.length).toBeLessThanOrEqual(10)
    // localized in the country's language
    expect(snap.sections.top_categories.some((c) => c.name !== c.name_en)).toBe(true)
    const counts = snap.sections.top_cities.map((c) => c.company_count)
    expect(counts).toEqual([...counts].sort((a, b) => b - a))
  })

  it('a newer snapshot of a section replaces the older one', async () => {
    const later = new Date(svc.deps.clock.now().getTime() + 1000).toISOString()
    await svc.deps.db.query(`INSERT INTO page_snapshots (country_code, section, payload, created_at) VALUES ('FR', 'summary', $1, $2)`, [
      JSON.stringify({ company_count: 42 }),
      later,
    ])
    const snap = await body<{ generated_at: string; sections: { summary: unknown; top_cities: unknown } }>(
      await get('/api/page-snapshots/FR/', TOKEN),
    )
    expect(snap.sections.summary).toEqual({ company_count: 42 })
    expect(snap.sections.top_cities).toBeDefined()
    expect(snap.generated_at).toBe(later)
  })

  it('missing token → 401, wrong token → 403, a user JWT does not count', async () => {
    const missing = await get('/api/page-snapshots/DE/')
    expect(missing.status).toBe(401)
    expect(await body(missing)).toEqual({ detail: expect.any(String), code: expect.any(String) })
    const wrong = await get('/api/page-snapshots/DE/', 'not-the-token')
    expect(wrong.status).toBe(403)
    expect(await body(wrong)).toEqual({ detail: expect.any(String), code: expect.any(String) })
    const bearer = await svc.request('/api/page-snapshots/DE/', { token: 'eyJ.fake.jwt' })
    expect(bearer.status).toBe(401)
  })

  it('unknown country → 404, not a code → 400', async () => {
    expect((await get('/api/page-snapshots/ZZ/', TOKEN)).status).toBe(404)
    expect((await get('/api/page-snapshots/DEU/', TOKEN)).status).toBe(400)
  })

  it('without a configured token the endpoint answers 503', async () => {
    const config = svc.deps.config
    config.pageSnapshotToken = undefined
    try {
      const res = await get('/api/page-snapshots/DE/', TOKEN)
      expect(res.status).toBe(503)
      expect(await body(res)).toEqual({ detail: expect.any(String), code: expect.any(String) })
    } finally {
      config.pageSnapshotToken = TOKEN
    }
  })
})
