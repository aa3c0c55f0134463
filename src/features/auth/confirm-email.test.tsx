import { screen, waitFor } from '@testing-library/react'
import { http, HttpResponse } from 'msw'
import { beforeEach, describe, expect, it } from 'vitest'
import { resetSessionForTests, setTokensForTests } from '@/lib/session'
import { server } from '@/testing/msw-server'
import { renderWithProviders } from '@/testing/render'
import { ConfirmEmail } from './confirm-email'

const page = (
  <ConfirmEmail
    frame={(title, outcome) => (
      <main>
        <h1>{title}</h1>
        {outcome}
      </main>
    )}
  />
)

function openLink(answer: () => Response, route = '/confirm-email?token=t0ken') {
  server.use(http.post('/api/auth/confirm-email/', answer))
  return renderWithProviders(page, { route })
}

beforeEach(() => resetSessionForTests())

describe('confirm-email page', () => {
  it('a sign-up link: the heading and the document title say the address is confirmed; the token leaves the address', async () => {
    const { router } = openLink(() => HttpResponse.json({ detail: 'Your address is confirmed.', kind: 'signup', email: 'a@example.com' }))
    expect(await screen.findByRole('heading', { name: 'Email address confirmed' })).toBeInTheDocument()
    expect(screen.getByText('Your address is confirmed and your free credits are in your account.')).toBeInTheDocument()
    await waitFor(() => expect(document.title).toBe('Email address confirmed · Leads'))
    expect(router.state.location.search).toBe('')
    // signed out: the way on is signing in
    expect(screen.getByRole('link', { name: 'Sign in' })).toHaveAttribute('href', '/sign-in')
  })

  it('a new-address link: the heading says the new address is confirmed', async () => {
    openLink(() => HttpResponse.json({ detail: 'Your new address is confirmed.', kind: 'email_change', email: 'new@example.com' }))
    expect(await screen.findByRole('heading', { name: 'New email address confirmed' })).toBeInTheDocument()
    expect(screen.getByText('new@example.com').tagName).toBe('BDI')
  })

  it('a link used before, when the service says the address is already confirmed (409 already_confirmed)', async () => {
    setTokensForTests('access', 'refresh')
    openLink(() => HttpResponse.json({ detail: 'This address is already confirmed.', code: 'already_confirmed' }, { status: 409 }))
    expect(await screen.findByRole('heading', { name: 'Address already confirmed' })).toBeInTheDocument()
    expect(screen.getByText('This address is already confirmed. There is nothing more to do.')).toBeInTheDocument()
    expect(screen.getByRole('link', { name: 'Go to the dashboard' })).toHaveAttribute('href', '/search')
  })

  it('a link the service refuses (used, expired or superseded): the heading says it cannot be used', async () => {
    openLink(() =>
      HttpResponse.json(
        {
          detail: 'Validation failed.',
          errors: { token: ['This confirmation link is invalid, already used or expired.'] },
          error_codes: { token: ['confirmation_invalid'] },
        },
        { status: 400 },
      ),
    )
    expect(await screen.findByRole('heading', { name: 'This link cannot be used' })).toBeInTheDocument()
    expect(screen.getByText('This confirmation link is not valid any more. Sign in and ask for a new one.')).toBeInTheDocument()
    // the title follows in an effect after the heading's render (a busy machine showed the old one)
    await waitFor(() => expect(document.title).toBe('This link cannot be used · Leads'))
  })

  it('a link without its token sends nothing', async () => {
    openLink(() => HttpResponse.json({ detail: 'not expected' }, { status: 500 }), '/confirm-email')
    expect(await screen.findByRole('heading', { name: 'This link cannot be used' })).toBeInTheDocument()
    expect(screen.getByText('This confirmation link is incomplete. Open the link from the mail again.')).toBeInTheDocument()
  })
})
