import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { CATEGORY_LANGUAGES } from '../src/seed/categories.ts'
import { startTestService, type TestService } from './helpers.ts'
import { body, signUp } from './account-helpers.ts'

let svc: TestService
let token: string
beforeAll(async () => {
  svc = await startTestService()
  token = (await signUp(svc)).access
})
afterAll(async () => {
  await svc?.close()
})

interface Category {
  id: number
  slug: string
  name: string
  name_en: string
}
const get = (p: string, auth = true) => svc.request(p, auth ? { token } : {})
async function list(query: string): Promise<Category[]> {
  const res = await get(`/api/categories/?${query}`)
  expect(res.status, query).toBe(200)
  return body<Category[]>(res)
}

describe('categories', () => {
  it('holds at least 100 categories, each named in English and in every seeded language', async () => {
    const all = await list('limit=100')
    expect(all).toHaveLength(100)
    const { rows } = await svc.deps.db.query<{ n: number; missing: number }>(
      `SELECT count(*)::int AS n,
              count(*) FILTER (WHERE NOT (names ?& $1::text[]))::int AS missing
       FROM categories`,
      [['en', ...CATEGORY_LANGUAGES]],
    )
    expect(rows[0]!.n).toBeGreaterThanOrEqual(100)
    expect(rows[0]!.missing).toBe(0)
    const { rows: languages } = await svc.deps.db.query<{ language: string }>('SELECT DISTINCT language FROM countries')
    for (const { language } of languages) expect(['en', ...CATEGORY_LANGUAGES]).toContain(language)
  })

  it('without q: the first `limit` alphabetically in the asked language, default 20', async () => {
    const en = await list('')
    expect(en).toHaveLength(20)
    const names = en.map((c) => c.name)
    expect(names).toEqual([...names].sort((a, b) => a.localeCompare(b, 'en')))
    const de = await list('lang=de&limit=5')
    expect(de).toHaveLength(5)
    expect(de.map((c) => c.name)).toEqual([...de.map((c) => c.name)].sort((a, b) => a.localeCompare(b, 'de')))
  })

  it('finds a category by its localized name and answers in the asked language', async () => {
    const [dentist] = await list('q=zahnarzt&lang=de')
    expect(dentist).toEqual({ id: expect.any(Number), slug: 'dentist', name: 'Zahnarzt', name_en: 'Dentist' })
    const [fromHebrew] = await list(`q=${encodeURIComponent('מסעד')}&lang=en`)
    expect(fromHebrew).toMatchObject({ slug: 'restaurant', name: 'Restaurant' })
    const thai = await list('q=dentist&lang=th')
    expect(thai[0]).toMatchObject({ slug: 'dentist', name: 'ทันตแพทย์' })
  })

  it('is case- and accent-insensitive and puts prefix matches first', async () => {
    const cafe = await list('q=CAFE&lang=fr')
    expect(cafe[0]).toMatchObject({ slug: 'cafe', name: 'Café' })
    const bake = await list('q=bäck&lang=de')
    expect(bake.map((c) => c.slug)).toContain('bakery')
    const shop = await list('q=shop&limit=100')
    expect(shop.length).toBeGreaterThan(5)
    const restaurants = await list('q=restaur')
    expect(restaurants[0]!.slug).toBe('restaurant')
    expect(restaurants.map((c) => c.slug)).toEqual(expect.arrayContaining(['fast-food-restaurant', 'pizza-restaurant']))
  })

  it('falls back to English for a language without a translation', async () => {
    const [dentist] = await list('q=dentist&lang=sv')
    expect(dentist).toMatchObject({ slug: 'dentist', name: 'Dentist' })
  })

  it('an unmatched q gives an empty list', async () => {
    expect(await list('q=zzzzqqq')).toEqual([])
  })

  it('ids= gives exactly those categories, named in lang, even past the first 100 alphabetically', async () => {
    const firstHundred = new Set((await list('limit=100')).map((c) => c.id))
    const { rows } = await svc.deps.db.query<{ id: number; de: string }>("SELECT id, names->>'de' AS de FROM categories ORDER BY id")
    const outside = rows.find((r) => !firstHundred.has(r.id))
    expect(outside, 'more than 100 categories are seeded').toBeDefined()
    const wanted = [rows[0]!.id, outside!.id]
    const found = await list(`ids=${wanted.join(',')}&lang=de`)
    expect(found.map((c) => c.id).sort((a, b) => a - b)).toEqual(wanted.sort((a, b) => a - b))
    expect(found.find((c) => c.id === outside!.id)!.name).toBe(outside!.de)
    expect(await list(`ids=${rows[0]!.id}&ids=${outside!.id}`)).toHaveLength(2)
    expect((await get('/api/categories/?ids=abc')).status).toBe(400)
  })

  it('rejects a bad limit, language or q with field errors', async () => {
    const res = await get(`/api/categories/?limit=0&lang=xx&q=${'a'.repeat(101)}`)
    expect(res.status).toBe(400)
    const { errors } = await body<{ detail: string; errors: Record<string, string[]> }>(res)
    expect(Object.keys(errors).sort()).toEqual(['lang', 'limit', 'q'])
    expect((await get('/api/categories/?limit=101')).status).toBe(400)
    expect((await get('/api/categories/?limit=abc')).status).toBe(400)
  })

  it('refuses a NUL byte in q or limit with 400 on the field', async () => {
    for (const [query, field] of [
      ['q=caf%00e', 'q'],
      ['q=%00', 'q'],
      ['limit=5%00', 'limit'],
    ] as const) {
      const res = await get(`/api/categories/?${query}`)
      expect(res.status, query).toBe(400)
      const { errors } = await body<{ errors: Record<string, string[]> }>(res)
      expect(errors[field], query).toEqual(expect.arrayContaining([expect.stringMatching(/NUL/)]))
    }
  })

  it('needs a credential', async () => {
    expect((await get('/api/categories/', false)).status).toBe(401)
  })
})
