import type { PreviewQuery } from '@/features/search/filters'

export const exportKeys = {
  all: ['exports'] as const,
  status: (searchId: string) => [...exportKeys.all, 'status', searchId] as const,
  download: (searchId: string) => [...exportKeys.all, 'download', searchId] as const,
  owned: (query: PreviewQuery) => [...exportKeys.all, 'owned', query] as const,
}
