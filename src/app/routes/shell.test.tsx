import { http, HttpResponse } from 'msw'
import { render, screen, waitFor, within } from '@testing-library/react'
import { createMemoryRouter, RouterProvider } from 'react-router'
import { beforeEach, describe, expect, it } from 'vitest'
import { proProfile } from '@/testing/fixtures'
import { server } from '@/testing/msw-server'
import { resetSessionForTests, setTokensForTests } from '@/lib/session'
import { queryClient } from '@/lib/query-client'
import { forgetLastSearch, rememberLastSearch } from '@/lib/last-search'
import { Component as Shell } from './shell'

const profile = proProfile

function renderAt(path: string) {
  const router = createMemoryRouter(
    [
      { path: '/sign-in', element: <p>sign-in page</p> },
      {
        element: <Shell />,
        children: [
          { path: '/plans', element: <h1>plans page</h1> },
          { path: '/history', element: <h1>history page</h1> },
        ],
      },
    ],
    { initialEntries: [path] },
  )
  render(<RouterProvider router={router} />)
  return router
}

beforeEach(() => {
  resetSessionForTests()
  queryClient.clear()
})

describe('the shell', () => {
  it('sends a signed-out visitor to sign-in with the way back', async () => {
    const router = renderAt('/history?page=3')
    expect(await screen.findByText('sign-in page')).toBeInTheDocument()
    expect(router.state.location.search).toBe('?next=%2Fhistory%3Fpage%3D3')
  })

  it('shows the public plans page signed out, with sign-in and sign-up in the header', async () => {
    renderAt('/plans')
    expect(await screen.findByRole('heading', { name: 'plans page' })).toBeInTheDocument()
    expect(screen.getByRole('link', { name: 'Sign in' })).toHaveAttribute('href', '/sign-in?next=%2Fplans')
    expect(screen.getByRole('link', { name: 'Create account' })).toBeInTheDocument()
    expect(screen.queryByRole('region', { name: 'Credit balance' })).not.toBeInTheDocument()
  })

  it('signed in: navigation, the credit balance from the profile and the user menu', async () => {
    setTokensForTests('access', 'refresh')
    server.use(http.get('/api/user/profile/', () => HttpResponse.json(profile)))
    renderAt('/history')
    expect(await screen.findByRole('heading', { name: 'history page' })).toBeInTheDocument()
    const nav = screen.getAllByRole('navigation', { name: 'Main' })[0]!
    expect(
      within(nav)
        .getAllByRole('link')
        .map((a) => a.textContent),
    ).toEqual(['Search', 'Exports history', 'API keys', 'Account', 'Plans'])
    expect(within(nav).getByRole('link', { name: 'Exports history' })).toHaveAttribute('aria-current', 'page')
    const balance = screen.getByRole('region', { name: 'Credit balance' })
    // the numbers sit in <bdi>s within the sentence
    expect(await within(balance).findByRole('button', { name: '1,534 credits left' })).toBeInTheDocument()
    expect(within(balance).getByTestId('credits-subscription')).toHaveTextContent('1,234 of 5,000 left this period')
    expect(within(balance).getByTestId('credits-purchased')).toHaveTextContent('300')
    expect(screen.getByRole('button', { name: 'Account menu' })).toBeInTheDocument()
    expect(screen.getByRole('link', { name: 'Skip to main content' })).toHaveAttribute('href', '#main')
  })

  it('the logo, like "Search", returns to the account’s last search', async () => {
    setTokensForTests('access', 'refresh')
    server.use(http.get('/api/user/profile/', () => HttpResponse.json(profile)))
    rememberLastSearch(String(profile.id), 'country=DE&email=1')
    renderAt('/history')
    expect(await screen.findByRole('heading', { name: 'history page' })).toBeInTheDocument()
    const nav = screen.getAllByRole('navigation', { name: 'Main' })[0]!
    await waitFor(() => expect(within(nav).getByRole('link', { name: 'Search' })).toHaveAttribute('href', '/search?country=DE&email=1'))
    expect(screen.getByRole('link', { name: 'Leads' })).toHaveAttribute('href', '/search?country=DE&email=1')
    forgetLastSearch(String(profile.id))
  })

  it('signed in without a last search, the logo opens the empty search', async () => {
    setTokensForTests('access', 'refresh')
    server.use(http.get('/api/user/profile/', () => HttpResponse.json(profile)))
    renderAt('/history')
    expect(await screen.findByRole('heading', { name: 'history page' })).toBeInTheDocument()
    expect(screen.getByRole('link', { name: 'Leads' })).toHaveAttribute('href', '/search')
  })
})
