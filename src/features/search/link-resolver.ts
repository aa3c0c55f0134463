/**
 * The API-style search link (`countries=DE&category=12&level1_location=3…&max_leads=50`: the
 * service's own filter names, as the history's "Edit in search" link or a pasted API query holds
 * them) turned into SearchFilters, with the names the chips show asked from the service. Every
 * look-up goes through React Query, so the pickers find the same lists in the cache afterwards.
 */
import type { QueryClient } from '@tanstack/react-query'
import { ApiError } from '@/lib/api-client'
import type { categoriesByIdsOptions } from '@/api/search/get-categories'
import type { level1Options } from '@/api/search/get-level1'
import type { level2OneOptions } from '@/api/search/get-level2'
import type { level3Options } from '@/api/search/get-level3'
import {
  MAX_EXCLUDE_LISTS,
  placeName,
  polygonTerritory,
  searchParamsToFilters,
  type LngLat,
  type NamedId,
  type Place,
  type SearchFilters,
  type Territory,
} from '@/domain/search-filters'

export interface ResolvedLink {
  filters: SearchFilters
  /** Some ids or codes of the link were unknown (or malformed) and were left out. */
  dropped: boolean
}

const INT32_MAX = 2_147_483_647

/** Repeated or comma-separated values, trimmed, empty ones and repeats left out. */
function listOf(p: URLSearchParams, name: string): string[] {
  const values = p
    .getAll(name)
    .flatMap((v) => v.split(','))
    .map((v) => v.trim())
    .filter(Boolean)
  return [...new Set(values)]
}

/** Ids the service takes for categories, states and counties: positive 32-bit integers. */
const isIntId = (id: string) => /^\d{1,10}$/.test(id) && Number(id) >= 1 && Number(id) <= INT32_MAX

const isTrue = (v: string | null) => v !== null && ['true', '1'].includes(v.trim().toLowerCase())

function uniqueById<T extends NamedId>(items: T[]): T[] {
  const seen = new Set<string>()
  return items.filter((x) => !seen.has(x.id) && Boolean(seen.add(x.id)))
}

/**
 * The link's `within` (a GeoJSON Polygon, or a MultiPolygon's first) as the address's territory, if the
 * service can take it. Here rather than in the address's codec: only such links hold GeoJSON, and the
 * codec is part of the search page's first load.
 */
function withinTerritory(within: string | null): Territory | null {
  try {
    const g = JSON.parse(within ?? 'null') as { type: string; coordinates: LngLat[][] | LngLat[][][] }
    return polygonTerritory((g.type === 'MultiPolygon' ? g.coordinates[0] : g.coordinates) as LngLat[][])
  } catch {
    return null
  }
}

/** A 404 means the service doesn't know the id; anything else is a real failure. */
async function orNullIfUnknown<T>(promise: Promise<T>): Promise<T | null> {
  try {
    return await promise
  } catch (error) {
    if (error instanceof ApiError && error.status === 404) return null
    throw error
  }
}

/**
 * The service's look-ups a link needs: the search page's own (its pickers use them too), handed over
 * rather than imported here. This module loads only for an address to check; importing them, it would
 * share them with the page in a chunk of their own, one more request in every first load of the page.
 */
export interface LinkLookups {
  categoriesByIdsOptions: typeof categoriesByIdsOptions
  level1Options: typeof level1Options
  level2OneOptions: typeof level2OneOptions
  level3Options: typeof level3Options
}

export async function resolveApiLink(client: QueryClient, p: URLSearchParams, lang: string, look: LinkLookups): Promise<ResolvedLink> {
  // canonical parameters the link may hold as well (format, or a mixed hand-written link) are kept
  const base = searchParamsToFilters(p)
  let dropped = false

  const codes = listOf(p, 'countries').map((c) => c.toUpperCase())
  const validCodes = codes.filter((c) => /^[A-Z]{2}$/.test(c))
  if (validCodes.length < codes.length) dropped = true
  const countries = [...new Set([...base.countries, ...validCodes])]

  const wanted = (name: string, valid: (id: string) => boolean) => {
    const ids = listOf(p, name)
    const ok = ids.filter(valid)
    if (ok.length < ids.length) dropped = true
    return ok
  }
  const categoryIds = wanted('category', isIntId)
  const level1Ids = wanted('level1_location', isIntId)
  const level2Ids = wanted('level2_location', isIntId)
  const level3Ids = wanted('level3_location', (id) => id.length <= 100)

  // places are looked up among the link's countries only: without a country they are dropped
  if (!countries.length && level1Ids.length + level2Ids.length + level3Ids.length > 0) dropped = true
  const needLevel1 = countries.length > 0 && level1Ids.length + level2Ids.length > 0
  const needLevel3 = countries.length > 0 && level3Ids.length > 0

  const [categoryList, level1Lists, level2Items, level3Lists] = await Promise.all([
    categoryIds.length ? client.fetchQuery(look.categoriesByIdsOptions(categoryIds, lang)) : [],
    needLevel1 ? Promise.all(countries.map((c) => client.fetchQuery(look.level1Options(c)))) : [],
    countries.length ? Promise.all(level2Ids.map((id) => orNullIfUnknown(client.fetchQuery(look.level2OneOptions(id))))) : [],
    needLevel3 ? Promise.all(countries.map((c) => client.fetchQuery(look.level3Options(c, [], [])))) : [],
  ])

  const categories: NamedId[] = []
  for (const id of categoryIds) {
    const hit = categoryList.find((c) => c.id === id)
    if (hit) categories.push({ id, name: hit.name || hit.name_en || id })
    else dropped = true
  }

  /** The place of that id in the per-country lists, as a chip: its country is the list's. */
  type Listed = { id: string; name: string; level2_name?: string | null; level1_name?: string | null }
  const pick = (lists: Listed[][], id: string): Place | null => {
    for (const [i, list] of lists.entries()) {
      const hit = list.find((x) => x.id === id)
      const country = countries[i]
      if (hit && country) return { country, id, name: placeName(hit.name, [hit.level2_name, hit.level1_name]) }
    }
    return null
  }
  const picked = (ids: string[], find: (id: string) => Place | null): Place[] =>
    ids.flatMap((id) => {
      const place = find(id)
      if (!place) dropped = true
      return place ? [place] : []
    })

  const level1 = picked(countries.length ? level1Ids : [], (id) => pick(level1Lists, id))
  const level2 = picked(countries.length ? level2Ids : [], (id) => {
    const item = level2Items[level2Ids.indexOf(id)]
    if (!item?.level1_id) return null
    const i = level1Lists.findIndex((list) => list.some((s) => s.id === item.level1_id))
    const country = countries[i]
    return country ? { country, id, name: placeName(item.name, [item.level1_name]) } : null
  })
  const level3 = picked(countries.length ? level3Ids : [], (id) => pick(level3Lists, id))

  const capRaw = Number(p.get('max_leads'))
  const cap = p.has('max_leads') && Number.isInteger(capRaw) && capRaw > 0 && capRaw <= INT32_MAX ? capRaw : base.cap

  return {
    filters: {
      countries,
      categories: uniqueById([...base.categories, ...categories]),
      level1: uniqueById([...base.level1, ...level1]),
      level2: uniqueById([...base.level2, ...level2]),
      level3: uniqueById([...base.level3, ...level3]),
      email: base.email || isTrue(p.get('email')),
      phone: base.phone || isTrue(p.get('phone_number')),
      website: base.website || isTrue(p.get('website')),
      mainActivityOnly: base.mainActivityOnly || isTrue(p.get('main_activity_only')),
      cap,
      format: p.get('format') === 'excel' ? 'excel' : 'csv',
      territory: base.territory ?? withinTerritory(p.get('within')),
      // list ids need no name from here: the leave-out control names them, and drops ids no longer the account's
      excludeLists: [...new Set([...base.excludeLists, ...wanted('exclude_lists', (id) => /^[\w-]{1,40}$/.test(id))])].slice(
        0,
        MAX_EXCLUDE_LISTS,
      ),
    },
    dropped,
  }
}
