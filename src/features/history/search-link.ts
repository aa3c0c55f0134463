import { paths } from '@/config/paths'
import type { HistoryEntry } from '@/api/history/get-search-history'

/** The search builder's address for the same filters (the search page keeps its whole state in the URL). */
export function searchLinkFor(entry: Pick<HistoryEntry, 'filters' | 'max_leads' | 'export_format'>): string {
  const p = new URLSearchParams()
  const f = entry.filters
  for (const c of f.countries) p.append('countries', c)
  for (const c of f.category) p.append('category', c)
  for (const id of f.level1_location) p.append('level1_location', id)
  for (const id of f.level2_location) p.append('level2_location', id)
  for (const id of f.level3_location) p.append('level3_location', id)
  if (f.email) p.set('email', 'true')
  if (f.phone_number) p.set('phone_number', 'true')
  if (f.website) p.set('website', 'true')
  if (f.main_activity_only) p.set('main_activity_only', 'true')
  if (f.within) p.set('within', JSON.stringify(f.within))
  if (f.near) p.set('near', `${f.near.lat},${f.near.lng},${f.near.radius_km}`)
  for (const id of f.exclude_lists) p.append('exclude_lists', id)
  if (entry.max_leads != null) p.set('max_leads', String(entry.max_leads))
  if (entry.export_format) p.set('format', entry.export_format)
  const qs = p.toString()
  return qs ? `${paths.search}?${qs}` : paths.search
}
