import { describe, expect, it } from 'vitest'
import { resetPasswordSchema, signUpSchema } from './schemas'
import { safeNext } from './safe-next'

describe('safeNext', () => {
  it.each([
    ['/search?countries=DE', '/search?countries=DE'],
    ['/exports/12#top', '/exports/12#top'],
    [null, '/search'],
    ['', '/search'],
    ['https://evil.example/x', '/search'],
    ['//evil.example/x', '/search'],
    ['/\\evil.example', '/search'],
    ['javascript:alert(1)', '/search'],
    ['search', '/search'],
    ['/sign-in?next=/x', '/search'],
    ['/.//evil.example', '/search'],
    ['/..//evil.example/x', '/search'],
    ['/./search', '/search'],
  ])('%s → %s', (input, expected) => {
    expect(safeNext(input)).toBe(expected)
  })
})

describe('form schemas mirror the service limits', () => {
  it('sign-up: email ≤ 254, names ≤ 150, password ≥ 8', () => {
    const ok = { email: 'a@example.com', password: '12345678', first_name: 'A', last_name: 'B' }
    expect(signUpSchema.safeParse(ok).success).toBe(true)
    expect(signUpSchema.safeParse({ ...ok, password: '1234567' }).error?.issues[0]?.message).toBe('validation.passwordTooShort')
    expect(signUpSchema.safeParse({ ...ok, first_name: 'x'.repeat(151) }).error?.issues[0]?.message).toBe('validation.nameTooLong')
    expect(signUpSchema.safeParse({ ...ok, email: `${'x'.repeat(250)}@example.com` }).error?.issues[0]?.message).toBe(
      'validation.emailTooLong',
    )
    expect(signUpSchema.safeParse({ ...ok, email: 'not-an-email' }).error?.issues[0]?.message).toBe('validation.emailInvalid')
  })

  it('reset: both passwords must match', () => {
    const r = resetPasswordSchema.safeParse({ password: '12345678', confirm: '12345679' })
    expect(r.error?.issues[0]?.path).toEqual(['confirm'])
  })
})
