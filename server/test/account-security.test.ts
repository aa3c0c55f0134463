import http from 'node:http'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { startTestService, type TestService } from './helpers.ts'
import {
  advanceClock,
  body,
  confirmationToken,
  confirmFromOutbox,
  login,
  newestMail,
  preview,
  profile,
  signUp,
  uniqueEmail,
} from './account-helpers.ts'

/**
 * Issue 9's attacks, each reproduced over real HTTP and shown refused: account takeover with an API
 * key, password guessing, reset floods, free-credit farming, rate limits multiplied by keys,
 * sessions that outlive sign-out.
 */

/** A JSON request from a chosen loopback source address (127.0.0.x): "another client" for per-address budgets. */
function requestFrom(
  svc: TestService,
  from: string,
  p: string,
  { method = 'GET', json, token }: { method?: string; json?: unknown; token?: string } = {},
): Promise<{ status: number; body: Record<string, unknown>; headers: http.IncomingHttpHeaders }> {
  const url = new URL(svc.url + p)
  const payload = json === undefined ? undefined : JSON.stringify(json)
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        host: url.hostname,
        port: url.port,
        path: url.pathname + url.search,
        method,
        localAddress: from,
        agent: false,
        headers: {
          ...(payload ? { 'Content-Type': 'application/json', 'Content-Length': Buffer.byteLength(payload) } : {}),
          ...(token ? { Authorization: `Bearer ${token}` } : {}),
        },
      },
      (res) => {
        let text = ''
        res.setEncoding('utf8')
        res.on('data', (d: string) => (text += d))
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, body: text ? (JSON.parse(text) as Record<string, unknown>) : {}, headers: res.headers }),
        )
      },
    )
    req.on('error', reject)
    req.end(payload)
  })
}

let svc: TestService
beforeAll(async () => {
  svc = await startTestService()
})
afterAll(async () => {
  await svc?.close()
})

const post = (p: string, json: unknown, token?: string) => svc.request(p, { method: 'POST', json, token })
const patchProfile = (json: unknown, token: string) => svc.request('/api/user/profile/', { method: 'PATCH', json, token })

async function newKey(access: string): Promise<string> {
  const res = await post('/api/user/api-keys/', {}, access)
  expect(res.status).toBe(201)
  return (await body<{ token: string }>(res)).token
}

describe('credentials need the password (takeover with a stolen API key)', () => {
  it('fails at the first step: an API key cannot change the email, even with the password', async () => {
    const owner = await signUp(svc)
    const key = await newKey(owner.access)
    for (const json of [{ email: 'attacker@example.com' }, { email: 'attacker@example.com', current_password: owner.password }]) {
      const res = await patchProfile(json, `Token ${key}`)
      expect(res.status).toBe(403)
      expect(await body(res)).toMatchObject({ code: 'api_key_not_allowed' })
    }
    // nor the password, nor mint a key that would outlive the stolen one
    expect(
      (await post('/api/user/password/', { current_password: owner.password, new_password: 'attacker-owns-it' }, `Token ${key}`)).status,
    ).toBe(403)
    expect((await post('/api/user/api-keys/', {}, `Token ${key}`)).status).toBe(403)
    // the key still reads, and the owner's address is untouched
    expect((await profile(svc, `Token ${key}`)).email).toBe(owner.email)
  })

  it('a session needs the current password: missing or wrong is a field error, nothing changes', async () => {
    const u = await signUp(svc)
    const missing = await patchProfile({ email: uniqueEmail('new') }, u.access)
    expect(missing.status).toBe(400)
    expect(await body(missing)).toMatchObject({ error_codes: { current_password: [{ code: 'password_required' }] } })
    const wrong = await patchProfile({ email: uniqueEmail('new'), current_password: 'not it at all' }, u.access)
    expect(wrong.status).toBe(400)
    expect(await body(wrong)).toMatchObject({ error_codes: { current_password: [{ code: 'wrong_password' }] } })
    expect(await profile(svc, u.access)).toMatchObject({ email: u.email, pending_email: null })
  })

  it('the old address hears of it, the new one must confirm, and only the newest request can be confirmed', async () => {
    const u = await signUp(svc)
    const first = uniqueEmail('first')
    const second = uniqueEmail('second')
    expect((await patchProfile({ email: first, current_password: u.password }, u.access)).status).toBe(200)
    const firstToken = await confirmationToken(svc, first)
    expect(await newestMail(svc, u.email)).toContain(first) // the notice to the old address
    expect((await patchProfile({ email: second, current_password: u.password }, u.access)).status).toBe(200)
    // the first link no longer applies; the second does
    const stale = await post('/api/auth/confirm-email/', { token: firstToken })
    expect(stale.status).toBe(400)
    expect(await body(stale)).toMatchObject({ error_codes: { token: [{ code: 'confirmation_invalid' }] } })
    await confirmFromOutbox(svc, second)
    expect(await profile(svc, u.access)).toMatchObject({ email: second, pending_email: null })
    // the new address signs in; the old one no longer does
    await login(svc, second, u.password)
    expect((await post('/api/auth/login/', { username: u.email, password: u.password })).status).toBe(401)
  })

  it('a password change ends every session, hands the caller a new one, and lists (and mails) the keys that still work', async () => {
    const u = await signUp(svc)
    const key = await newKey(u.access)
    const other = await login(svc, u.email, u.password) // a second session, e.g. another browser
    const res = await post('/api/user/password/', { current_password: u.password, new_password: 'a brand new passphrase' }, u.access)
    expect(res.status).toBe(200)
    const answer = await body<{ access: string; refresh: string; api_keys: Array<{ prefix: string }> }>(res)
    expect(answer.api_keys).toEqual([expect.objectContaining({ prefix: key.slice(0, answer.api_keys[0]!.prefix.length) })])
    for (const old of [u.access, other.access]) expect((await svc.request('/api/user/profile/', { token: old })).status).toBe(401)
    for (const old of [u.refresh, other.refresh]) expect((await post('/api/token/refresh/', { refresh: old })).status).toBe(401)
    expect((await svc.request('/api/user/profile/', { token: answer.access })).status).toBe(200)
    expect((await post('/api/token/refresh/', { refresh: answer.refresh })).status).toBe(200)
    const mail = await newestMail(svc, u.email)
    expect(mail).toContain('1 API key still works:')
    expect(mail).toContain(answer.api_keys[0]!.prefix)
    await login(svc, u.email, 'a brand new passphrase')
    const wrong = await post(
      '/api/user/password/',
      { current_password: 'not the password', new_password: 'another new one' },
      answer.access,
    )
    expect(await body(wrong)).toMatchObject({ error_codes: { current_password: [{ code: 'wrong_password' }] } })
  })
})

describe('verified sign-up (free-credit farming)', () => {
  it('an unconfirmed account signs in but has no credits and cannot export; confirming grants them once', async () => {
    const u = await signUp(svc, {}, { confirm: false })
    const me = await profile(svc, u.access)
    expect(me).toMatchObject({ email_confirmed: false, remaining_credits: 0 })
    const { search_id } = await preview(svc, u.access, 'countries=DE&email=true')
    const refused = await post('/api/download-csv/', { search_id, export_format: 'csv', max_leads: 5 }, u.access)
    expect(refused.status).toBe(403)
    expect(await body(refused)).toMatchObject({ code: 'email_not_confirmed' })
    // resend works while unconfirmed; either link confirms; a second use grants nothing more
    expect((await post('/api/auth/confirm-email/resend/', {}, u.access)).status).toBe(202)
    const token = await confirmationToken(svc, u.email)
    expect((await post('/api/auth/confirm-email/', { token })).status).toBe(200)
    // the link opened again (or first by a mail scanner) says there is nothing left to do
    const again = await post('/api/auth/confirm-email/', { token })
    expect(again.status).toBe(409)
    expect(await body(again)).toMatchObject({ code: 'already_confirmed' })
    expect(await profile(svc, u.access)).toMatchObject({ email_confirmed: true, remaining_credits: 100 })
    expect((await post('/api/auth/confirm-email/resend/', {}, u.access)).status).toBe(409)
    const started = await post('/api/download-csv/', { search_id, export_format: 'csv', max_leads: 5 }, u.access)
    expect(started.status).toBe(202)
  })
})

describe('API keys', () => {
  it('an account holds at most 25 active keys: number 26 is refused until one is revoked', async () => {
    const u = await signUp(svc)
    const ids: string[] = []
    for (let i = 0; i < 25; i++) {
      const res = await post('/api/user/api-keys/', {}, u.access)
      expect(res.status).toBe(201)
      ids.push((await body<{ api_key: { id: string } }>(res)).api_key.id)
    }
    const over = await post('/api/user/api-keys/', {}, u.access)
    expect(over.status).toBe(400)
    expect(await body(over)).toMatchObject({ error_codes: { non_field_errors: [{ code: 'api_key_limit', limit: 25 }] } })
    expect((await svc.request(`/api/user/api-keys/${ids[0]}/`, { method: 'DELETE', token: u.access })).status).toBe(204)
    expect((await post('/api/user/api-keys/', {}, u.access)).status).toBe(201)
  })

  it('concurrent creations cannot pass the cap together', async () => {
    const u = await signUp(svc)
    for (let i = 0; i < 23; i++) expect((await post('/api/user/api-keys/', {}, u.access)).status).toBe(201)
    const statuses = (await Promise.all(Array.from({ length: 6 }, () => post('/api/user/api-keys/', {}, u.access)))).map((r) => r.status)
    expect(statuses.filter((s) => s === 201)).toHaveLength(2)
    expect(statuses.filter((s) => s === 400)).toHaveLength(4)
  })
})

describe('sessions', () => {
  it('two refreshes at once both succeed with the same new refresh token; a reuse after the grace window ends the session', async () => {
    const u = await signUp(svc)
    const [a, b] = await Promise.all([
      post('/api/token/refresh/', { refresh: u.refresh }),
      post('/api/token/refresh/', { refresh: u.refresh }),
    ])
    expect([a.status, b.status]).toEqual([200, 200])
    const pa = await body<{ access: string; refresh: string }>(a)
    const pb = await body<{ access: string; refresh: string }>(b)
    expect(pa.refresh).toBe(pb.refresh)
    expect((await svc.request('/api/user/profile/', { token: pb.access })).status).toBe(200)
    await advanceClock(svc, 31)
    const replay = await post('/api/token/refresh/', { refresh: u.refresh })
    expect(replay.status).toBe(401)
    // the family is ended: its access tokens at once, its newest refresh token too
    expect((await svc.request('/api/user/profile/', { token: pa.access })).status).toBe(401)
    expect((await post('/api/token/refresh/', { refresh: pa.refresh })).status).toBe(401)
  })

  it('many refreshes of one token at once all succeed with the same successor; the session lives on', async () => {
    const u = await signUp(svc)
    const answers = await Promise.all(Array.from({ length: 12 }, () => post('/api/token/refresh/', { refresh: u.refresh })))
    expect(answers.map((a) => a.status)).toEqual(answers.map(() => 200))
    const pairs = await Promise.all(answers.map((a) => body<{ access: string; refresh: string }>(a)))
    expect(new Set(pairs.map((p) => p.refresh)).size).toBe(1)
    expect((await svc.request('/api/user/profile/', { token: pairs[0]!.access })).status).toBe(200)
    expect((await post('/api/token/refresh/', { refresh: pairs[0]!.refresh })).status).toBe(200)
  })

  it('a refresh that read the clock before the rotation it waited on is concurrent, not a replay', async () => {
    const u = await signUp(svc)
    const first = await post('/api/token/refresh/', { refresh: u.refresh })
    expect(first.status).toBe(200)
    // what the loser of a race sees: its "now" predates the winner's rotation by a moment
    const clock = svc.deps.clock
    const real = clock.now.bind(clock)
    const spy = vi.spyOn(clock, 'now').mockImplementation(() => new Date(real().getTime() - 1500))
    try {
      const late = await post('/api/token/refresh/', { refresh: u.refresh })
      expect(late.status).toBe(200)
      expect((await body<{ refresh: string }>(late)).refresh).toBe((await body<{ refresh: string }>(first)).refresh)
    } finally {
      spy.mockRestore()
    }
  })

  it('sign-out at the service: the refresh token and the session’s access tokens are refused at once; other sessions live on', async () => {
    const u = await signUp(svc)
    const other = await login(svc, u.email, u.password)
    const out = await post('/api/auth/logout/', { refresh: u.refresh })
    expect(out.status).toBe(204)
    expect((await post('/api/token/refresh/', { refresh: u.refresh })).status).toBe(401)
    const access = await svc.request('/api/user/profile/', { token: u.access })
    expect(access.status).toBe(401)
    expect(await body(access)).toMatchObject({ code: 'token_not_valid' })
    expect((await svc.request('/api/user/profile/', { token: other.access })).status).toBe(200)
    // again: still 204; not a token of this service: 400
    expect((await post('/api/auth/logout/', { refresh: u.refresh })).status).toBe(204)
    expect((await post('/api/auth/logout/', { refresh: 'not-a-token' })).status).toBe(400)
  })
})

describe('throttling', () => {
  let small: TestService
  beforeAll(async () => {
    small = await startTestService({
      rateLimitPerMinute: 8,
      limits: { login: 100, refresh: 100, signup: 100, reset: 5, confirm: 100, failedAuth: 6, public: 4 },
    })
  })
  afterAll(async () => {
    await small?.close()
  })

  it('20 wrong passwords for one account from two addresses: that account gets 429, another account signs in fine', async () => {
    const victim = await signUp(small)
    const bystander = await signUp(small)
    const statuses: number[] = []
    for (let i = 0; i < 20; i++) {
      const from = i % 2 ? '127.0.0.2' : '127.0.0.3'
      statuses.push(
        (await requestFrom(small, from, '/api/auth/login/', { method: 'POST', json: { username: victim.email, password: `guess ${i}` } }))
          .status,
      )
    }
    expect(statuses.slice(0, 5)).toEqual([401, 401, 401, 401, 401])
    expect(statuses.slice(5).every((s) => s === 429)).toBe(true)
    // the right password is refused too while the account waits, and says how long
    const blocked = await requestFrom(small, '127.0.0.4', '/api/auth/login/', {
      method: 'POST',
      json: { username: victim.email, password: victim.password },
    })
    expect(blocked.status).toBe(429)
    expect(blocked.body).toMatchObject({ code: 'throttled', retry_after: expect.any(Number) })
    expect(Number(blocked.headers['retry-after'])).toBeGreaterThan(0)
    // the same addresses sign another account in
    const ok = await requestFrom(small, '127.0.0.2', '/api/auth/login/', {
      method: 'POST',
      json: { username: bystander.email, password: bystander.password },
    })
    expect(ok.status).toBe(200)
    // unknown accounts get the same treatment (the answer does not tell whether one exists)
    const ghost = uniqueEmail('ghost')
    const ghostStatuses: number[] = []
    for (let i = 0; i < 6; i++)
      ghostStatuses.push((await small.request('/api/auth/login/', { method: 'POST', json: { username: ghost, password: 'x' } })).status)
    expect(ghostStatuses).toEqual([401, 401, 401, 401, 401, 429])
    // the wait ends: after it, the right password works and clears the count
    await advanceClock(small, 16 * 60)
    expect(
      (await small.request('/api/auth/login/', { method: 'POST', json: { username: victim.email, password: victim.password } })).status,
    ).toBe(200)
  })

  it('a reset flood from one address: 429 for it after 5, sign-in from it and from others still works, and at most 3 mails an hour', async () => {
    await advanceClock(small, 61)
    const u = await signUp(small)
    const statuses: number[] = []
    for (let i = 0; i < 8; i++)
      statuses.push(
        (await requestFrom(small, '127.0.0.5', '/api/auth/password-reset/', { method: 'POST', json: { email: u.email } })).status,
      )
    expect(statuses).toEqual([202, 202, 202, 202, 202, 429, 429, 429])
    expect(
      (await requestFrom(small, '127.0.0.5', '/api/auth/login/', { method: 'POST', json: { username: u.email, password: u.password } }))
        .status,
    ).toBe(200)
    expect((await requestFrom(small, '127.0.0.6', '/api/auth/password-reset/', { method: 'POST', json: { email: u.email } })).status).toBe(
      202,
    )
    await small.afterAnswerDone() // the mails are written after the answers
    const { readdir } = await import('node:fs/promises')
    const path = await import('node:path')
    const mails = (await readdir(path.join(small.deps.config.dataDir, 'outbox'))).filter((f) => f.endsWith(`-${u.email}.eml`))
    // one sign-up confirmation + at most three resets
    expect(mails).toHaveLength(1 + 3)
  })

  it('all keys and tokens of one account share one budget; more keys buy no more requests', async () => {
    await advanceClock(small, 61)
    const u = await signUp(small)
    const keys = [await newKeyOn(small, u.access), await newKeyOn(small, u.access)]
    await advanceClock(small, 61)
    const statuses: number[] = []
    for (let i = 0; i < 9; i++) statuses.push((await small.request('/api/user/profile/', { token: `Token ${keys[i % 2]}` })).status)
    expect(statuses.slice(0, 8).every((s) => s === 200)).toBe(true)
    expect(statuses[8]).toBe(429)
    expect((await small.request('/api/user/profile/', { token: u.access })).status).toBe(429)
  })

  it('failed authentications are limited per address, before any credential is checked', async () => {
    await advanceClock(small, 61)
    const u = await signUp(small)
    const statuses: number[] = []
    for (let i = 0; i < 7; i++)
      statuses.push((await requestFrom(small, '127.0.0.7', '/api/user/profile/', { token: `lds_guess${i}` })).status)
    expect(statuses).toEqual([401, 401, 401, 401, 401, 401, 429])
    expect((await requestFrom(small, '127.0.0.7', '/api/user/profile/', { token: u.access })).status).toBe(429)
    expect((await requestFrom(small, '127.0.0.8', '/api/user/profile/', { token: u.access })).status).toBe(200)
  })

  it('public documents are limited per address', async () => {
    await advanceClock(small, 61)
    const statuses: number[] = []
    for (let i = 0; i < 5; i++) statuses.push((await requestFrom(small, '127.0.0.9', i % 2 ? '/api/schema/' : '/api/plans/')).status)
    expect(statuses).toEqual([200, 200, 200, 200, 429])
    expect((await requestFrom(small, '127.0.0.10', '/api/plans/')).status).toBe(200)
  })
})

async function newKeyOn(s: TestService, access: string): Promise<string> {
  const res = await s.request('/api/user/api-keys/', { method: 'POST', json: {}, token: access })
  expect(res.status).toBe(201)
  return (await body<{ token: string }>(res)).token
}
