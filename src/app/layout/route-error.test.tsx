import { render, screen, waitFor } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { createMemoryRouter, RouterProvider } from 'react-router'
import { describe, expect, it, vi } from 'vitest'
import { RouteError } from './route-error'

describe('the error page', () => {
  it('says what went wrong, retries the page and offers the way back', async () => {
    vi.spyOn(console, 'error').mockImplementation(() => {})
    let broken = true
    function Flaky() {
      if (broken) throw new TypeError('Failed to fetch')
      return <h1>page works</h1>
    }
    const router = createMemoryRouter([{ path: '/history', element: <Flaky />, ErrorBoundary: RouteError }], {
      initialEntries: ['/history'],
    })
    render(<RouterProvider router={router} />)

    expect(await screen.findByRole('heading', { level: 1, name: 'Something went wrong' })).toBeInTheDocument()
    expect(screen.getByText('The service cannot be reached. Check your connection and try again.')).toBeInTheDocument()
    expect(screen.getByRole('link', { name: 'Back to the dashboard' })).toHaveAttribute('href', '/search')
    await waitFor(() => expect(document.title).toBe('Something went wrong · Leads'))

    broken = false // the network is back
    await userEvent.setup().click(screen.getByRole('button', { name: 'Try again' }))
    expect(await screen.findByRole('heading', { name: 'page works' })).toBeInTheDocument()
  })
})
