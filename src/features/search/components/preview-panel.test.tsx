import { screen } from '@testing-library/react'
import { describe, expect, it } from 'vitest'
import { renderWithProviders } from '@/testing/render'
import { leadRowSchema } from '@/api/search/get-preview'
import { SampleRows } from './preview-panel'

describe('sample rows', () => {
  it('isolates Latin names and places from right-to-left text around them (<bdi>)', () => {
    const row = leadRowSchema().parse({ name: 'Café Wolf GmbH', city: 'München', zipcode: '80331', categories: ['Bakery'], phone: '+49 1' })
    renderWithProviders(<SampleRows rows={[row]} />)
    // a card on phones and a table row on wider screens: both isolate them
    for (const el of screen.getAllByText('Café Wolf GmbH')) expect(el.tagName).toBe('BDI')
    for (const el of screen.getAllByText('80331 München')) expect(el.tagName).toBe('BDI')
  })
})
