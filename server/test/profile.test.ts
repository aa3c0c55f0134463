import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startTestService, type TestService } from './helpers.ts'
import { advanceClock, body, confirmFromOutbox, grant, login, profile, signUp } from './account-helpers.ts'

let svc: TestService
beforeAll(async () => {
  svc = await startTestService()
})
afterAll(async () => {
  await svc?.close()
})

const patch = (token: string, json: unknown) => svc.request('/api/user/profile/', { method: 'PATCH', token, json })
type Errors = { detail: string; errors: Record<string, string[]> }

describe('GET /api/user/profile/', () => {
  it('returns User (2.1) with every field and its type', async () => {
    const u = await signUp(svc, { first_name: 'Grace', last_name: 'Hopper' })
    const me = await profile(svc, u.access)
    expect(Object.keys(me).sort()).toEqual(
      [
        'id',
        'email',
        'first_name',
        'last_name',
        'subscription_plan',
        'total_credits',
        'remaining_credits',
        'purchased_credits_available',
        'purchased_credits_expiring_soon',
        'current_period_start',
        'current_period_end',
        'can_download_fresh_exports',
        'preferred_language',
        'email_confirmed', // extensions (issue 9)
        'pending_email',
        'credit_lots', // extension credit_order (issue 21)
      ].sort(),
    )
    expect(me).toMatchObject({ id: u.id, email: u.email, first_name: 'Grace', last_name: 'Hopper', preferred_language: 'en' })
    expect(me.purchased_credits_available).toBe(0)
    expect(Number.isInteger(me.current_period_start)).toBe(true)
    expect(Number.isInteger(me.current_period_end)).toBe(true)
    expect(me.current_period_end as number).toBeGreaterThan(me.current_period_start as number)
  })

  it('shows the demo account on a paid plan with purchased credits, some expiring soon, expired lots excluded', async () => {
    const { access } = await login(svc, 'demo@example.com', 'demo-password')
    const me = await profile(svc, access)
    expect(me.subscription_plan).toMatchObject({ plan_type: 'Pro', allows_fresh_exports: true })
    expect(me.can_download_fresh_exports).toBe(true)
    expect(me.total_credits).toBe(5000)
    expect(me.purchased_credits_expiring_soon).toBeGreaterThan(0)
    const { rows } = await svc.deps.db.query<{ live: number; expired: number }>(
      `SELECT coalesce(sum(remaining) FILTER (WHERE expires_at > $2), 0)::int AS live,
              coalesce(sum(remaining) FILTER (WHERE expires_at <= $2), 0)::int AS expired
         FROM credit_lots WHERE user_id = $1`,
      [me.id, svc.deps.clock.now()],
    )
    expect(rows[0]!.expired).toBeGreaterThan(0)
    expect(me.purchased_credits_available).toBe(rows[0]!.live)
  })

  it('counts purchased lots: expiring within 7 days flagged, expired never', async () => {
    const u = await signUp(svc)
    await grant(svc, u.access, { purchased: 40, purchased_expires_in_days: 3 })
    await grant(svc, u.access, { purchased: 60, purchased_expires_in_days: 30 })
    await grant(svc, u.access, { purchased: 500, purchased_expires_in_days: -1 })
    const me = await profile(svc, u.access)
    expect(me.purchased_credits_available).toBe(100)
    expect(me.purchased_credits_expiring_soon).toBe(40)
  })
})

describe('PATCH /api/user/profile/', () => {
  it('updates names and language at once; a new email (with the password) only once its link is used', async () => {
    const u = await signUp(svc)
    const email = `renamed-${u.id}@example.com`
    const res = await patch(u.access, {
      first_name: 'Marie',
      last_name: 'Curie',
      preferred_language: 'th',
      email,
      current_password: u.password,
    })
    expect(res.status).toBe(200)
    expect(await body(res)).toMatchObject({
      first_name: 'Marie',
      last_name: 'Curie',
      preferred_language: 'th',
      email: u.email,
      pending_email: email,
    })
    await confirmFromOutbox(svc, email)
    expect(await profile(svc, u.access)).toMatchObject({ first_name: 'Marie', email, pending_email: null })
  })

  it('accepts an empty object (the samples) and ignores unknown fields', async () => {
    const u = await signUp(svc)
    const res = await patch(u.access, { favourite_colour: 'blue', id: 999999 })
    expect(res.status).toBe(200)
    expect(await body(res)).toMatchObject({ id: u.id, email: u.email })
    expect((await patch(u.access, {})).status).toBe(200)
  })

  it.each([
    [{ email: 'not an email' }, 'email'],
    [{ email: `${'e'.repeat(243)}@example.com` }, 'email'],
    [{ first_name: 'x'.repeat(151) }, 'first_name'],
    [{ last_name: 'x'.repeat(151) }, 'last_name'],
    [{ preferred_language: 'xx' }, 'preferred_language'],
    [{ preferred_language: 'EN' }, 'preferred_language'],
    [{ first_name: 12 }, 'first_name'],
    [{ remaining_credits: 2_147_483_648 }, 'remaining_credits'],
    [{ current_period_start: -2_147_483_649 }, 'current_period_start'],
    [{ current_period_end: 1.5 }, 'current_period_end'],
    [{ remaining_credits: 'lots' }, 'remaining_credits'],
  ])('refuses %j with 400 on the field and changes nothing', async (json, field) => {
    const u = await signUp(svc, { first_name: 'Before' })
    const res = await patch(u.access, { last_name: 'Changed?', ...json })
    expect(res.status).toBe(400)
    const b = await body<Errors>(res)
    expect(b.errors[field]?.length).toBeGreaterThan(0)
    expect(await profile(svc, u.access)).toMatchObject({ first_name: 'Before', last_name: '' })
  })

  it.each(['remaining_credits', 'current_period_start', 'current_period_end'])(
    'range-checks %s and then refuses it as read-only (decisions.md), writing nothing',
    async (field) => {
      const u = await signUp(svc)
      const before = await profile(svc, u.access)
      const res = await patch(u.access, { [field]: 2_147_483_647, first_name: 'Sneaky' })
      expect(res.status).toBe(400)
      expect((await body<Errors>(res)).errors[field]).toEqual(['read-only'])
      expect(await profile(svc, u.access)).toEqual(before)
    },
  )

  it('refuses a NUL byte in a name or the email with 400 on the field and changes nothing', async () => {
    const u = await signUp(svc, { first_name: 'Grace' })
    for (const [field, value] of [
      ['first_name', 'Gr\u0000ace'],
      ['last_name', '\u0000'],
      ['email', `x\u0000${u.email}`],
    ] as const) {
      const res = await patch(u.access, { [field]: value })
      expect(res.status, field).toBe(400)
      expect((await body<Errors>(res)).errors[field]).toEqual(expect.arrayContaining([expect.stringMatching(/NUL/)]))
    }
    expect(await profile(svc, u.access)).toMatchObject({ first_name: 'Grace', last_name: '', email: u.email })
  })

  it('refuses an email another account has (any case)', async () => {
    const a = await signUp(svc)
    const b = await signUp(svc)
    const res = await patch(b.access, { email: a.email.toUpperCase(), current_password: b.password })
    expect(res.status).toBe(400)
    expect((await body<Errors>(res)).errors.email).toBeDefined()
    // keeping one's own address is fine
    expect((await patch(a.access, { email: a.email })).status).toBe(200)
  })

  it('refuses malformed JSON and a JSON array', async () => {
    const u = await signUp(svc)
    const bad = await svc.request('/api/user/profile/', {
      method: 'PATCH',
      headers: { Authorization: `Bearer ${u.access}`, 'Content-Type': 'application/json' },
      body: '{"first_name": ',
    })
    expect(bad.status).toBe(400)
    expect((await patch(u.access, ['first_name'])).status).toBe(400)
  })

  it('needs a credential', async () => {
    const res = await svc.request('/api/user/profile/', { method: 'PATCH', json: { first_name: 'x' } })
    expect(res.status).toBe(401)
  })
})

describe('billing period (test clock)', () => {
  it('rolls over lazily: a new one-month period and the subscription credits reset', async () => {
    const u = await signUp(svc)
    await grant(svc, u.access, { subscription: 7 })
    const before = await profile(svc, u.access)
    expect(before.remaining_credits).toBe(7)
    const end = before.current_period_end as number
    const now = Math.floor(svc.deps.clock.now().getTime() / 1000)
    await advanceClock(svc, end - now + 60)
    const { access, user } = await login(svc, u.email, u.password) // the old access token has expired by now
    expect(user.remaining_credits).toBe(100)
    const after = await profile(svc, access)
    expect(after.remaining_credits).toBe(100)
    expect(after.current_period_start).toBe(end)
    expect(after.current_period_end as number).toBeGreaterThan(end + 27 * 86_400)
    expect(after.current_period_end as number).toBeLessThanOrEqual(end + 31 * 86_400)
  })
})
