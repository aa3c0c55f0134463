import { screen, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { http, HttpResponse } from 'msw'
import { beforeEach, describe, expect, it } from 'vitest'
import { resetSessionForTests, setTokensForTests } from '@/lib/session'
import { server } from '@/testing/msw-server'
import { proProfile } from '@/testing/fixtures'
import { renderWithProviders } from '@/testing/render'
import { AppShell } from './app-shell'

const profile = proProfile

function renderShell() {
  server.use(http.get('/api/user/profile/', () => HttpResponse.json(profile)))
  return renderWithProviders(
    <AppShell signedIn>
      <button type="button">In the page</button>
    </AppShell>,
    { route: '/search' },
  )
}

const menuButton = () => screen.getByRole('button', { name: /^(Open|Close) navigation$/ })
const drawer = () => document.getElementById('mobile-nav')

beforeEach(() => {
  resetSessionForTests()
  setTokensForTests('access', 'refresh')
})

describe('mobile menu drawer', () => {
  it('Escape closes it and puts the focus back on the menu button', async () => {
    const user = userEvent.setup()
    renderShell()
    await user.click(menuButton())
    expect(menuButton()).toHaveAttribute('aria-expanded', 'true')
    await user.tab()
    expect(within(drawer()!).getAllByRole('link')[0]).toHaveFocus()
    await user.keyboard('{Escape}')
    expect(drawer()).toBeNull()
    expect(menuButton()).toHaveAttribute('aria-expanded', 'false')
    expect(menuButton()).toHaveFocus()
  })

  it('Tab and Shift+Tab stay within the menu button and the drawer', async () => {
    const user = userEvent.setup()
    renderShell()
    await user.click(menuButton())
    const inside = [menuButton(), ...within(drawer()!).getAllByRole('link'), within(drawer()!).getByRole('button', { name: /^Language/ })]
    for (let i = 1; i <= inside.length; i++) {
      await user.tab()
      expect(inside[i % inside.length]).toHaveFocus()
    }
    expect(menuButton()).toHaveFocus()
    await user.tab({ shift: true })
    expect(inside.at(-1)).toHaveFocus()
    expect(screen.getByRole('button', { name: 'In the page' })).not.toHaveFocus()
    expect(drawer()).not.toBeNull()
  })

  it('Escape in its open language list closes only the list; focus reaching the page closes the drawer', async () => {
    const user = userEvent.setup()
    renderShell()
    await user.click(menuButton())
    const language = within(drawer()!).getByRole('button', { name: /^Language/ })
    await user.click(language)
    expect(language).toHaveAttribute('aria-expanded', 'true')
    await user.keyboard('{Escape}')
    expect(language).toHaveAttribute('aria-expanded', 'false')
    expect(language).toHaveFocus()
    expect(drawer()).not.toBeNull()

    await user.click(screen.getByRole('button', { name: 'In the page' }))
    expect(drawer()).toBeNull()
  })
})
