export const historyKeys = {
  all: ['history'] as const,
  lists: () => [...historyKeys.all, 'list'] as const,
  list: (page: number, pageSize: number, watched = false, account?: string, search: Record<string, string> = {}) =>
    [...historyKeys.lists(), { page, pageSize, watched, account, ...search }] as const,
  entry: (searchId: string) => [...historyKeys.all, 'entry', searchId] as const,
  watched: (limit?: number) => [...historyKeys.all, 'watched', ...(limit === undefined ? [] : [limit])] as const,
  weekly: (weeks: number) => [...historyKeys.all, 'weekly', weeks] as const,
  freshDryRun: (searchId: string) => [...historyKeys.all, 'fresh-dry-run', searchId] as const,
}

export const lookupKeys = {
  all: ['lookups'] as const,
  countries: () => [...lookupKeys.all, 'countries'] as const,
  level1: (country: string) => [...lookupKeys.all, 'level1', country] as const,
  level2: (id: string) => [...lookupKeys.all, 'level2', id] as const,
  level3: (country: string) => [...lookupKeys.all, 'level3', country] as const,
  categories: (lang: string, ids: readonly string[]) => [...lookupKeys.all, 'categories', lang, ids] as const,
}
