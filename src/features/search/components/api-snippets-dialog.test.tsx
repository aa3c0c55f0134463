import { screen, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { describe, expect, it, vi } from 'vitest'
import { renderWithProviders } from '@/testing/render'
import { emptyFilters } from '@/domain/search-filters'
import { ApiSnippetsDialog } from './api-snippets-dialog'

const filters = {
  ...emptyFilters,
  countries: ['DE', 'FR'],
  categories: [{ id: '12', name: 'Bakery' }],
  level3: [{ id: '901', name: 'Lyon', country: 'FR' }],
  email: true,
  cap: 250,
  format: 'excel' as const,
}

describe('ApiSnippetsDialog', () => {
  it('shows the search as curl, JavaScript and Python, each copyable, with the filters, cap and format', async () => {
    const writeText = vi.fn().mockResolvedValue(undefined)
    Object.defineProperty(navigator, 'clipboard', { value: { writeText }, configurable: true })
    const onClose = vi.fn()
    renderWithProviders(<ApiSnippetsDialog filters={filters} onClose={onClose} />)
    const dialog = await screen.findByRole('dialog', { name: 'This search in the API' })
    const origin = window.location.origin
    const countUrl = `${origin}/api/companies/?countries=DE&countries=FR&category=12&level3_location=901&email=true`

    const curl = within(dialog).getByLabelText('curl code')
    expect(curl.textContent).toContain(`'${countUrl}'`)
    expect(curl.textContent).toContain('"export_format":"excel","max_leads":250')
    await userEvent.click(within(dialog).getByRole('button', { name: 'Copy curl' }))
    expect(writeText).toHaveBeenCalledWith(curl.textContent)
    expect(await within(dialog).findByText('Copied.')).toBeInTheDocument()

    await userEvent.click(within(dialog).getByRole('tab', { name: 'Python' }))
    const python = within(dialog).getByLabelText('Python code')
    expect(python.textContent).toContain('("level3_location", "901")')
    expect(python.textContent).toContain('"max_leads": 250')

    await userEvent.click(within(dialog).getByRole('tab', { name: 'JavaScript' }))
    expect(within(dialog).getByLabelText('JavaScript code').textContent).toContain(JSON.stringify(countUrl))

    await userEvent.click(within(dialog).getByRole('button', { name: 'Close' }))
    expect(onClose).toHaveBeenCalled()
  })

  it('says when the clipboard refuses', async () => {
    Object.defineProperty(navigator, 'clipboard', {
      value: { writeText: vi.fn().mockRejectedValue(new Error('denied')) },
      configurable: true,
    })
    renderWithProviders(<ApiSnippetsDialog filters={{ ...emptyFilters, countries: ['US'] }} onClose={() => {}} />)
    const dialog = await screen.findByRole('dialog')
    await userEvent.click(within(dialog).getByRole('button', { name: 'Copy curl' }))
    expect(await within(dialog).findByText(/Could not copy/)).toBeInTheDocument()
    // no cap: the export body has no max_leads
    expect(within(dialog).getByLabelText('curl code').textContent).not.toContain('max_leads')
  })
})
