/**
 * One character as matching sees it, the way the service matches names (server/src/lib/name-match.ts):
 * lower case, decomposed, without its combining marks, and the letters that do not decompose written
 * as a person types them without them (ß → ss, ł → l; a final sigma as any other). A combining mark
 * on its own folds to nothing.
 */
const foldChar = (c: string) =>
  c.toLowerCase().normalize('NFKD').replace(/\p{M}/gu, '').replace(/ß/g, 'ss').replace(/ł/g, 'l').replace(/ς/g, 'σ')

/**
 * Where `query` matches in `text`, case and accents aside, as [start, end) in `text`'s own characters;
 * null when it does not. Folding may change a character's length ("ß" is "ss", "ü" typed as "u" and a
 * combining mark), so each folded character remembers the character it came from: a match ending
 * inside one's folded form takes all of it, and the marks that follow a matched letter go with it.
 */
export function foldedMatch(text: string, query: string): [number, number] | null {
  const wanted = Array.from(query.trim(), foldChar).join('')
  if (!wanted) return null
  let folded = ''
  // for each UTF-16 unit of `folded`: where its character starts and ends in `text`
  const from: number[] = []
  const to: number[] = []
  for (let i = 0; i < text.length;) {
    const c = String.fromCodePoint(text.codePointAt(i)!)
    const f = foldChar(c)
    for (let k = 0; k < f.length; k++) {
      from.push(i)
      to.push(i + c.length)
    }
    folded += f
    i += c.length
  }
  const at = folded.indexOf(wanted)
  if (at < 0) return null
  const start = from[at]!
  let end = to[at + wanted.length - 1]!
  while (end < text.length) {
    const c = String.fromCodePoint(text.codePointAt(end)!)
    if (foldChar(c) !== '') break
    end += c.length
  }
  return [start, end]
}

/** The part of `text` that matches `query` (case and accents aside: "mu" marks "Mü" in "München"), in a <mark>. */
export function Highlight({ text, query }: { text: string; query: string }) {
  const match = foldedMatch(text, query)
  if (!match) return <>{text}</>
  const [start, end] = match
  return (
    <>
      {text.slice(0, start)}
      {/* on the active (brand-coloured) option a yellow mark under white text is unreadable: there the
          match is shown bold and underlined in the row's own colours */}
      <mark className="rounded-sm bg-amber-200 px-0 text-inherit group-data-focus:bg-transparent group-data-focus:font-bold group-data-focus:underline group-data-focus:decoration-2 group-data-focus:underline-offset-2 dark:bg-amber-700 dark:group-data-focus:bg-transparent">
        {text.slice(start, end)}
      </mark>
      {text.slice(end)}
    </>
  )
}
