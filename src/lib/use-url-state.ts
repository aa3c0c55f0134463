import { startTransition, useCallback, useLayoutEffect, useMemo, useRef, useState } from 'react'
import { useNavigate, useSearchParams } from 'react-router'

/** How a value is kept in the address's query. A module constant: the hook's setter keeps its identity with it. */
export interface UrlCodec<T> {
  /** The value a query stands for: one it cannot read gives a default, never an error. */
  parse: (params: URLSearchParams) => T
  format: (value: T) => URLSearchParams
}

/** A new value, or how to make one from the newest (which a setter that keeps its identity cannot close over). */
export type UrlStateChange<T> = T | ((current: T) => T)

/** Returns the query it navigated to, or null when the change leaves the value as it is (no navigation). */
export type SetUrlState<T> = (change: UrlStateChange<T>, options?: { replace?: boolean }) => string | null

const apply = <T>(change: UrlStateChange<T>, current: T): T =>
  typeof change === 'function' ? (change as (current: T) => T)(current) : change

/** Bounds the memo of field values (a page's life of changes, with back and forward). */
const SHARED_FIELDS = 200

/**
 * Each top-level field of `value`, as the same object as the last equal one read: a change keeps the
 * lists it does not touch, so memoized controls of the other fields skip rendering. A memo by content
 * (JSON text), so what it returns depends on the query alone.
 */
function shareFields<T extends object>(memo: Map<string, unknown>, value: T): T {
  const shared = { ...value }
  for (const [field, v] of Object.entries(value)) {
    if (v === null || typeof v !== 'object') continue
    const id = `${field}\u0000${JSON.stringify(v)}`
    if (memo.has(id)) Object.assign(shared, { [field]: memo.get(id) })
    else {
      if (memo.size >= SHARED_FIELDS) memo.clear()
      memo.set(id, v)
    }
  }
  return shared
}

/**
 * State kept in the address's query: every change is a history entry (so back and forward step
 * through it), except those marked `replace` (typing in a field), which replace the current one.
 *
 * The address renders as a transition (React Router commits navigations inside `startTransition`), and
 * a change is itself one: an async action that lasts until the router has the new address. A control
 * that shows its own choice at once (`useOptimistic`, set in the same transition) keeps showing it
 * until the address does, with no frame in between, and the rest of the page follows in slices. There
 * is no optimistic copy of the value here: the address is the one state. The router's work runs in
 * the event's own task: were the action to wait for the next frame first, it would hold every other
 * navigation meanwhile (a link clicked at once) and then navigate from the page left.
 *
 * What remains besides the address is for the setter alone, which keeps its identity for the page's
 * life (memoized controls of other fields then skip rendering), so it cannot close over the value
 * rendered, and which must start from the newest value, not the rendered one: a change made before the
 * address of the one before has rendered (two in one handler, a keystroke while the transition is
 * under way) would undo it otherwise. `latest` is that value: written by each change, and by the
 * address once it renders (back and forward too).
 */
export function useUrlState<T extends object>(codec: UrlCodec<T>): readonly [T, SetUrlState<T>] {
  const [params] = useSearchParams()
  const key = params.toString()
  const navigate = useNavigate()
  const [memo] = useState(() => new Map<string, unknown>())
  const value = useMemo(() => shareFields(memo, codec.parse(new URLSearchParams(key))), [memo, codec, key])
  const latest = useRef({ key, value })
  useLayoutEffect(() => {
    latest.current = { key, value }
  }, [key, value])
  const set = useCallback<SetUrlState<T>>(
    (change, { replace = false } = {}) => {
      const current = latest.current
      const next = codec.format(apply(change, current.value))
      const to = next.toString()
      if (to === current.key) return null
      // exactly what the address will say, for a change that follows before it renders
      latest.current = { key: to, value: codec.parse(next) }
      startTransition(async () => {
        await navigate(`?${to}`, { replace, preventScrollReset: true })
      })
      return to
    },
    [codec, navigate],
  )
  return [value, set] as const
}
