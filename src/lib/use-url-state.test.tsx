import { render, screen, waitFor } from '@testing-library/react'
import userEvent from '@testing-library/user-event'
import { startTransition, useLayoutEffect, useOptimistic } from 'react'
import { createMemoryRouter, RouterProvider, useNavigate } from 'react-router'
import { describe, expect, it } from 'vitest'
import { renderWithProviders } from '@/testing/render'
import { useUrlState, type SetUrlState, type UrlCodec } from './use-url-state'

interface Search {
  tags: string[]
  on: boolean
  cap: number | null
}

const codec: UrlCodec<Search> = {
  parse: (p) => ({ tags: p.getAll('tag'), on: p.get('on') === '1', cap: p.has('cap') ? Number(p.get('cap')) : null }),
  format: (s) => {
    const p = new URLSearchParams(s.tags.map((t) => ['tag', t]))
    if (s.on) p.set('on', '1')
    if (s.cap !== null) p.set('cap', String(s.cap))
    return p
  },
}

/** Renders the state and hands out every value and setter it rendered. */
function renderUrlState(route: string, actions: (set: SetUrlState<Search>, value: Search) => Record<string, () => void>) {
  const seen: { value: Search; set: SetUrlState<Search> }[] = []
  function Probe() {
    const [value, set] = useUrlState(codec)
    seen.push({ value, set })
    return (
      <div>
        <output data-testid="value">{JSON.stringify(value)}</output>
        {Object.entries(actions(set, value)).map(([name, run]) => (
          <button key={name} type="button" onClick={run}>
            {name}
          </button>
        ))}
      </div>
    )
  }
  const rendered = renderWithProviders(<Probe />, { route })
  const shown = () => JSON.parse(screen.getByTestId('value').textContent ?? '') as Search
  const search = () => rendered.router.state.location.search
  return { ...rendered, seen, shown, search }
}

describe('useUrlState', () => {
  it('reads the value from the address; a change is a history entry, and back and forward restore each', async () => {
    const { router, shown, search } = renderUrlState('/s?tag=a', (set) => ({ add: () => set((s) => ({ ...s, tags: [...s.tags, 'b'] })) }))
    expect(shown()).toEqual({ tags: ['a'], on: false, cap: null })
    await userEvent.click(screen.getByRole('button', { name: 'add' }))
    await waitFor(() => expect(shown().tags).toEqual(['a', 'b']))
    expect(search()).toBe('?tag=a&tag=b')
    await router.navigate(-1)
    await waitFor(() => expect(shown().tags).toEqual(['a']))
    await router.navigate(1)
    await waitFor(() => expect(shown().tags).toEqual(['a', 'b']))
  })

  it('replaces the entry for a change marked replace (keystrokes): typing makes no entry of its own', async () => {
    const { router, search } = renderUrlState('/s?tag=a', (set) => ({
      on: () => set((s) => ({ ...s, on: true })),
      type: () => set((s) => ({ ...s, cap: (s.cap ?? 0) * 10 + 1 }), { replace: true }),
    }))
    await userEvent.click(screen.getByRole('button', { name: 'on' }))
    await waitFor(() => expect(search()).toBe('?tag=a&on=1'))
    for (let i = 0; i < 3; i++) await userEvent.click(screen.getByRole('button', { name: 'type' }))
    await waitFor(() => expect(search()).toBe('?tag=a&on=1&cap=111'))
    await router.navigate(-1)
    await waitFor(() => expect(search()).toBe('?tag=a'))
  })

  it('starts each change from the newest value: changes made at once all hold, in one history entry', async () => {
    const { router, shown, search } = renderUrlState('/s?tag=a', (set) => ({
      both: () => {
        set((s) => ({ ...s, on: true }))
        set((s) => ({ ...s, tags: [...s.tags, 'b'] }), { replace: true })
      },
    }))
    await userEvent.click(screen.getByRole('button', { name: 'both' }))
    await waitFor(() => expect(shown()).toEqual({ tags: ['a', 'b'], on: true, cap: null }))
    expect(search()).toBe('?tag=a&tag=b&on=1')
    await router.navigate(-1)
    await waitFor(() => expect(search()).toBe('?tag=a'))
  })

  it('does not navigate for a change that leaves the value as it is', async () => {
    const { router, search } = renderUrlState('/s?tag=a&on=1', (set) => ({
      same: () => set((s) => ({ ...s, on: true })),
      off: () => set((s) => ({ ...s, on: false })),
    }))
    const before = router.state.location.key
    await userEvent.click(screen.getByRole('button', { name: 'same' }))
    await new Promise((r) => setTimeout(r, 50))
    expect(router.state.location.key).toBe(before)
    await userEvent.click(screen.getByRole('button', { name: 'off' }))
    await waitFor(() => expect(search()).toBe('?tag=a'))
  })

  it('keeps the setter, and every field a change does not touch, as the same objects', async () => {
    const { seen, search } = renderUrlState('/s?tag=a&tag=b', (set) => ({ on: () => set((s) => ({ ...s, on: true })) }))
    const first = seen.at(-1)!
    await userEvent.click(screen.getByRole('button', { name: 'on' }))
    await waitFor(() => expect(seen.at(-1)!.value.on).toBe(true))
    expect(search()).toBe('?tag=a&tag=b&on=1')
    const last = seen.at(-1)!
    expect(last.value.on).toBe(true)
    expect(last.set).toBe(first.set)
    expect(last.value.tags).toBe(first.value.tags)
    // and the value of one address is one object, however often the page renders
    expect(seen.filter((s) => s.value.on).every((s) => s.value === last.value)).toBe(true)
  })

  it('a change made as the page is left does not bring the person back', async () => {
    function Leaving() {
      const [, set] = useUrlState(codec)
      const navigate = useNavigate()
      return (
        <button
          type="button"
          onClick={() => {
            set((s) => ({ ...s, on: true }))
            void navigate('/elsewhere')
          }}
        >
          leave
        </button>
      )
    }
    const { router } = renderWithProviders(<Leaving />, {
      route: '/s?tag=a',
      path: '/s',
      routes: [{ path: '/elsewhere', element: <p>elsewhere</p> }],
    })
    await userEvent.click(screen.getByRole('button', { name: 'leave' }))
    expect(await screen.findByText('elsewhere')).toBeInTheDocument()
    await new Promise((r) => setTimeout(r, 100))
    expect(`${router.state.location.pathname}${router.state.location.search}`).toBe('/elsewhere')
  })

  it('lets a control show its choice at once and keeps it until the address shows it, however long the router takes', async () => {
    const committed: boolean[] = []
    function Flag() {
      const [value, set] = useUrlState(codec)
      const [shown, show] = useOptimistic(value.on)
      useLayoutEffect(() => {
        if (committed.at(-1) !== shown) committed.push(shown)
      })
      return (
        <input
          type="checkbox"
          aria-label="flag"
          checked={shown}
          onChange={(e) => {
            const on = e.target.checked
            startTransition(() => {
              show(on)
              set((s) => ({ ...s, on }))
            })
          }}
        />
      )
    }
    // a navigation that outlasts the click's task (a route loader; the search page has none today): it
    // ends when the test lets it, once React has had time to render whatever it would render meanwhile
    let asked = (): void => undefined
    const loading = new Promise<void>((r) => (asked = r))
    let load = (): void => undefined
    const router = createMemoryRouter(
      [
        {
          path: '/s',
          element: <Flag />,
          loader: ({ request }) => {
            if (!request.url.includes('on=1')) return null
            asked()
            return new Promise((r) => (load = () => r(null)))
          },
        },
      ],
      { initialEntries: ['/s?tag=a'] },
    )
    render(<RouterProvider router={router} />)
    await screen.findByRole('checkbox', { name: 'flag' })
    // as in a browser: React schedules its renders itself, not in the batches of a test's act()
    const react = globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }
    const actEnvironment = react.IS_REACT_ACT_ENVIRONMENT
    react.IS_REACT_ACT_ENVIRONMENT = false
    try {
      screen.getByRole('checkbox', { name: 'flag' }).click()
      await loading
      await new Promise((r) => setTimeout(r, 100))
      expect(router.state.location.search).toBe('?tag=a')
      expect(screen.getByRole('checkbox', { name: 'flag' })).toBeChecked()
      load()
      for (let waited = 0; router.state.location.search !== '?tag=a&on=1' && waited < 2000; waited += 20)
        await new Promise((r) => setTimeout(r, 20))
      await new Promise((r) => setTimeout(r, 100))
    } finally {
      react.IS_REACT_ACT_ENVIRONMENT = actEnvironment
    }
    expect(router.state.location.search).toBe('?tag=a&on=1')
    expect(screen.getByRole('checkbox', { name: 'flag' })).toBeChecked()
    // never the old state in between
    expect(committed).toEqual([false, true])
  })
})
