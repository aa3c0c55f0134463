import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ERROR_CODE_LIST } from '../src/lib/error-codes.ts'
import { startTestService, type TestService } from './helpers.ts'
import { body, grant, newestMail, preview, signUp, uniqueEmail } from './account-helpers.ts'

/**
 * Issue 10: each documented code arrives where the OpenAPI document says, beside the English text,
 * and every mail is written in the recipient's language.
 */
let svc: TestService
beforeAll(async () => {
  svc = await startTestService()
})
afterAll(() => svc?.close())

type ErrorBody = {
  detail: string
  code: string
  errors?: Record<string, string[]>
  error_codes?: Record<string, Array<{ code: string } & Record<string, unknown>>>
}
const post = (path: string, json: unknown, token?: string) => svc.request(path, { method: 'POST', json, ...(token ? { token } : {}) })

describe('error codes', () => {
  it('/api/schema/ documents the code of every answer and of every field error', async () => {
    const doc = await body<{
      components: { schemas: Record<string, { description?: string; properties: Record<string, { enum?: string[] }> }> }
    }>(await svc.request('/api/schema/'))
    const schema = doc.components.schemas.Error!
    expect(schema.properties.code!.enum).toEqual(ERROR_CODE_LIST)
    expect(schema.properties.error_codes).toBeDefined()
    for (const code of ERROR_CODE_LIST) expect(schema.description).toContain(`| \`${code}\` |`)
  })

  it('field errors carry their codes index for index, with limits, and keep the English messages', async () => {
    const taken = await post('/api/auth/sign-up/', { email: 'demo@example.com', password: 'long enough' })
    expect(taken.status).toBe(400)
    expect(await body<ErrorBody>(taken)).toMatchObject({
      code: 'invalid_input',
      errors: { email: ['An account with this email already exists.'] },
      error_codes: { email: [{ code: 'email_taken' }] },
    })

    const bad = await body<ErrorBody>(
      await post('/api/auth/sign-up/', { email: 'not an address', password: 'short', first_name: 'x'.repeat(151) }),
    )
    expect(bad.error_codes).toEqual({
      email: [{ code: 'invalid_email' }],
      password: [{ code: 'password_too_short', limit: 8 }],
      first_name: [{ code: 'max_length', limit: 150 }],
    })
    expect(bad.errors!.password).toEqual(['Use at least 8 characters.'])

    const missing = await body<ErrorBody>(await post('/api/auth/sign-up/', { password: 'long enough' }))
    expect(missing.error_codes).toEqual({ email: [{ code: 'required' }] })
  })

  it('query parameters: unknown, too many values, bad country codes, bad booleans', async () => {
    const u = await signUp(svc)
    const q = async (query: string) => body<ErrorBody>(await svc.request(`/api/companies/?${query}`, { token: u.access }))
    expect((await q('countries=DE&country_code=DE')).error_codes).toEqual({
      country_code: [{ code: 'unknown_parameter', suggestion: 'countries' }],
    })
    expect((await q('countries=D1')).error_codes).toEqual({ countries: [{ code: 'invalid_country_code' }] })
    expect((await q('countries=DE&email=maybe')).error_codes).toEqual({ email: [{ code: 'invalid_boolean' }] })
    expect((await q(`countries=DE&category=${Array.from({ length: 51 }, (_, i) => i + 1).join(',')}`)).error_codes).toEqual({
      category: [{ code: 'too_many_values', limit: 50 }],
    })
  })

  it('answers: token_not_valid, invalid_credentials, insufficient_credits with its numbers, throttled with its seconds', async () => {
    const forged = await svc.request('/api/user/profile/', { token: 'eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxIn0.bad' })
    expect(forged.status).toBe(401)
    expect(await body<ErrorBody>(forged)).toMatchObject({ code: 'token_not_valid' })

    const wrong = await post('/api/auth/login/', { username: 'demo@example.com', password: 'not the password' })
    expect(await body<ErrorBody>(wrong)).toMatchObject({
      code: 'invalid_credentials',
      detail: 'No active account found with the given credentials',
    })

    const u = await signUp(svc)
    await grant(svc, u.access, { subscription: 0 })
    const { search_id } = await preview(svc, u.access, 'countries=US')
    const poor = await post('/api/download-csv/', { search_id, export_format: 'csv' }, u.access)
    expect(poor.status).toBe(403)
    expect(await body(poor)).toMatchObject({
      code: 'insufficient_credits',
      validation_code: 'insufficient_credits',
      required_credits: expect.any(Number),
      available_credits: 0,
    })

    const small = await startTestService({
      seedCompanies: 0,
      limits: { login: 100, refresh: 100, signup: 100, reset: 2, confirm: 100, failedAuth: 100, public: 100 },
    })
    let last: Response | undefined
    try {
      for (let i = 0; i < 3; i++)
        last = await small.request('/api/auth/password-reset/', { method: 'POST', json: { email: uniqueEmail('flood') } })
    } finally {
      await small.close()
    }
    expect(last!.status).toBe(429)
    const throttled = await body<ErrorBody & { retry_after: number }>(last!)
    expect(throttled.code).toBe('throttled')
    expect(throttled.retry_after).toBeGreaterThan(0)
    expect(last!.headers.get('Retry-After')).toBe(String(throttled.retry_after))
  })
})

describe('mails in the recipient’s language', () => {
  it('a Polish account gets a Polish reset mail, with the count in Polish plural', async () => {
    const u = await signUp(svc, { preferred_language: 'pl' })
    expect((await post('/api/auth/password-reset/', { email: u.email })).status).toBe(202)
    const mail = await newestMail(svc, u.email)
    expect(mail).toContain('Content-Language: pl')
    expect(mail).toContain(`Subject: =?UTF-8?B?${Buffer.from('Zresetuj hasło').toString('base64')}?=`)
    expect(mail).toContain('Ktoś poprosił o zresetowanie hasła')
    expect(mail).toMatch(/otwórz ten link w ciągu 1 godziny:\r\n\r\nhttp:\/\/[^\s]+\/reset-password\?token=/)
    expect(mail).toContain('<html lang="pl" dir="ltr">')
  })

  it('a Hebrew mail reads right to left, its link left to right', async () => {
    const email = uniqueEmail('he')
    expect((await post('/api/auth/sign-up/', { email, password: 'long enough', preferred_language: 'he' })).status).toBe(201)
    const mail = await newestMail(svc, email)
    expect(mail).toContain('Content-Type: multipart/alternative')
    expect(mail).toContain('<html lang="he" dir="rtl">')
    expect(mail).toContain('ברוכים הבאים לשירות נתוני הלידים.')
    expect(mail).toMatch(/<p dir="ltr"><a href="http:\/\/[^"]+\/confirm-email\?token=/)
    // RFC 2047: the subject header stays ASCII
    const subject = /^Subject: (.*(?:\r\n .*)*)$/m.exec(mail)![1]!
    expect(subject).toMatch(/^[\x20-\x7e\r\n]+$/)
    const decoded = [...subject.matchAll(/=\?UTF-8\?B\?([^?]+)\?=/g)].map((m) => Buffer.from(m[1]!, 'base64').toString('utf8')).join('')
    expect(decoded).toBe('אשרו את כתובת האימייל')
  })

  it('an account without a known language gets English', async () => {
    const u = await signUp(svc)
    await post('/api/auth/password-reset/', { email: u.email })
    const mail = await newestMail(svc, u.email)
    expect(mail).toContain('Subject: Reset your password')
    expect(mail).toContain('open this link within 1 hour:')
  })
})
