import { screen } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { http, HttpResponse } from 'msw'
import { describe, expect, it } from 'vitest'
import { server } from '@/testing/msw-server'
import { renderWithProviders } from '@/testing/render'
import type { HistoryEntry } from '@/api/history/get-search-history'
import { WatchControls } from './watch-controls'

const entry = (name: string | null) =>
  ({ search_id: '7', status: 'COMPLETED', delta_of: null, watched: false, name }) as unknown as HistoryEntry

describe('naming a search (issue 21: the service’s limit, not a guess)', () => {
  it('stops the name at the limit the service lists, and refuses a longer name it already has before sending', async () => {
    let patched = false
    server.use(
      http.patch('*/api/user/search-history/:id/', () => {
        patched = true
        return HttpResponse.json({})
      }),
    )
    renderWithProviders(<WatchControls entry={entry('n'.repeat(40))} nameMax={30} />)
    await userEvent.click(screen.getByRole('button', { name: 'Rename' }))
    const input = screen.getByLabelText('Name of this search')
    expect(input).toHaveAttribute('maxlength', '30')
    expect(input).toHaveAccessibleDescription(/Characters: 40 of 30$/)
    await userEvent.click(screen.getByRole('button', { name: 'Save name' }))
    expect(await screen.findByText('Use at most 30 characters.')).toBeInTheDocument()
    expect(patched).toBe(false)
  })
})
