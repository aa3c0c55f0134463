import { Fragment, type ReactNode } from 'react'

interface NamedKey {
  name: string | null
  token_key: string
}

const MARKERS = { name: '\uE000n\uE000', prefix: '\uE000p\uE000' } as const

/**
 * A translated sentence that names a key, each value in a <bdi>: the name (the person's own words, in
 * any script) in its own direction, the Latin prefix with the ellipsis after it ("lds_QnTi…") left to
 * right. In Hebrew neither is reordered nor pulls the words around it. The values go through the
 * translation as markers, so the translations stay plain strings.
 */
export function keyText(translate: (values: { name: string; prefix: string }) => string, key: NamedKey): ReactNode {
  const parts = translate(MARKERS).split(/\uE000([np])\uE000/)
  return parts.map((part, i) => {
    if (i % 2 === 0) {
      // the ellipsis right after the prefix went into the prefix's <bdi>
      const text = parts[i - 1] === 'p' && part.startsWith('…') ? part.slice(1) : part
      return <Fragment key={i}>{text}</Fragment>
    }
    if (part === 'n') return <bdi key={i}>{key.name}</bdi>
    return (
      <bdi key={i} dir="ltr">
        {key.token_key}
        {parts[i + 1]?.startsWith('…') ? '…' : ''}
      </bdi>
    )
  })
}
