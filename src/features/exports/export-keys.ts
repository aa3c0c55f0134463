export const exportKeys = {
  all: ['exports'] as const,
  status: (searchId: string) => [...exportKeys.all, 'status', searchId] as const,
  download: (searchId: string) => [...exportKeys.all, 'download', searchId] as const,
}
