import { act, fireEvent, render, screen, waitFor } from '@testing-library/react'
import { expect, it } from 'vitest'
import type { SearchFilters } from '@/domain/search-filters'
import type { SetFilters } from '../hooks/use-search-filters'
import { ExportOptions } from './export-options'

const capField = () => screen.getByLabelText('Most leads to export')

/** A key as the browser delivers it, outside act(): React takes it as it comes, between its own tasks. */
function type(field: HTMLElement, value: string) {
  Object.getOwnPropertyDescriptor(HTMLInputElement.prototype, 'value')!.set!.call(field, value)
  field.dispatchEvent(new Event('input', { bubbles: true }))
}

it('a key typed between the parser’s late reading and its render is kept when the address catches up', async () => {
  const sent: (number | null)[] = []
  const onChange: SetFilters = (change) => {
    sent.push(typeof change === 'function' ? change({ cap: null } as SearchFilters).cap : change.cap)
    // the next key arrives after the effect that read "1" has run, before the page has rendered what it set
    if (sent.length === 1) queueMicrotask(() => type(capField(), '1,'))
  }
  const { rerender } = render(<ExportOptions cap={null} format="csv" onChange={onChange} />)
  // the reader of numbers is not loaded yet: "1" has no verdict until it is, then it is read as 1
  fireEvent.change(capField(), { target: { value: '1' } })
  await waitFor(() => expect(sent).toEqual([1]))
  await waitFor(() => expect(capField()).toHaveValue('1,'))
  fireEvent.change(capField(), { target: { value: '1,0' } })
  // the address now holds the 1 that was sent: the text typed since stays (it was replaced by "1")
  act(() => rerender(<ExportOptions cap={1} format="csv" onChange={onChange} />))
  expect(capField()).toHaveValue('1,0')
  fireEvent.change(capField(), { target: { value: '1,000' } })
  expect(capField()).toHaveValue('1,000')
  expect(sent.at(-1)).toBe(1000)
})
