import type { Db } from '../../db/db.ts'
import { fold, matchRank } from '../../lib/name-match.ts'

interface Category {
  id: number
  slug: string
  name_en: string
  names: Record<string, string>
  /** Every name (English and localized) folded for matching. */
  folded: string[]
}

/** Categories never change after the seed: one in-memory copy per database. */
const cache = new WeakMap<Db, Promise<Category[]>>()

function loadCategories(db: Db): Promise<Category[]> {
  let categories = cache.get(db)
  if (!categories) {
    categories = db
      .query<Omit<Category, 'folded'>>('SELECT id, slug, name_en, names FROM categories ORDER BY id')
      .then(({ rows }) => rows.map((r) => ({ ...r, folded: [...new Set([r.name_en, ...Object.values(r.names)].map(fold))] })))
    cache.set(db, categories)
    categories.catch(() => cache.delete(db))
  }
  return categories
}

/**
 * GET /api/categories/: the categories asked for by id (alphabetical in `lang`), or those matching `q`
 * in any of their names, best first, at most `limit`.
 */
export async function findCategories(db: Db, ask: { q: string | undefined; limit: number; lang: string; ids: number[] | undefined }) {
  const { q, limit, lang, ids } = ask
  const categories = await loadCategories(db)
  const collator = new Intl.Collator(lang)
  const nameOf = (cat: Category) => cat.names[lang] ?? cat.name_en
  const toJson = (cat: Category) => ({ id: cat.id, slug: cat.slug, name: nameOf(cat), name_en: cat.name_en })
  if (ids) {
    const wanted = new Set(ids)
    return categories
      .filter((cat) => wanted.has(cat.id))
      .sort((a, b) => collator.compare(nameOf(a), nameOf(b)))
      .map(toJson)
  }
  const query = fold(q ?? '')
  // Rank by the best of all its names: prefix before word-prefix before substring; then the
  // closest (shortest) matching name, so "restaur" finds Restaurant before Fast food restaurant;
  // then alphabetically in the asked language. Without q every category ties: alphabetical.
  const ranked: { cat: Category; rank: number; length: number; name: string }[] = []
  for (const cat of categories) {
    let rank: number | null = null
    let length = 0
    for (const name of cat.folded) {
      const r = matchRank(name, query)
      if (r !== null && (rank === null || r < rank || (r === rank && name.length < length))) {
        rank = r
        length = name.length
      }
    }
    if (rank !== null) ranked.push({ cat, rank, length: query ? length : 0, name: nameOf(cat) })
  }
  ranked.sort((a, b) => a.rank - b.rank || a.length - b.length || collator.compare(a.name, b.name) || a.cat.id - b.cat.id)
  return ranked.slice(0, limit).map(({ cat }) => toJson(cat))
}
