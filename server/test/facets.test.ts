import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { body, signUp, type TestUser } from './account-helpers.ts'
import { startTestService, type TestService } from './helpers.ts'

// The facets extension (coverage before paying): every bucket is the count of the search narrowed to it.

interface Facets {
  totalCount: number
  with_email: number
  with_phone: number
  with_website: number
  level1: { id: number; name: string; country: string; count: number }[] | null
  categories: { id: number; name: string; count: number }[]
}

let svc: TestService
let user: TestUser
beforeAll(async () => {
  svc = await startTestService()
  user = await signUp(svc)
})
afterAll(() => svc?.close())

const facets = async (query: string) => {
  const res = await svc.request(`/api/companies/facets/?${query}`, { token: user.access })
  expect(res.status, await res.clone().text()).toBe(200)
  return body<Facets>(res)
}
const count = async (query: string) =>
  (await body<{ totalCount: number }>(await svc.request(`/api/companies/?${query}`, { token: user.access }))).totalCount

describe('GET /api/companies/facets/ (extension)', () => {
  it('is listed at /api/capabilities/ and documented as an extension in /api/schema/', async () => {
    const caps = await body<Record<string, { version: number }>>(await svc.request('/api/capabilities/', { token: user.access }))
    expect(caps.facets).toMatchObject({ version: 1 })
    const schema = await body<{ paths: Record<string, Record<string, Record<string, unknown>>> }>(await svc.request('/api/schema/'))
    expect(schema.paths['/api/companies/facets']!.get!['x-extension']).toBe(true)
    expect(schema.paths['/api/capabilities']!.get!['x-extension']).toBe(true)
    expect((await svc.request('/api/capabilities/')).status).toBe(401)
    expect((await svc.request('/api/companies/facets/?countries=DE')).status).toBe(401)
  })

  it('counts contact data, top regions and top categories, each equal to the narrowed search', async () => {
    const base = 'countries=DE&countries=FR'
    const f = await facets(`${base}&lang=de`)
    expect(f.totalCount).toBe(await count(base))
    expect(f.totalCount).toBeGreaterThan(0)
    expect(f.with_email).toBe(await count(`${base}&email=true`))
    expect(f.with_phone).toBe(await count(`${base}&phone_number=true`))
    expect(f.with_website).toBe(await count(`${base}&website=true`))
    expect(f.level1!.length).toBeGreaterThan(1)
    expect(f.level1!.length).toBeLessThanOrEqual(8)
    expect(new Set(f.level1!.map((r) => r.country))).toEqual(new Set(['DE', 'FR']))
    const sorted = [...f.level1!].sort((a, b) => b.count - a.count)
    expect(f.level1).toEqual(sorted)
    for (const r of f.level1!.slice(0, 3)) expect(r.count).toBe(await count(`${base}&level1_location=${r.id}`))
    expect(f.categories.length).toBe(8)
    for (const cat of f.categories.slice(0, 3)) expect(cat.count).toBe(await count(`${base}&category=${cat.id}`))
    // names in the asked language
    const en = await facets(base)
    expect(en.categories.map((c) => c.id)).toEqual(f.categories.map((c) => c.id))
    expect(en.categories.map((c) => c.name)).not.toEqual(f.categories.map((c) => c.name))
  })

  it('splits by the chosen categories and regions only, and gives no regions when a county or city is chosen', async () => {
    const top = (await facets('countries=DE')).categories.slice(0, 2).map((c) => c.id)
    const chosen = `countries=DE&category=${top[0]}&category=${top[1]}&main_activity_only=true`
    const f = await facets(chosen)
    expect(f.categories.map((c) => c.id).sort()).toEqual([...top].sort())
    for (const cat of f.categories) expect(cat.count).toBe(await count(`countries=DE&category=${cat.id}&main_activity_only=true`))
    const regions = (await facets('countries=DE')).level1!.slice(0, 2)
    const split = await facets(`countries=DE&level1_location=${regions[0]!.id}&level1_location=${regions[1]!.id}`)
    expect(split.level1!.map((r) => r.id).sort()).toEqual(regions.map((r) => r.id).sort())
    const level2 = await body<{ id: number }[]>(
      await svc.request(`/api/locations/level2/?states=${regions[0]!.id}`, { token: user.access }),
    )
    expect((await facets(`countries=DE&level2_location=${level2[0]!.id}`)).level1).toBeNull()
  })

  it('refuses bad filters with 400 per field', async () => {
    const res = await svc.request('/api/companies/facets/?countries=Germany', { token: user.access })
    expect(res.status).toBe(400)
    expect(await body(res)).toMatchObject({ errors: { countries: [expect.any(String)] } })
  })
})
