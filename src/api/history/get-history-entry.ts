import { queryOptions } from '@tanstack/react-query'
import { api, ApiError } from '@/lib/api-client'
import { historyEntrySchema, type HistoryEntry } from '@/api/history/get-search-history'
import { historyKeys } from '@/api/history/keys'

/**
 * One export as History lists it: the search's name, when the link expires. The reference's (decisions.md),
 * not the interface's: a service without History answers 404, and then there is none (null), and the
 * export page says what the interface's status says.
 */
export async function getHistoryEntry(searchId: string, signal?: AbortSignal): Promise<HistoryEntry | null> {
  try {
    return await api(`/api/user/search-history/${encodeURIComponent(searchId)}/`, { schema: historyEntrySchema, signal })
  } catch (e) {
    if (e instanceof ApiError && e.status === 404) return null
    throw e
  }
}

export const historyEntryOptions = (searchId: string) =>
  queryOptions({
    queryKey: historyKeys.entry(searchId),
    queryFn: ({ signal }) => getHistoryEntry(searchId, signal),
    staleTime: 60_000,
  })
