/** Cache keys of the export endpoints (TkDodo's key factories): every invalidation goes through these. */
export const exportKeys = {
  all: ['exports'] as const,
  status: (searchId: string) => [...exportKeys.all, 'status', searchId] as const,
  download: (searchId: string) => [...exportKeys.all, 'download', searchId] as const,
  owned: (query: object) => [...exportKeys.all, 'owned', query] as const,
  ownedAll: () => [...exportKeys.all, 'owned'] as const,
}
