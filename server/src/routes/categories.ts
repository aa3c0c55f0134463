import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi'
import type { AppEnv } from '../app-env.ts'
import type { Db } from '../db/db.ts'
import { authed, security } from '../lib/authed.ts'
import { authErrors, jsonError, languageSchema, safeString } from '../lib/schemas.ts'
import { idListQuery } from '../lib/filters.ts'
import { fold, matchRank } from './geo.ts'

const CategorySchema = z
  .object({
    id: z.number().int(),
    slug: z.string(),
    name: z.string().openapi({ description: 'Name in `lang` (English when there is no translation).' }),
    name_en: z.string(),
  })
  .openapi('Category')

const categoriesRoute = createRoute({
  method: 'get',
  path: '/api/categories',
  tags: ['Search'],
  summary: 'Business categories type-ahead (English and localized names are searched)',
  middleware: authed,
  security,
  request: {
    query: z.object({
      q: safeString().trim().max(100, 'At most 100 characters.').optional(),
      limit: safeString()
        .regex(/^\d{1,3}$/, 'A whole number from 1 to 100.')
        .transform(Number)
        .refine((n) => n >= 1 && n <= 100, 'A whole number from 1 to 100.')
        .optional()
        .openapi({ type: 'integer', minimum: 1, maximum: 100, default: 20 }),
      lang: languageSchema.optional(),
      ids: idListQuery('category')
        .optional()
        .openapi({ description: 'Only these categories (names for ids a past search holds); q and limit then do not apply.' }),
    }),
  },
  responses: {
    200: { description: 'Categories, best matches first', content: { 'application/json': { schema: z.array(CategorySchema) } } },
    400: jsonError('Invalid input'),
    ...authErrors,
  },
})

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

export function registerCategoryRoutes(app: OpenAPIHono<AppEnv>) {
  app.openapi(categoriesRoute, async (c) => {
    const { q, limit = 20, lang = 'en', ids } = c.req.valid('query')
    const categories = await loadCategories(c.var.deps.db)
    const collator = new Intl.Collator(lang)
    const nameOf = (cat: Category) => cat.names[lang] ?? cat.name_en
    const toJson = (cat: Category) => ({ id: cat.id, slug: cat.slug, name: nameOf(cat), name_en: cat.name_en })
    if (ids) {
      const wanted = new Set(ids)
      return c.json(
        categories
          .filter((cat) => wanted.has(cat.id))
          .sort((a, b) => collator.compare(nameOf(a), nameOf(b)))
          .map(toJson),
        200,
      )
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
    return c.json(
      ranked.slice(0, limit).map(({ cat }) => toJson(cat)),
      200,
    )
  })
}
