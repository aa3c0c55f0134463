import synonyms from './header-synonyms.json' with { type: 'json' }
import { fold } from './keys.ts'

/** The fields a list's columns can be mapped to (issue 27), in the order the proposal fills them. */
export const LIST_FIELDS = ['name', 'website', 'email', 'phone', 'street', 'city', 'postal_code', 'country'] as const
export type ListField = (typeof LIST_FIELDS)[number]

/** Field → the index of the column holding it (0-based), for the fields the file has. */
export type Mapping = Partial<Record<ListField, number>>

/** Folded synonym → field; a synonym two fields share goes to the first (LIST_FIELDS order). */
const BY_SYNONYM = new Map<string, ListField>()
for (const field of LIST_FIELDS) {
  for (const words of Object.values(synonyms[field] as Record<string, string[]>)) {
    for (const word of words) {
      const key = fold(word)
      if (key && !BY_SYNONYM.has(key)) BY_SYNONYM.set(key, field)
    }
  }
}
/** For headers that hold a synonym among other words ("Company name (legal)", "Telefon Zentrale"). */
const CONTAINED = [...BY_SYNONYM.entries()].filter(([key]) => key.length >= 3)

/**
 * The mapping proposed from a file's headers: a header that is one of a field's names in any of the
 * 27 languages (header-synonyms.json), else one that contains such a name as whole words. Each field
 * takes one column, the first that names it; each column one field.
 */
export function proposeMapping(headers: readonly string[]): Mapping {
  const folded = headers.map((h) => fold(h))
  const mapping: Mapping = {}
  const taken = new Set<number>()
  const assign = (field: ListField, column: number) => {
    if (mapping[field] !== undefined || taken.has(column)) return
    mapping[field] = column
    taken.add(column)
  }
  folded.forEach((h, i) => {
    const field = BY_SYNONYM.get(h)
    if (field) assign(field, i)
  })
  // then headers that hold a name among other words, the longest names first, whichever header holds them
  const hits = folded.flatMap((h, i) =>
    taken.has(i) || !h ? [] : CONTAINED.filter(([key]) => ` ${h} `.includes(` ${key} `)).map(([key, field]) => ({ i, key, field })),
  )
  hits.sort((a, b) => b.key.length - a.key.length || a.i - b.i)
  for (const hit of hits) assign(hit.field, hit.i)
  return mapping
}

/** Whether a mapping holds enough to find a business: name and city, a website, an e-mail address or a phone. */
export const canMatch = (m: Mapping) =>
  (m.name !== undefined && m.city !== undefined) || m.website !== undefined || m.email !== undefined || m.phone !== undefined
