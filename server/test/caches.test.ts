import http from 'node:http'
import { gunzipSync, inflateSync } from 'node:zlib'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestService, type TestService } from './helpers.ts'
import { advanceClock, body, login, signUp, type TestUser } from './account-helpers.ts'
import { sharedDatabase } from './instances.ts'

/**
 * Issue 13: what the service keeps in memory to stay fast under load must never show stale data
 * or let an ended credential in. Search results are cached by the data version (migration 017,
 * modules/search/data-version.ts); credentials are checked in the database on every request (only a token's
 * signature check is remembered). These tests warm every cache first, then change the data or end
 * the credential, and expect the very next request to see it. Speed is the bench's business.
 */

let svc: TestService
beforeAll(async () => {
  svc = await startTestService()
})
afterAll(async () => {
  await svc?.close()
})

const get = async <T>(token: string, p: string) => {
  const res = await svc.request(p, { token })
  expect(res.status, `${p}: ${await res.clone().text()}`).toBe(200)
  return body<T>(res)
}
const previewCount = async (u: TestUser, query: string) =>
  (await get<{ totalCount: number }>(u.access, `/api/companies/?${query}`)).totalCount
const facetsCount = async (u: TestUser, query: string) =>
  (await get<{ totalCount: number }>(u.access, `/api/companies/facets/?${query}`)).totalCount
const ownedTotal = async (u: TestUser, query: string) =>
  (await get<{ totalCount: number }>(u.access, `/api/companies/owned/?${query}`)).totalCount
const countryCount = async (u: TestUser, code: string) =>
  (await get<{ code: string; company_count: number }[]>(u.access, '/api/locations/countries/')).find((c) => c.code === code)!.company_count

/** A copy of one company of `country`, written straight into the table as a person with psql would. */
async function insertByHand(country: string, createdAt: Date) {
  const { rows: columns } = await svc.deps.db.query<{ name: string }>(
    `SELECT column_name AS name FROM information_schema.columns
      WHERE table_schema = current_schema() AND table_name = 'companies' AND column_name NOT IN ('id', 'place_id', 'created_at')`,
  )
  const list = columns.map((c) => c.name).join(', ')
  await svc.deps.db.query(
    `INSERT INTO companies (${list}, place_id, created_at)
     SELECT ${list}, 'ChIJhand' || md5(random()::text), $2 FROM companies WHERE country_code = $1 ORDER BY id LIMIT 1`,
    [country, createdAt.toISOString()],
  )
}

describe('search results cached by data version', () => {
  it('a warm preview, its facets, owned count and the countries list show companies added afterwards at once', async () => {
    const u = await signUp(svc)
    const q = 'countries=DE'
    const before = await previewCount(u, q)
    const lastPage = Math.ceil(before / 50)
    const page = () => get<{ results: unknown[] }>(u.access, `/api/companies/?${q}&paginate=true&page=${lastPage}`)
    for (let i = 0; i < 3; i++) {
      expect((await page()).results).toHaveLength(before - 50 * (lastPage - 1))
      expect(await previewCount(u, q)).toBe(before)
      expect(await facetsCount(u, q)).toBe(before)
      expect(await ownedTotal(u, q)).toBe(before)
      expect(await countryCount(u, 'DE')).toBe(before)
    }
    const added = await svc.request('/api/_test/new-companies/', { method: 'POST', token: u.access, json: { count: 7, countries: ['DE'] } })
    expect(added.status).toBe(201)
    expect(await previewCount(u, q)).toBe(before + 7)
    expect(await facetsCount(u, q)).toBe(before + 7)
    expect(await ownedTotal(u, q)).toBe(before + 7)
    expect(await countryCount(u, 'DE')).toBe(before + 7)
    // the rows too: the newest companies come last in id order, onto what was the last page
    expect((await page()).results).toHaveLength(Math.min(50, before + 7 - 50 * (lastPage - 1)))
  })

  it('a cached preview answers the same JSON gzipped (spliced from the cached leads) as plain', async () => {
    const u = await signUp(svc)
    const raw = (encoding: string) =>
      new Promise<{ headers: http.IncomingHttpHeaders; body: Buffer }>((resolve, reject) => {
        http
          .get(
            `${svc.url}/api/companies/?countries=DE&paginate=true&page=2&lang=de`,
            { headers: { Authorization: `Bearer ${u.access}`, 'Accept-Encoding': encoding } },
            (res) => {
              const chunks: Buffer[] = []
              res.on('data', (d: Buffer) => chunks.push(d))
              res.on('end', () => resolve({ headers: res.headers, body: Buffer.concat(chunks) }))
            },
          )
          .on('error', reject)
      })
    const plain = await raw('identity')
    expect(plain.headers['content-encoding']).toBeUndefined()
    for (let i = 0; i < 2; i++) {
      const zipped = await raw('gzip')
      expect(zipped.headers['content-encoding']).toBe('gzip')
      expect(zipped.headers['content-length']).toBe(String(zipped.body.length))
      expect(JSON.parse(gunzipSync(zipped.body).toString('utf8'))).toEqual(JSON.parse(plain.body.toString('utf8')))
    }
    const deflated = await raw('deflate')
    expect(JSON.parse(inflateSync(deflated.body).toString('utf8'))).toEqual(JSON.parse(plain.body.toString('utf8')))
    expect(JSON.parse(plain.body.toString('utf8'))).toMatchObject({ page: 2, page_size: 50, results: expect.any(Array) })
  })

  it('a company written into the database by hand (no service involved) shows at once', async () => {
    const u = await signUp(svc)
    const q = 'countries=FR&email=true'
    const before = await previewCount(u, 'countries=FR')
    await previewCount(u, q)
    await insertByHand('FR', new Date(Date.now() - 60_000))
    expect(await previewCount(u, 'countries=FR')).toBe(before + 1)
    expect(await facetsCount(u, 'countries=FR')).toBe(before + 1)
  })

  it('a company created after the service clock is counted once the clock passes it, with no write in between', async () => {
    const u = await signUp(svc)
    const q = 'countries=NL'
    const before = await previewCount(u, q)
    const now = new Date(
      ((await (await svc.request('/api/_test/clock/', { method: 'POST', json: { advance_seconds: 0 } })).json()) as { now: string }).now,
    )
    await insertByHand('NL', new Date(now.getTime() + 86_400_000))
    // not yet: it is created tomorrow (asked twice, the second time from whatever was kept)
    expect(await previewCount(u, q)).toBe(before)
    expect(await previewCount(u, q)).toBe(before)
    expect(await facetsCount(u, q)).toBe(before)
    await advanceClock(svc, 2 * 86_400)
    const later = { ...u, ...(await login(svc, u.email, u.password)) } // the access token died meanwhile
    expect(await previewCount(later, q)).toBe(before + 1)
    expect(await facetsCount(later, q)).toBe(before + 1)
    expect(await countryCount(later, 'NL')).toBe(before + 1)
  })
})

describe('credentials with every cache warm', () => {
  const profile = (authorization: string) => svc.request('/api/user/profile/', { headers: { Authorization: authorization } })
  const warm = async (authorization: string) => {
    for (let i = 0; i < 3; i++) expect((await profile(authorization)).status).toBe(200)
    expect((await svc.request('/api/companies/?countries=DE', { headers: { Authorization: authorization } })).status).toBe(200)
  }

  it('a signed-out session’s access token is refused on the next request', async () => {
    const u = await signUp(svc)
    await warm(`Bearer ${u.access}`)
    expect((await svc.request('/api/auth/logout/', { method: 'POST', json: { refresh: u.refresh } })).status).toBe(204)
    expect((await profile(`Bearer ${u.access}`)).status).toBe(401)
  })

  it('a token whose signature was checked before still expires on time', async () => {
    const u = await signUp(svc)
    await warm(`Bearer ${u.access}`)
    await advanceClock(svc, 60 * 60 - 5)
    expect((await profile(`Bearer ${u.access}`)).status).toBe(200)
    await advanceClock(svc, 10)
    expect((await profile(`Bearer ${u.access}`)).status).toBe(401)
  })

  it('a revoked API key is refused on the next request', async () => {
    const u = await signUp(svc)
    const { token, api_key } = await body<{ token: string; api_key: { id: string } }>(
      await svc.request('/api/user/api-keys/', { method: 'POST', token: u.access, json: {} }),
    )
    await warm(`Token ${token}`)
    expect((await svc.request(`/api/user/api-keys/${api_key.id}/`, { method: 'DELETE', token: u.access })).status).toBe(204)
    expect((await profile(`Token ${token}`)).status).toBe(401)
  })
})

// Several processes cannot share the embedded database: this part runs in the PostgreSQL run only.
const twoInstances = process.env.DATABASE_URL ? describe : () => undefined
twoInstances('two instances on one PostgreSQL, caches warm on both', () => {
  let shared: Awaited<ReturnType<typeof sharedDatabase>> | undefined
  afterAll(async () => {
    await shared?.close()
  })

  it('what one instance ends or adds, the other sees on its very next request', async () => {
    shared = await sharedDatabase('leads_caches')
    const A = await shared.instance().ready // seeds first
    const B = await shared.instance().ready
    const call = (base: string, p: string, init: { auth?: string; json?: unknown; method?: string } = {}) =>
      fetch(`${base}${p}`, {
        method: init.method ?? (init.json === undefined ? 'GET' : 'POST'),
        headers: {
          ...(init.auth ? { Authorization: init.auth } : {}),
          ...(init.json === undefined ? {} : { 'Content-Type': 'application/json' }),
        },
        body: init.json === undefined ? undefined : JSON.stringify(init.json),
      })
    const login = async (base: string) => {
      const res = await call(base, '/api/auth/login/', { json: { username: 'demo@example.com', password: 'demo-password' } })
      expect(res.status).toBe(200)
      return (await res.json()) as { access: string; refresh: string }
    }
    const status = async (base: string, p: string, auth: string) => (await call(base, p, { auth })).status
    /** Profile and preview several times on B: the token's signature memo and the preview cache are warm. */
    const warmOnB = async (auth: string) => {
      for (let i = 0; i < 3; i++) {
        expect(await status(B.url, '/api/user/profile/', auth)).toBe(200)
        expect(await status(B.url, '/api/companies/?countries=US&email=true', auth)).toBe(200)
      }
    }
    const owner = await login(A.url)

    // companies added through A: B's warm preview and countries list show them at once
    const frCount = async () =>
      ((await (await call(B.url, '/api/companies/?countries=FR', { auth: `Bearer ${owner.access}` })).json()) as { totalCount: number })
        .totalCount
    const before = await frCount()
    expect(await frCount()).toBe(before)
    const added = await call(A.url, '/api/_test/new-companies/', { auth: `Bearer ${owner.access}`, json: { count: 9, countries: ['FR'] } })
    expect(added.status).toBe(201)
    expect(await frCount()).toBe(before + 9)

    // an API key revoked on A
    const created = await call(A.url, '/api/user/api-keys/', { auth: `Bearer ${owner.access}`, json: {} })
    const { token: key, api_key } = (await created.json()) as { token: string; api_key: { id: string } }
    await warmOnB(`Token ${key}`)
    expect((await call(A.url, `/api/user/api-keys/${api_key.id}/`, { auth: `Bearer ${owner.access}`, method: 'DELETE' })).status).toBe(204)
    expect(await status(B.url, '/api/user/profile/', `Token ${key}`)).toBe(401)

    // a session signed out on A
    const signedOut = await login(A.url)
    await warmOnB(`Bearer ${signedOut.access}`)
    expect((await call(A.url, '/api/auth/logout/', { json: { refresh: signedOut.refresh } })).status).toBe(204)
    expect(await status(B.url, '/api/user/profile/', `Bearer ${signedOut.access}`)).toBe(401)

    // a session ended on A by presenting a rotated refresh token again (after the 30 s grace window)
    const replayed = await login(B.url)
    const rotated = await call(A.url, '/api/token/refresh/', { json: { refresh: replayed.refresh } })
    expect(rotated.status).toBe(200)
    const successor = (await rotated.json()) as { access: string }
    await warmOnB(`Bearer ${replayed.access}`)
    await warmOnB(`Bearer ${successor.access}`)
    expect((await call(A.url, '/api/_test/clock/', { json: { advance_seconds: 31 } })).status).toBe(200)
    expect((await call(A.url, '/api/token/refresh/', { json: { refresh: replayed.refresh } })).status).toBe(401)
    expect(await status(B.url, '/api/user/profile/', `Bearer ${replayed.access}`)).toBe(401)
    expect(await status(B.url, '/api/user/profile/', `Bearer ${successor.access}`)).toBe(401)

    // the password changed on A ends every other session, on B too
    const other = await login(B.url)
    await warmOnB(`Bearer ${other.access}`)
    const changed = await call(A.url, '/api/user/password/', {
      auth: `Bearer ${owner.access}`,
      json: { current_password: 'demo-password', new_password: 'a new demo passphrase' },
    })
    expect(changed.status).toBe(200)
    const fresh = (await changed.json()) as { access: string }
    expect(await status(B.url, '/api/user/profile/', `Bearer ${other.access}`)).toBe(401)
    expect(await status(B.url, '/api/user/profile/', `Bearer ${owner.access}`)).toBe(401)
    expect(await status(B.url, '/api/user/profile/', `Bearer ${fresh.access}`)).toBe(200)
  }, 120_000)
})
