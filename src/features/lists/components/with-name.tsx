import type { ReactNode } from 'react'

/** A character no translation contains: marks where the name goes. */
const SLOT = '\uE000'

/**
 * A translated sentence around a name the person wrote (a list's, a business's), isolated in `<bdi>`
 * with the direction of its own letters: a Hebrew name in an English sentence, or a Latin one in a
 * Hebrew sentence, is neither reordered nor glued to its neighbours.
 */
export function withName(translate: (slot: string) => string, name: string): ReactNode {
  const [before, after = ''] = translate(SLOT).split(SLOT)
  return (
    <>
      {before}
      <bdi>{name}</bdi>
      {after}
    </>
  )
}
