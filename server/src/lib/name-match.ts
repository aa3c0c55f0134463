/** Case- and accent-insensitive form of a name for matching ("Łódź" → "lodz", "Köln" → "koln"). */
export function fold(s: string): string {
  return words(
    s
      .normalize('NFKD')
      .replace(/[\u0300-\u036f]/g, '')
      .replace(/ł/gi, 'l')
      .replace(/ß/g, 'ss')
      .toLowerCase(),
  )
}

/** Case-insensitive form that keeps the accents ("Köln" → "köln"): whether a name has them as typed. */
export function lower(s: string): string {
  return words(s.normalize('NFC').toLowerCase())
}

/** Words apart by single spaces: apostrophes dropped ("’s-Hertogenbosch"), other punctuation a space. */
const words = (s: string) =>
  s
    .replace(/[’'`]/g, '')
    .replace(/[^\p{L}\p{M}\p{N}]+/gu, ' ')
    .trim()

/**
 * How well a folded name matches a folded query, best first, or null when it does not:
 * 0 the whole name; 1 its first whole words ("frankfurt" in "frankfurt am main"); 2 its beginning
 * ("mu" in "munchen"); 3 a later whole word ("munchen" in "landkreis munchen"); 4 a later word's
 * beginning; 5 inside a word ("mu" in "dortmund"). A person types a name from its start: "Mü" means
 * München before Dortmund.
 */
export function matchRank(foldedName: string, foldedQuery: string): number | null {
  if (!foldedQuery || foldedName === foldedQuery) return 0
  if (foldedName.startsWith(foldedQuery)) return foldedName[foldedQuery.length] === ' ' ? 1 : 2
  const word = ` ${foldedQuery}`
  if (foldedName.endsWith(word) || foldedName.includes(`${word} `)) return 3
  if (foldedName.includes(word)) return 4
  if (foldedName.includes(foldedQuery)) return 5
  return null
}
