import { render, screen, within } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { useState } from 'react'
import { describe, expect, it, vi } from 'vitest'
import { MultiCombobox } from './combobox'
import { Highlight } from './highlight'

interface Fruit {
  id: string
  name: string
}

const FRUITS: Fruit[] = [
  { id: 'a', name: 'Apple' },
  { id: 'b', name: 'Banana' },
  { id: 'c', name: 'Cherry' },
  { id: 'd', name: 'Date' },
]

/** The caller's side: local filtering, chosen values kept outside (as the search builder's chips). */
function Harness({
  initial = [],
  onChangeSpy,
  disabled = false,
  loading = false,
  footer,
}: {
  initial?: Fruit[]
  onChangeSpy?: (next: Fruit[]) => void
  disabled?: boolean
  loading?: boolean
  footer?: string
}) {
  const [value, setValue] = useState<Fruit[]>(initial)
  const [query, setQuery] = useState('')
  const q = query.trim().toLowerCase()
  const options = FRUITS.filter((f) => f.name.toLowerCase().includes(q))
  return (
    <>
      <MultiCombobox<Fruit>
        label="Fruit"
        toggleLabel="Show fruit"
        placeholder="Type a fruit"
        hint="Pick as many as you like"
        options={options}
        value={value}
        onChange={(next) => {
          onChangeSpy?.(next)
          setValue(next)
        }}
        getKey={(f) => f.id}
        getLabel={(f) => f.name}
        renderOption={(f, typed) => <Highlight text={f.name} query={typed} />}
        query={query}
        onQueryChange={setQuery}
        emptyText="Nothing matches"
        footer={footer}
        loading={loading}
        loadingLabel="Loading…"
        disabled={disabled}
      />
      <output aria-label="Chosen">{value.map((f) => f.name).join(', ')}</output>
      <button type="button">Elsewhere</button>
    </>
  )
}

const box = () => screen.getByRole('combobox', { name: 'Fruit' })
const activeOption = () => {
  const id = box().getAttribute('aria-activedescendant')
  return id ? document.getElementById(id) : null
}

describe('MultiCombobox', () => {
  it('is a labelled combobox with its hint, closed until focused', () => {
    render(<Harness />)
    expect(box()).toHaveAttribute('aria-expanded', 'false')
    expect(box()).toHaveAttribute('aria-autocomplete', 'list')
    expect(box()).toHaveAccessibleDescription('Pick as many as you like')
    expect(box()).not.toHaveAttribute('aria-activedescendant')
    expect(screen.queryByRole('listbox')).not.toBeInTheDocument()
    expect(screen.getByRole('button', { name: 'Show fruit' })).toHaveAttribute('aria-expanded', 'false')
  })

  it('opens on focus with the first option active and moves with the arrow keys', async () => {
    const user = userEvent.setup()
    render(<Harness />)
    await user.tab()
    expect(box()).toHaveFocus()
    expect(box()).toHaveAttribute('aria-expanded', 'true')
    const listbox = screen.getByRole('listbox', { name: 'Fruit' })
    expect(listbox).toHaveAttribute('aria-multiselectable', 'true')
    expect(box()).toHaveAttribute('aria-controls', listbox.id)
    expect(
      within(listbox)
        .getAllByRole('option')
        .map((o) => o.textContent),
    ).toEqual(['Apple', 'Banana', 'Cherry', 'Date'])
    expect(activeOption()).toHaveTextContent('Apple')
    await user.keyboard('{ArrowDown}{ArrowDown}')
    expect(activeOption()).toHaveTextContent('Cherry')
    await user.keyboard('{ArrowUp}')
    expect(activeOption()).toHaveTextContent('Banana')
    await user.keyboard('{End}')
    expect(activeOption()).toHaveTextContent('Date')
    await user.keyboard('{Home}')
    expect(activeOption()).toHaveTextContent('Apple')
  })

  it('typing narrows (the caller filters) and Enter toggles the best match, keeping the list open and clearing the query', async () => {
    const spy = vi.fn()
    const user = userEvent.setup()
    render(<Harness onChangeSpy={spy} />)
    await user.type(box(), 'an')
    expect(screen.getAllByRole('option').map((o) => o.textContent)).toEqual(['Banana'])
    expect(screen.getByRole('option', { name: 'Banana' }).querySelector('mark')).toHaveTextContent('an')
    await user.keyboard('{Enter}')
    expect(spy).toHaveBeenLastCalledWith([FRUITS[1]])
    expect(box()).toHaveValue('')
    expect(box()).toHaveAttribute('aria-expanded', 'true')
    // the full list is back, the chosen option checked and still active
    expect(screen.getAllByRole('option')).toHaveLength(4)
    expect(screen.getByRole('option', { name: 'Banana' })).toHaveAttribute('aria-selected', 'true')
    expect(screen.getByRole('option', { name: 'Apple' })).toHaveAttribute('aria-selected', 'false')
    expect(activeOption()).toHaveTextContent('Banana')
    // a second choice adds to the first; Enter on a chosen option removes it
    await user.keyboard('{ArrowDown}{Enter}')
    expect(screen.getByRole('status', { name: 'Chosen' })).toHaveTextContent('Banana, Cherry')
    await user.keyboard('{ArrowUp}{Enter}')
    expect(spy).toHaveBeenLastCalledWith([FRUITS[2]])
    expect(screen.getByRole('option', { name: 'Banana' })).toHaveAttribute('aria-selected', 'false')
  })

  it('Escape closes and clears the query; typing or Arrow Down opens again', async () => {
    const user = userEvent.setup()
    render(<Harness />)
    await user.type(box(), 'ch')
    expect(screen.getAllByRole('option')).toHaveLength(1)
    await user.keyboard('{Escape}')
    expect(box()).toHaveAttribute('aria-expanded', 'false')
    expect(box()).toHaveValue('')
    expect(box()).toHaveFocus()
    expect(screen.queryByRole('listbox')).not.toBeInTheDocument()
    await user.keyboard('{ArrowDown}')
    expect(box()).toHaveAttribute('aria-expanded', 'true')
    await user.keyboard('{Escape}d')
    expect(box()).toHaveAttribute('aria-expanded', 'true')
    expect(screen.getAllByRole('option').map((o) => o.textContent)).toEqual(['Date'])
  })

  it('a click toggles an option and keeps the list open; the button opens and closes it', async () => {
    const spy = vi.fn()
    const user = userEvent.setup()
    render(<Harness onChangeSpy={spy} />)
    const toggle = screen.getByRole('button', { name: 'Show fruit' })
    await user.click(toggle)
    expect(toggle).toHaveAttribute('aria-expanded', 'true')
    expect(box()).toHaveFocus()
    await user.click(screen.getByRole('option', { name: 'Date' }))
    expect(spy).toHaveBeenLastCalledWith([FRUITS[3]])
    expect(screen.getByRole('option', { name: 'Date' })).toHaveAttribute('aria-selected', 'true')
    await user.click(screen.getByRole('option', { name: 'Apple' }))
    expect(spy).toHaveBeenLastCalledWith([FRUITS[3], FRUITS[0]])
    await user.click(toggle)
    expect(toggle).toHaveAttribute('aria-expanded', 'false')
    expect(screen.queryByRole('option')).not.toBeInTheDocument()
  })

  it('leaving by Tab or by a click elsewhere closes without choosing', async () => {
    const spy = vi.fn()
    const user = userEvent.setup()
    render(<Harness onChangeSpy={spy} />)
    await user.type(box(), 'a')
    await user.keyboard('{ArrowDown}')
    // neither the (scrolling) listbox nor the toggle is a tab stop: Tab goes straight to the next field
    expect(screen.getByRole('listbox')).toHaveAttribute('tabindex', '-1')
    expect(screen.getByRole('button', { name: 'Show fruit' })).toHaveAttribute('tabindex', '-1')
    await user.tab()
    expect(screen.getByRole('button', { name: 'Elsewhere' })).toHaveFocus()
    expect(box()).toHaveAttribute('aria-expanded', 'false')
    expect(box()).toHaveValue('')
    await user.click(box())
    expect(box()).toHaveAttribute('aria-expanded', 'true')
    await user.click(screen.getByRole('button', { name: 'Elsewhere' }))
    expect(box()).toHaveAttribute('aria-expanded', 'false')
    expect(spy).not.toHaveBeenCalled()
  })

  it('says when nothing matches, shows the footer under the options, and the spinner while loading', async () => {
    const user = userEvent.setup()
    const { rerender } = render(<Harness footer="Type to narrow" />)
    await user.click(box())
    expect(screen.getByText('Type to narrow')).toBeVisible()
    await user.type(box(), 'zz')
    expect(screen.queryByRole('option')).not.toBeInTheDocument()
    expect(screen.getByText('Nothing matches')).toBeVisible()
    // Enter with nothing to choose closes
    await user.keyboard('{Enter}')
    expect(box()).toHaveAttribute('aria-expanded', 'false')
    rerender(<Harness loading />)
    expect(screen.getByRole('button', { name: 'Show fruit' })).toContainElement(screen.getByRole('img', { name: 'Loading…' }))
  })

  it('disabled: neither focus nor the button open it', async () => {
    const user = userEvent.setup()
    render(<Harness disabled />)
    expect(box()).toBeDisabled()
    const toggle = screen.getByRole('button', { name: 'Show fruit' })
    expect(toggle).toBeDisabled()
    await user.click(toggle)
    await user.click(box())
    expect(box()).toHaveAttribute('aria-expanded', 'false')
    expect(screen.queryByRole('option')).not.toBeInTheDocument()
  })
})

describe('a long list', () => {
  const MANY = Array.from({ length: 120 }, (_, i) => ({ id: String(i), name: `Place ${String(i).padStart(3, '0')}` }))
  function Long() {
    const [query, setQuery] = useState('')
    return (
      <MultiCombobox<Fruit>
        label="Place"
        toggleLabel="Show places"
        options={MANY.filter((p) => p.name.toLowerCase().includes(query.toLowerCase()))}
        value={[]}
        onChange={() => {}}
        getKey={(p) => p.id}
        getLabel={(p) => p.name}
        query={query}
        onQueryChange={setQuery}
      />
    )
  }

  it('draws every option once open (the first rows first), and End reaches the last', async () => {
    const user = userEvent.setup()
    render(<Long />)
    await user.click(screen.getByRole('combobox', { name: 'Place' }))
    expect(await screen.findAllByRole('option')).toHaveLength(120)
    await user.keyboard('{End}')
    expect(screen.getByRole('combobox', { name: 'Place' })).toHaveAttribute(
      'aria-activedescendant',
      screen.getByRole('option', { name: 'Place 119' }).id,
    )
    await user.type(screen.getByRole('combobox', { name: 'Place' }), '11')
    expect(screen.getAllByRole('option').map((o) => o.textContent)).toEqual([
      'Place 011',
      ...Array.from({ length: 10 }, (_, i) => `Place 11${i}`),
    ])
  })
})
