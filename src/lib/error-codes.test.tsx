import { http, HttpResponse } from 'msw'
import { screen } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { afterEach, beforeAll, describe, expect, it } from 'vitest'
import { ERROR_CODES } from '../../server/src/lib/error-codes'
import en from '../../locales/en/errors.json'
import { SignUpForm } from '@/features/auth/sign-up-form'
import { server } from '@/testing/msw-server'
import { renderWithProviders } from '@/testing/render'
import { api, ApiError } from './api-client'
import { loadErrorStrings, translateIssue } from './error-codes'
import { errorMessage } from './error-message'
import { changeLanguage, i18n, resetLoadedNamespacesForTests } from './i18n'

beforeAll(() => loadErrorStrings())
afterEach(() => changeLanguage('en'))

/** The body the reference service sends for a 400 (errors and error_codes, index for index). */
const fieldError = (field: string, message: string, code: string, params: Record<string, number | string> = {}) => ({
  detail: 'Invalid input.',
  code: 'invalid_input',
  errors: { [field]: [message] },
  error_codes: { [field]: [{ ...params, code }] },
})

async function failing(body: Record<string, unknown>, status = 400): Promise<ApiError> {
  server.use(http.post('/api/probe/', () => HttpResponse.json(body, { status })))
  const error = await api('/api/probe/', { method: 'POST', body: {}, auth: false }).catch((e: unknown) => e)
  if (!(error instanceof ApiError)) throw new Error('expected an ApiError')
  return error
}

describe('service errors by code', () => {
  it('has a sentence for every code the reference service can send', () => {
    const translated = new Set(Object.keys(en.codes).map((k) => k.replace(/_(one|other)$/, '')))
    expect(Object.keys(ERROR_CODES).filter((code) => !translated.has(code))).toEqual([])
  })

  // each language: the field error of a taken email, a length limit (plural and number follow the
  // limit) and the 403 of an export without enough credits (numbers in the language's digits)
  it.each([
    [
      'en',
      'An account with this email already exists. Sign in or reset your password.',
      'Use at most 150 characters.',
      'Not enough credits: this needs 1,200 and 250 are available.',
    ],
    [
      'de',
      'Es gibt bereits ein Konto mit dieser E-Mail-Adresse. Melden Sie sich an oder setzen Sie Ihr Passwort zurück.',
      'Verwenden Sie höchstens 150 Zeichen.',
      'Nicht genug Credits: Benötigt werden 1.200, verfügbar sind 250.',
    ],
    [
      'pl',
      'Konto z tym adresem e-mail już istnieje. Zaloguj się lub zresetuj hasło.',
      'Użyj najwyżej 150 znaków.',
      'Za mało kredytów: potrzeba 1200, a dostępnych jest 250.',
    ],
    [
      'he',
      'כבר קיים חשבון עם האימייל הזה. התחברו או אפסו את הסיסמה.',
      'השתמשו ב-150 תווים לכל היותר.',
      'אין מספיק קרדיטים: נדרשים 1,200 וזמינים 250.',
    ],
    ['th', 'มีบัญชีที่ใช้อีเมลนี้อยู่แล้ว โปรดเข้าสู่ระบบหรือรีเซ็ตรหัสผ่าน', 'ใช้ได้ไม่เกิน 150 อักขระ', 'เครดิตไม่พอ: ต้องใช้ 1,200 แต่มีอยู่ 250'],
  ])('%s: codes are translated with their numbers', async (lng, taken, tooLong, credits) => {
    await changeLanguage(lng as 'en')
    const a = await failing(fieldError('email', 'An account with this email already exists.', 'email_taken'))
    expect(a.fieldErrors).toEqual({ email: [taken] })
    const b = await failing(fieldError('first_name', 'Too big: expected string to have <=150 characters', 'max_length', { limit: 150 }))
    expect(b.fieldErrors).toEqual({ first_name: [tooLong] })
    const c = await failing(
      {
        detail: 'Not enough credits.',
        code: 'insufficient_credits',
        validation_code: 'insufficient_credits',
        required_credits: 1200,
        available_credits: 250,
      },
      403,
    )
    expect(errorMessage(c)).toBe(credits)
  })

  it('Polish plural forms follow the number (1, 3, 5)', async () => {
    await changeLanguage('pl')
    const text = (limit: number) => translateIssue({ code: 'password_too_short', params: { limit }, message: 'x' })
    expect([text(1), text(3), text(5)]).toEqual(['Użyj co najmniej 1 znaku.', 'Użyj co najmniej 3 znaków.', 'Użyj co najmniej 5 znaków.'])
  })

  it('a 400 the form cannot place says what its first field error is about', async () => {
    await changeLanguage('de')
    const e = await failing(
      fieldError('non_field_errors', 'An account can hold at most 25 active API keys: revoke one first.', 'api_key_limit', { limit: 25 }),
    )
    expect(errorMessage(e)).toBe('Sie können höchstens 25 aktive API-Schlüssel haben. Widerrufen Sie zuerst einen.')
  })

  it('an unknown code shows the service text', async () => {
    await changeLanguage('de')
    const e = await failing(fieldError('email', 'Domain is on our block list.', 'domain_blocked'))
    expect(e.fieldErrors).toEqual({ email: ['Domain is on our block list.'] })
    const d = await failing({ detail: 'Exports are paused for maintenance.', code: 'maintenance' }, 409)
    expect(errorMessage(d)).toBe('Exports are paused for maintenance.')
  })

  it("recognises the real service's English texts when no code comes (DRF style, top-level fields)", async () => {
    await changeLanguage('de')
    const e = await failing({
      email: ['Enter a valid email address.'],
      password: ['This password is too short. It must contain at least 8 characters.', 'This password is too common.'],
      first_name: ['Ensure this field has no more than 150 characters.'],
    })
    expect(e.fieldErrors).toEqual({
      email: ['Geben Sie eine gültige E-Mail-Adresse ein.'],
      password: ['Verwenden Sie mindestens 8 Zeichen.', 'Dieses Passwort ist zu verbreitet. Wählen Sie ein weniger vorhersehbares.'],
      first_name: ['Verwenden Sie höchstens 150 Zeichen.'],
    })
    const t = await failing({ detail: 'Given token not valid for any token type', code: 'token_not_valid' }, 403)
    expect(errorMessage(t)).toBe('Ihre Sitzung ist beendet. Bitte melden Sie sich erneut an.')
  })

  it('a throttled answer counts its seconds', async () => {
    await changeLanguage('pl')
    expect(translateIssue({ code: 'throttled', params: { retry_after: 42 }, message: 'x' })).toBe(
      'Zbyt wiele prób. Spróbuj ponownie za 42 sekundy.',
    )
    expect(translateIssue({ params: {}, message: 'Request was throttled. Expected available in 5 seconds.' })).toBe(
      'Zbyt wiele prób. Spróbuj ponownie za 5 sekund.',
    )
  })
})

describe('sign-up with a taken email', () => {
  it.each([
    ['en', 'Email', 'Password', 'Create account', 'An account with this email already exists. Sign in or reset your password.'],
    ['he', 'דוא״ל', 'סיסמה', 'יצירת חשבון', 'כבר קיים חשבון עם האימייל הזה. התחברו או אפסו את הסיסמה.'],
    ['pl', 'E-mail', 'Hasło', 'Utwórz konto', 'Konto z tym adresem e-mail już istnieje. Zaloguj się lub zresetuj hasło.'],
    ['th', 'อีเมล', 'รหัสผ่าน', 'สร้างบัญชี', 'มีบัญชีที่ใช้อีเมลนี้อยู่แล้ว โปรดเข้าสู่ระบบหรือรีเซ็ตรหัสผ่าน'],
    [
      'de',
      'E-Mail',
      'Passwort',
      'Konto erstellen',
      'Es gibt bereits ein Konto mit dieser E-Mail-Adresse. Melden Sie sich an oder setzen Sie Ihr Passwort zurück.',
    ],
  ])('%s: the field shows the message in the language', async (lng, emailLabel, passwordLabel, submit, message) => {
    await changeLanguage(lng as 'en')
    server.use(
      http.post('/api/auth/sign-up/', () =>
        HttpResponse.json(fieldError('email', 'An account with this email already exists.', 'email_taken'), { status: 400 }),
      ),
    )
    renderWithProviders(<SignUpForm />, { route: '/sign-up', path: '/sign-up' })
    const user = userEvent.setup()
    await user.type(screen.getByLabelText(emailLabel), 'taken@example.com')
    await user.type(screen.getByLabelText(passwordLabel), 'long-enough')
    await user.click(screen.getByRole('button', { name: submit }))
    expect(await screen.findByText(message)).toBeInTheDocument()
    expect(screen.getByLabelText(emailLabel)).toHaveAttribute('aria-invalid', 'true')
  })
})

describe('loading the sentences', () => {
  it('the API client fetches the errors namespace before it throws, so a first error is already translated', async () => {
    i18n.removeResourceBundle('en', 'errors')
    expect(i18n.hasResourceBundle('en', 'errors')).toBe(false)
    // the loader remembers what it loaded: forget it, as on a fresh page
    resetLoadedNamespacesForTests()
    const e = await failing(fieldError('email', 'An account with this email already exists.', 'email_taken'))
    expect(i18n.hasResourceBundle('en', 'errors')).toBe(true)
    expect(e.fieldErrors).toEqual({ email: ['An account with this email already exists. Sign in or reset your password.'] })
  })
})
