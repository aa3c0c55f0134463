import { readdir, readFile } from 'node:fs/promises'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { startTestService, type TestService } from './helpers.ts'
import { advanceClock, body, confirmFromOutbox, login, profile, signUp, uniqueEmail } from './account-helpers.ts'

let svc: TestService
beforeAll(async () => {
  svc = await startTestService()
})
afterAll(async () => {
  await svc?.close()
})

const post = (p: string, json: unknown, token?: string) => svc.request(p, { method: 'POST', json, token })

describe('sign-up', () => {
  it('creates an account on the free plan; its monthly credits arrive once the address is confirmed', async () => {
    const email = uniqueEmail()
    const res = await post('/api/auth/sign-up/', { email, password: 'long enough', first_name: 'Ada', preferred_language: 'he' })
    expect(res.status).toBe(201)
    const created = await body<{ id: number; email: string }>(res)
    expect(created).toEqual({ id: expect.any(Number), email })
    const { access } = await login(svc, email, 'long enough')
    const before = await profile(svc, access)
    expect(before).toMatchObject({
      id: created.id,
      email,
      first_name: 'Ada',
      last_name: '',
      preferred_language: 'he',
      email_confirmed: false,
    })
    expect(before.remaining_credits).toBe(0)
    await confirmFromOutbox(svc, email)
    const me = await profile(svc, access)
    expect(me.email_confirmed).toBe(true)
    expect(me.subscription_plan).toMatchObject({ plan_type: 'Free', allows_fresh_exports: false })
    expect(me.remaining_credits).toBe(100)
    expect(me.total_credits).toBe(100)
    expect(me.can_download_fresh_exports).toBe(false)
  })

  it('answers without the trailing slash too', async () => {
    const res = await post('/api/auth/sign-up', { email: uniqueEmail(), password: 'long enough' })
    expect(res.status).toBe(201)
  })

  it.each([
    ['short password', { password: 'short77' }, 'password'],
    ['password over 128', { password: 'x'.repeat(129) }, 'password'],
    ['invalid email', { email: 'not-an-email' }, 'email'],
    ['email over 254', { email: `${'a'.repeat(246)}@example.com` }, 'email'],
    ['first name over 150', { first_name: 'n'.repeat(151) }, 'first_name'],
    ['last name over 150', { last_name: 'n'.repeat(151) }, 'last_name'],
    ['language outside the 27', { preferred_language: 'xx' }, 'preferred_language'],
    ['email of the wrong type', { email: 42 }, 'email'],
    ['missing password', { password: undefined }, 'password'],
  ])('refuses %s with 400 on the field', async (_, override, field) => {
    const res = await post('/api/auth/sign-up/', { email: uniqueEmail(), password: 'long enough', ...override })
    expect(res.status).toBe(400)
    const b = await body<{ detail: string; errors: Record<string, string[]> }>(res)
    expect(b.detail).toEqual(expect.any(String))
    expect(b.errors[field]?.length).toBeGreaterThan(0)
  })

  it('accepts exactly the limits', async () => {
    const res = await post('/api/auth/sign-up/', {
      email: `${'a'.repeat(242)}@example.com`,
      password: 'p'.repeat(128),
      first_name: 'n'.repeat(150),
      last_name: 'n'.repeat(150),
    })
    expect(res.status).toBe(201)
  })

  it('refuses a taken email whatever its case, and writes nothing', async () => {
    const email = uniqueEmail()
    expect((await post('/api/auth/sign-up/', { email, password: 'long enough' })).status).toBe(201)
    const res = await post('/api/auth/sign-up/', { email: email.toUpperCase(), password: 'other password' })
    expect(res.status).toBe(400)
    expect((await body<{ errors: Record<string, string[]> }>(res)).errors.email).toBeDefined()
    const { rows } = await svc.deps.db.query<{ n: number }>('SELECT count(*)::int AS n FROM users WHERE lower(email) = lower($1)', [email])
    expect(rows[0]!.n).toBe(1)
  })

  it('refuses malformed JSON with 400', async () => {
    const res = await svc.request('/api/auth/sign-up/', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: '{"email": "a@b.co", "password":',
    })
    expect(res.status).toBe(400)
    expect(await body(res)).toHaveProperty('detail')
  })

  it('stores a salted scrypt hash, never the password', async () => {
    const a = await signUp(svc)
    const { rows } = await svc.deps.db.query<{ password_hash: string }>('SELECT password_hash FROM users WHERE id = $1', [a.id])
    expect(rows[0]!.password_hash).toMatch(/^scrypt\$\d+\$\d+\$\d+\$[A-Za-z0-9+/=]+\$[A-Za-z0-9+/=]+$/)
    expect(rows[0]!.password_hash).not.toContain(a.password)
  })
})

describe('login', () => {
  it('returns access, refresh and the small user object', async () => {
    const res = await post('/api/auth/login/', { username: 'DEMO@example.com', password: 'demo-password' })
    expect(res.status).toBe(200)
    const b = await body<{ access: string; refresh: string; user: Record<string, unknown> }>(res)
    expect(b.access.split('.')).toHaveLength(3)
    expect(b.refresh.split('.')).toHaveLength(3)
    expect(b.user).toEqual({
      id: expect.stringMatching(/^\d+$/),
      email: 'demo@example.com',
      first_name: 'Dana',
      last_name: 'Weber',
      remaining_credits: expect.any(Number),
      subscription_plan: 'Pro',
    })
  })

  it('answers 401 {detail} for a wrong password and for an unknown account alike', async () => {
    for (const json of [
      { username: 'demo@example.com', password: 'wrong password' },
      { username: 'nobody@example.com', password: 'demo-password' },
    ]) {
      const res = await post('/api/auth/login/', json)
      expect(res.status).toBe(401)
      const b = await body(res)
      expect(b.detail).toEqual(expect.any(String))
      expect(b.code).toBe('invalid_credentials') // not token_not_valid: nothing to refresh
    }
  })

  it('refuses a missing field with 400', async () => {
    const res = await post('/api/auth/login/', { username: 'demo@example.com' })
    expect(res.status).toBe(400)
    expect((await body<{ errors: Record<string, string[]> }>(res)).errors.password).toBeDefined()
  })
})

describe('NUL bytes (PostgreSQL cannot store U+0000)', () => {
  type Errors = { detail: string; errors: Record<string, string[]> }
  const nulOn = async (res: Response, field: string) => {
    expect(res.status, field).toBe(400)
    const b = await body<Errors>(res)
    expect(b.detail).toEqual(expect.any(String))
    expect(b.errors[field], field).toEqual(expect.arrayContaining([expect.stringMatching(/NUL/)]))
  }

  it('sign-up refuses a NUL in any text field with 400 on that field, and creates nothing', async () => {
    for (const [field, value] of [
      ['first_name', 'Ada\u0000'],
      ['last_name', '\u0000'],
      ['password', 'long enough\u0000'],
      ['email', `a\u0000${uniqueEmail()}`],
    ] as const) {
      const email = uniqueEmail('nul')
      await nulOn(await post('/api/auth/sign-up/', { email, password: 'long enough', [field]: value }), field)
      const { rows } = await svc.deps.db.query('SELECT 1 FROM users WHERE email = $1', [email])
      expect(rows).toHaveLength(0)
    }
  })

  it('login, refresh and password reset refuse a NUL with 400 on the field', async () => {
    await nulOn(await post('/api/auth/login/', { username: 'demo@example.com\u0000', password: 'demo-password' }), 'username')
    await nulOn(await post('/api/auth/login/', { username: 'demo@example.com', password: 'demo\u0000' }), 'password')
    await nulOn(await post('/api/token/refresh/', { refresh: 'a.b\u0000.c' }), 'refresh')
    await nulOn(await post('/api/auth/password-reset/', { email: 'demo\u0000@example.com' }), 'email')
    await nulOn(await post('/api/auth/password-reset/confirm/', { token: 'abc\u0000', password: 'long enough' }), 'token')
    await nulOn(await post('/api/auth/password-reset/confirm/', { token: 'abc', password: 'long enough\u0000' }), 'password')
  })
})

describe('protected routes', () => {
  it('answer 401 {detail} without a credential and 401 token_not_valid with a bad one', async () => {
    const none = await svc.request('/api/user/profile/')
    expect(none.status).toBe(401)
    const b = await body(none)
    expect(b.detail).toEqual(expect.any(String))
    expect(b.code).not.toBe('token_not_valid') // nothing to refresh: no token was sent
    for (const header of ['Bearer not.a.jwt', 'Bearer lds_nonexistent', 'Token lds_nonexistent']) {
      const res = await svc.request('/api/user/profile/', { headers: { Authorization: header } })
      expect(res.status).toBe(401)
      expect(await body(res)).toMatchObject({ code: 'token_not_valid' })
    }
    // parsed exactly: another scheme, two spaces, or anything after the credential is refused as malformed
    const key = await svc.request('/api/user/api-keys/', {
      method: 'POST',
      token: (await login(svc, 'demo@example.com', 'demo-password')).access,
      json: {},
    })
    const token = (await body<{ token: string }>(key)).token
    expect((await svc.request('/api/user/profile/', { headers: { Authorization: `Token ${token}` } })).status).toBe(200)
    for (const header of ['Basic abc', `Token ${token} trailing-garbage`, `Token  ${token}`, `Token\t${token}`, `${token}`]) {
      const res = await svc.request('/api/user/profile/', { headers: { Authorization: header } })
      expect(res.status, header).toBe(401)
      expect(await body(res)).toMatchObject({ code: 'invalid_authorization_header' })
    }
  })

  it('refuses a token signed with another secret', async () => {
    const { SignJWT } = await import('jose')
    const forged = await new SignJWT({ token_type: 'access' })
      .setProtectedHeader({ alg: 'HS256' })
      .setSubject('1')
      .setJti('x')
      .setIssuedAt()
      .setExpirationTime('1h')
      .sign(new TextEncoder().encode('not the secret'))
    const res = await svc.request('/api/user/profile/', { token: forged })
    expect(res.status).toBe(401)
    expect(await body(res)).toMatchObject({ code: 'token_not_valid' })
  })
})

describe('refresh rotation', () => {
  it('rotates: each refresh token works once and the new pair works', async () => {
    const u = await signUp(svc)
    const r1 = await post('/api/token/refresh/', { refresh: u.refresh })
    expect(r1.status).toBe(200)
    const pair = await body<{ access: string; refresh: string }>(r1)
    expect(pair.refresh).not.toBe(u.refresh)
    expect((await svc.request('/api/user/profile/', { token: pair.access })).status).toBe(200)
    const r2 = await post('/api/token/refresh/', { refresh: pair.refresh })
    expect(r2.status).toBe(200)
  })

  it('a rotated token presented again revokes its whole family, not other sessions', async () => {
    const u = await signUp(svc)
    const other = await login(svc, u.email, u.password) // a second session (family)
    const first = await body<{ refresh: string }>(await post('/api/token/refresh/', { refresh: u.refresh }))
    const second = await body<{ refresh: string }>(await post('/api/token/refresh/', { refresh: first.refresh }))

    const reuse = await post('/api/token/refresh/', { refresh: u.refresh })
    expect(reuse.status).toBe(401)
    expect(await body(reuse)).toMatchObject({ code: 'token_not_valid', detail: expect.any(String) })
    // every later token of the family is dead now
    const later = await post('/api/token/refresh/', { refresh: second.refresh })
    expect(later.status).toBe(401)
    expect(await body(later)).toMatchObject({ code: 'token_not_valid' })
    // the other session is untouched
    expect((await post('/api/token/refresh/', { refresh: other.refresh })).status).toBe(200)
  })

  it('refuses an access token as a refresh token, garbage, and an empty body', async () => {
    const u = await signUp(svc)
    const a = await post('/api/token/refresh/', { refresh: u.access })
    expect(a.status).toBe(401)
    expect(await body(a)).toMatchObject({ code: 'token_not_valid' })
    expect((await post('/api/token/refresh/', { refresh: 'garbage' })).status).toBe(401)
    expect((await post('/api/token/refresh/', {})).status).toBe(400)
  })
})

describe('password reset', () => {
  const outbox = () => path.join(svc.deps.config.dataDir, 'outbox')
  const mailsTo = async (email: string) => {
    const files = await readdir(outbox()).catch(() => [] as string[])
    return files.filter((f) => f.endsWith(`-${email}.eml`))
  }
  const tokenFrom = async (email: string) => {
    const [file] = (await mailsTo(email)).sort().reverse()
    const text = await readFile(path.join(outbox(), file!), 'utf8')
    const link = /\/reset-password\?token=([A-Za-z0-9_-]+)/.exec(text)
    expect(text).toContain(`${svc.deps.config.publicUrl}/reset-password?token=`)
    return link![1]!
  }

  it('answers 202 for unknown addresses too, and mails nothing then', async () => {
    const email = uniqueEmail('ghost')
    const res = await post('/api/auth/password-reset/', { email })
    expect(res.status).toBe(202)
    expect(await mailsTo(email)).toHaveLength(0)
  })

  it('mails a one-time link, logs the file but not the token, and the new password replaces the old', async () => {
    const u = await signUp(svc)
    const log = vi.spyOn(console, 'log')
    const res = await post('/api/auth/password-reset/', { email: u.email })
    expect(res.status).toBe(202)
    const token = await tokenFrom(u.email)
    const lines = log.mock.calls.map((c) => c.join(' '))
    log.mockRestore()
    expect(lines.some((l) => l.includes('outbox') && l.includes(u.email))).toBe(true)
    expect(lines.some((l) => l.includes(token))).toBe(false)
    // only a hash of the token is stored
    const stored = await svc.deps.db.query<{ token_hash: string }>('SELECT token_hash FROM password_resets')
    expect(stored.rows.some((r) => r.token_hash === token)).toBe(false)

    const ok = await post('/api/auth/password-reset/confirm/', { token, password: 'brand new password' })
    expect(ok.status).toBe(200)
    expect((await post('/api/auth/login/', { username: u.email, password: u.password })).status).toBe(401)
    await login(svc, u.email, 'brand new password')
    // sessions of the old password end
    const refresh = await post('/api/token/refresh/', { refresh: u.refresh })
    expect(refresh.status).toBe(401)
    // the token works once
    const again = await post('/api/auth/password-reset/confirm/', { token, password: 'another new password' })
    expect(again.status).toBe(400)
    expect((await body<{ errors: Record<string, string[]> }>(again)).errors.token).toBeDefined()
  })

  const resetPassword = async (email: string, password: string) => {
    expect((await post('/api/auth/password-reset/', { email })).status).toBe(202)
    const ok = await post('/api/auth/password-reset/confirm/', { token: await tokenFrom(email), password })
    expect(ok.status).toBe(200)
  }

  it('ends the access tokens issued before the reset; a login afterwards works', async () => {
    const u = await signUp(svc)
    expect((await svc.request('/api/user/profile/', { token: u.access })).status).toBe(200)
    await resetPassword(u.email, 'brand new password')
    const old = await svc.request('/api/user/profile/', { token: u.access })
    expect(old.status).toBe(401)
    expect(await body(old)).toMatchObject({ code: 'token_not_valid', detail: expect.any(String) })
    const fresh = await login(svc, u.email, 'brand new password')
    expect((await svc.request('/api/user/profile/', { token: fresh.access })).status).toBe(200)
    // and keeps working later, and so do refreshed tokens
    await advanceClock(svc, 120)
    expect((await svc.request('/api/user/profile/', { token: fresh.access })).status).toBe(200)
    const refreshed = await post('/api/token/refresh/', { refresh: fresh.refresh })
    expect(refreshed.status).toBe(200)
    const { access } = await body<{ access: string }>(refreshed)
    expect((await svc.request('/api/user/profile/', { token: access })).status).toBe(200)
  })

  it('tells tokens of the same second apart: before the reset refused, after it accepted', async () => {
    const u = await signUp(svc)
    // Freeze the service clock mid-second: the old token, the reset and the new login share one instant.
    const frozen = new Date((Math.floor(svc.deps.clock.now().getTime() / 1000) + 1) * 1000 + 500)
    const now = vi.spyOn(svc.deps.clock, 'now').mockReturnValue(frozen)
    try {
      const before = await login(svc, u.email, u.password)
      expect((await svc.request('/api/user/profile/', { token: before.access })).status).toBe(200)
      await resetPassword(u.email, 'brand new password')
      expect((await svc.request('/api/user/profile/', { token: before.access })).status).toBe(401)
      const after = await login(svc, u.email, 'brand new password')
      expect((await svc.request('/api/user/profile/', { token: after.access })).status).toBe(200)
    } finally {
      now.mockRestore()
      await advanceClock(svc, 2) // the clock never runs backwards for the tests after this one
    }
  })

  it('refuses an unknown token, a short password, and a token older than one hour', async () => {
    const unknown = await post('/api/auth/password-reset/confirm/', { token: 'nope', password: 'long enough' })
    expect(unknown.status).toBe(400)
    expect((await body<{ errors: Record<string, string[]> }>(unknown)).errors.token).toBeDefined()

    const u = await signUp(svc)
    await post('/api/auth/password-reset/', { email: u.email })
    const token = await tokenFrom(u.email)
    const short = await post('/api/auth/password-reset/confirm/', { token, password: 'short' })
    expect(short.status).toBe(400)
    expect((await body<{ errors: Record<string, string[]> }>(short)).errors.password).toBeDefined()

    await advanceClock(svc, 3601)
    const late = await post('/api/auth/password-reset/confirm/', { token, password: 'long enough' })
    expect(late.status).toBe(400)
    expect((await body<{ errors: Record<string, string[]> }>(late)).errors.token).toBeDefined()
  })
})

describe('token lifetimes (test clock)', () => {
  it('access tokens die after 60 minutes, refresh tokens after 14 days', async () => {
    const u = await signUp(svc)
    await advanceClock(svc, 59 * 60)
    expect((await svc.request('/api/user/profile/', { token: u.access })).status).toBe(200)
    await advanceClock(svc, 2 * 60)
    const expired = await svc.request('/api/user/profile/', { token: u.access })
    expect(expired.status).toBe(401)
    expect(await body(expired)).toMatchObject({ code: 'token_not_valid' })
    // the refresh token still works and gives a working access token
    const pair = await body<{ access: string; refresh: string }>(await post('/api/token/refresh/', { refresh: u.refresh }))
    expect((await svc.request('/api/user/profile/', { token: pair.access })).status).toBe(200)
    await advanceClock(svc, 14 * 86_400 + 1)
    const late = await post('/api/token/refresh/', { refresh: pair.refresh })
    expect(late.status).toBe(401)
    expect(await body(late)).toMatchObject({ code: 'token_not_valid' })
  })
})

describe('rate limits', () => {
  let small: TestService
  beforeAll(async () => {
    small = await startTestService({ rateLimitPerMinute: 5 })
  })
  afterAll(async () => {
    await small?.close()
  })

  it('limits login attempts per address with 429 and Retry-After', async () => {
    const statuses: number[] = []
    let last: Response | undefined
    for (let i = 0; i < 6; i++) {
      last = await small.request('/api/auth/login/', { method: 'POST', json: { username: 'demo@example.com', password: `guess ${i}` } })
      statuses.push(last.status)
    }
    expect(statuses.slice(0, 5)).toEqual([401, 401, 401, 401, 401])
    expect(statuses[5]).toBe(429)
    const retryAfter = Number(last!.headers.get('retry-after'))
    expect(retryAfter).toBeGreaterThanOrEqual(1)
    expect(retryAfter).toBeLessThanOrEqual(60)
    expect(await body(last!)).toHaveProperty('detail')
  })

  it('limits each credential, and the window reopens after a minute', async () => {
    await small.request('/api/_test/clock/', { method: 'POST', json: { advance_seconds: 61 } })
    const { access } = await body<{ access: string }>(
      await small.request('/api/auth/login/', { method: 'POST', json: { username: 'demo@example.com', password: 'demo-password' } }),
    )
    const statuses: number[] = []
    for (let i = 0; i < 6; i++) statuses.push((await small.request('/api/user/profile/', { token: access })).status)
    expect(statuses).toEqual([200, 200, 200, 200, 200, 429])
    await small.request('/api/_test/clock/', { method: 'POST', json: { advance_seconds: 61 } })
    expect((await small.request('/api/user/profile/', { token: access })).status).toBe(200)
  })
})
