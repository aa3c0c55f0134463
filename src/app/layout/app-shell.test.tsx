import { screen, waitFor, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { http, HttpResponse } from 'msw'
import { beforeEach, describe, expect, it } from 'vitest'
import { capabilitiesOptions } from '@/api/capabilities/get-capabilities'
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

describe('the webhooks link', () => {
  it('is not there when the service does not offer webhooks (no capabilities at all)', async () => {
    const { queryClient } = renderShell()
    const nav = screen.getAllByRole('navigation', { name: 'Main' })[0]!
    expect(within(nav).getByRole('link', { name: 'API keys' })).toBeInTheDocument()
    // the service has answered (404: no extensions), and still no link
    await waitFor(() => expect(queryClient.getQueryState(capabilitiesOptions().queryKey)?.status).toBe('success'))
    expect(within(nav).queryByRole('link', { name: 'Webhooks' })).not.toBeInTheDocument()
  })

  it('is there, after API keys, when the service lists the extension', async () => {
    server.use(http.get('/api/capabilities/', () => HttpResponse.json({ webhooks: { version: 1, events: ['export.completed'] } })))
    renderShell()
    const nav = screen.getAllByRole('navigation', { name: 'Main' })[0]!
    const link = await within(nav).findByRole('link', { name: 'Webhooks' })
    expect(link).toHaveAttribute('href', '/webhooks')
    const names = within(nav)
      .getAllByRole('link')
      .map((a) => a.textContent)
    expect(names.indexOf('Webhooks')).toBe(names.indexOf('API keys') + 1)
  })
})
