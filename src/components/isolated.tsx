import type { ReactNode } from 'react'

/** A character no translation contains: marks where the value goes. */
const SLOT = '\uE000'

/**
 * A translated sentence with one Latin value (a key prefix, an email address) isolated in `<bdi dir="ltr">`, so that inside
 * Hebrew text it is neither reordered nor glued to its neighbours. `translate` is called with the slot
 * marker as the value. An ellipsis right after the value belongs to it ("lds_QnTi…") and is isolated with it.
 */
export function withIsolated(translate: (slot: string) => string, value: string): ReactNode {
  const text = translate(SLOT)
  const at = text.indexOf(SLOT)
  if (at < 0) return text
  let after = text.slice(at + SLOT.length)
  let shown = value
  if (after.startsWith('…')) {
    shown += '…'
    after = after.slice(1)
  }
  return (
    <>
      {text.slice(0, at)}
      <bdi dir="ltr">{shown}</bdi>
      {after}
    </>
  )
}
