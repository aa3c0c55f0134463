import { http, HttpResponse } from 'msw'
import { screen } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { server } from '@/testing/msw-server'
import { renderWithProviders } from '@/testing/render'
import { changeLanguage, i18n } from '@/lib/i18n'
import { REFRESH_STORAGE_KEY, resetSessionForTests } from '@/lib/session'
import { SignInForm } from './sign-in-form'
import { SignUpForm } from './sign-up-form'
import { ResetPasswordForm } from './reset-password-form'

const profile = {
  id: 1,
  email: 'ada@example.com',
  first_name: 'Ada',
  last_name: 'L',
  subscription_plan: null,
  total_credits: 0,
  remaining_credits: 0,
  purchased_credits_available: 0,
  purchased_credits_expiring_soon: 0,
  current_period_start: null,
  current_period_end: null,
  can_download_fresh_exports: false,
  preferred_language: 'de',
}

beforeEach(() => resetSessionForTests())
afterEach(async () => {
  resetSessionForTests()
  await changeLanguage('en')
})

describe('sign in', () => {
  it('signs in, switches to the profile language and goes back to ?next=', async () => {
    let loginBody: unknown
    server.use(
      http.post('/api/auth/login/', async ({ request }) => {
        loginBody = await request.json()
        return HttpResponse.json({ access: 'a1', refresh: 'r1', user: { id: '1', email: 'ada@example.com', subscription_plan: 'pro' } })
      }),
      http.get('/api/user/profile/', ({ request }) =>
        request.headers.get('Authorization') === 'Bearer a1'
          ? HttpResponse.json(profile)
          : HttpResponse.json({ detail: 'no' }, { status: 401 }),
      ),
      http.get('/locales/*', () => HttpResponse.json({})),
    )
    const { router } = renderWithProviders(<SignInForm />, {
      route: '/sign-in?next=%2Fhistory%3Fpage%3D2',
      path: '/sign-in',
      routes: [{ path: '/history', element: <p>history page</p> }],
    })
    const user = userEvent.setup()
    await user.type(screen.getByLabelText('Email'), 'ada@example.com')
    await user.type(screen.getByLabelText('Password'), 'secret-password')
    await user.click(screen.getByRole('button', { name: 'Sign in' }))

    expect(await screen.findByText('history page')).toBeInTheDocument()
    expect(router.state.location.pathname + router.state.location.search).toBe('/history?page=2')
    expect(loginBody).toEqual({ username: 'ada@example.com', password: 'secret-password' })
    expect(localStorage.getItem(REFRESH_STORAGE_KEY)).toBe('r1')
    expect(i18n.language).toBe('de')
    expect(document.documentElement.lang).toBe('de')
  })

  it('shows a clear message for wrong credentials and checks the fields before sending', async () => {
    let calls = 0
    server.use(
      http.post('/api/auth/login/', () => {
        calls++
        return HttpResponse.json({ detail: 'No active account found with the given credentials' }, { status: 401 })
      }),
    )
    renderWithProviders(<SignInForm />, { route: '/sign-in', path: '/sign-in' })
    const user = userEvent.setup()
    await user.click(screen.getByRole('button', { name: 'Sign in' }))
    expect(await screen.findByText('Enter your email address.')).toBeInTheDocument()
    expect(screen.getByLabelText('Email')).toHaveAttribute('aria-invalid', 'true')
    expect(calls).toBe(0)

    await user.type(screen.getByLabelText('Email'), 'ada@example.com')
    await user.type(screen.getByLabelText('Password'), 'wrong')
    await user.click(screen.getByRole('button', { name: 'Sign in' }))
    expect(await screen.findByRole('alert')).toHaveTextContent('The email or the password is not right.')
    expect(calls).toBe(1)
  })

  it('says why the person is here after the session ended', () => {
    renderWithProviders(<SignInForm />, { route: '/sign-in?reason=expired&next=%2Fsearch', path: '/sign-in' })
    expect(screen.getByRole('status')).toHaveTextContent('Your session has ended.')
  })
})

describe('sign up', () => {
  it('puts the service field errors on the fields', async () => {
    server.use(
      http.post('/api/auth/sign-up/', () =>
        HttpResponse.json({ detail: 'Invalid input.', errors: { email: ['An account with this email already exists.'] } }, { status: 400 }),
      ),
    )
    renderWithProviders(<SignUpForm />, { route: '/sign-up', path: '/sign-up' })
    const user = userEvent.setup()
    await user.type(screen.getByLabelText('Email'), 'taken@example.com')
    await user.type(screen.getByLabelText('Password'), 'long-enough')
    await user.click(screen.getByRole('button', { name: 'Create account' }))
    // no code in this answer (as the real service sends it): its English text is recognised and translated
    expect(await screen.findByText('An account with this email already exists. Sign in or reset your password.')).toBeInTheDocument()
    expect(screen.getByLabelText('Email')).toHaveAttribute('aria-invalid', 'true')
    expect(screen.getByLabelText('Email')).toHaveFocus()
  })

  it('stops names at 150 characters and an email at 254 (interface part 8), with the count shown near each limit', async () => {
    renderWithProviders(<SignUpForm />, { route: '/sign-up', path: '/sign-up' })
    const user = userEvent.setup()
    const first = screen.getByLabelText('First name')
    const last = screen.getByLabelText('Last name')
    const email = screen.getByLabelText('Email')
    expect(first).toHaveAttribute('maxlength', '150')
    expect(last).toHaveAttribute('maxlength', '150')
    expect(email).toHaveAttribute('maxlength', '254')
    await user.click(first)
    await user.paste('a'.repeat(100))
    expect(first).not.toHaveAccessibleDescription(/Characters/)
    await user.paste('a'.repeat(100))
    expect(first).toHaveValue('a'.repeat(150))
    expect(first).toHaveAccessibleDescription('Characters: 150 of 150')
    await user.click(email)
    await user.paste(`${'e'.repeat(250)}@example.com`)
    expect((email as HTMLInputElement).value).toHaveLength(254)
    expect(email).toHaveAccessibleDescription('Characters: 254 of 254')
  })
})

describe('reset password', () => {
  it('sends the token from the link with the new password and lands on sign-in', async () => {
    let body: unknown
    server.use(
      http.post('/api/auth/password-reset/confirm/', async ({ request }) => {
        body = await request.json()
        return HttpResponse.json({ detail: 'Password changed.' })
      }),
    )
    const { router } = renderWithProviders(<ResetPasswordForm />, {
      route: '/reset-password?token=tok123',
      path: '/reset-password',
      routes: [{ path: '/sign-in', element: <p>sign-in page</p> }],
    })
    const user = userEvent.setup()
    await user.type(screen.getByLabelText('New password'), 'brand-new-pass')
    await user.type(screen.getByLabelText('Repeat the new password'), 'brand-new-pass')
    await user.click(screen.getByRole('button', { name: 'Change password' }))
    expect(await screen.findByText('sign-in page')).toBeInTheDocument()
    expect(router.state.location.search).toBe('?reason=password-changed')
    expect(body).toEqual({ token: 'tok123', password: 'brand-new-pass' })
  })

  it('offers a new link when the token is refused', async () => {
    server.use(
      http.post('/api/auth/password-reset/confirm/', () => HttpResponse.json({ detail: 'Invalid or expired token.' }, { status: 400 })),
    )
    renderWithProviders(<ResetPasswordForm />, { route: '/reset-password?token=old', path: '/reset-password' })
    const user = userEvent.setup()
    await user.type(screen.getByLabelText('New password'), 'brand-new-pass')
    await user.type(screen.getByLabelText('Repeat the new password'), 'brand-new-pass')
    await user.click(screen.getByRole('button', { name: 'Change password' }))
    expect(await screen.findByRole('alert')).toHaveTextContent('This reset link is not valid any more.')
    expect(screen.getByRole('link', { name: 'Ask for a new link' })).toHaveAttribute('href', '/forgot-password')
  })
})
