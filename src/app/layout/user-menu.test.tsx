import { screen, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { http, HttpResponse } from 'msw'
import { beforeEach, describe, expect, it } from 'vitest'
import { resetSessionForTests, setTokensForTests, useSession } from '@/lib/session'
import { server } from '@/testing/msw-server'
import { proProfile } from '@/testing/fixtures'
import { renderWithProviders } from '@/testing/render'
import { UserMenu } from './user-menu'

const profile = proProfile

function Page() {
  const { signedIn } = useSession()
  return (
    <>
      <p>{signedIn ? 'signed in' : 'signed out'}</p>
      <UserMenu />
      <button type="button">Elsewhere</button>
    </>
  )
}

function renderMenu() {
  server.use(http.get('/api/user/profile/', () => HttpResponse.json(profile)))
  return renderWithProviders(<Page />, { route: '/search', routes: [{ path: '/account', element: <h1>account page</h1> }] })
}

const menuButton = () => screen.getByRole('button', { name: 'Account menu' })

beforeEach(() => {
  resetSessionForTests()
  setTokensForTests('access', 'refresh')
})

describe('user menu (disclosure)', () => {
  it('a button that shows and hides its panel of a link and a button', async () => {
    const user = userEvent.setup()
    renderMenu()
    expect(await screen.findByText('GH')).toBeInTheDocument()
    const button = menuButton()
    expect(button).toHaveAttribute('aria-expanded', 'false')
    const panel = document.getElementById(button.getAttribute('aria-controls') ?? '')!
    expect(panel).not.toBeVisible()
    expect(screen.queryByRole('link', { name: 'Account settings' })).not.toBeInTheDocument()

    await user.click(button)
    expect(button).toHaveAttribute('aria-expanded', 'true')
    expect(panel).toBeVisible()
    // a Latin address isolated from the right-to-left text around it
    expect(within(panel).getByText('grace@example.com').tagName).toBe('BDI')
    expect(within(panel).getByRole('link', { name: 'Account settings' })).toHaveAttribute('href', '/account')
    expect(within(panel).getByRole('button', { name: 'Sign out' })).toBeInTheDocument()
    await user.click(button)
    expect(button).toHaveAttribute('aria-expanded', 'false')
    expect(panel).not.toBeVisible()
  })

  it('keyboard: Enter opens, Tab walks the items, Escape closes and puts the focus back on the button', async () => {
    const user = userEvent.setup()
    renderMenu()
    await screen.findByText('GH')
    menuButton().focus()
    await user.keyboard('{Enter}')
    expect(menuButton()).toHaveAttribute('aria-expanded', 'true')
    await user.tab()
    expect(screen.getByRole('link', { name: 'Account settings' })).toHaveFocus()
    await user.tab()
    expect(screen.getByRole('button', { name: 'Sign out' })).toHaveFocus()
    await user.keyboard('{Escape}')
    expect(menuButton()).toHaveAttribute('aria-expanded', 'false')
    expect(menuButton()).toHaveFocus()

    // Tab past the last item closes it too; Space opens it; Enter on "Sign out" signs out
    await user.keyboard(' ')
    await user.tab()
    await user.tab()
    await user.tab()
    expect(screen.getByRole('button', { name: 'Elsewhere' })).toHaveFocus()
    expect(menuButton()).toHaveAttribute('aria-expanded', 'false')
    await user.click(menuButton())
    screen.getByRole('button', { name: 'Sign out' }).focus()
    await user.keyboard('{Enter}')
    expect(screen.getByText('signed out')).toBeInTheDocument()
  })

  it('a click outside closes it; following the link closes it', async () => {
    const user = userEvent.setup()
    const { router } = renderMenu()
    await screen.findByText('GH')
    await user.click(menuButton())
    await user.click(screen.getByText('signed in'))
    expect(menuButton()).toHaveAttribute('aria-expanded', 'false')
    await user.click(menuButton())
    await user.click(screen.getByRole('link', { name: 'Account settings' }))
    expect(router.state.location.pathname).toBe('/account')
    expect(await screen.findByRole('heading', { name: 'account page' })).toBeInTheDocument()
  })
})
