import { useMutation, useQueryClient } from '@tanstack/react-query'
import { api } from '@/lib/api-client'
import { historyKeys } from '@/api/history/keys'
import { historyEntrySchema } from '@/api/history/get-search-history'
import { historyEntryOptions } from '@/api/history/get-history-entry'

/** PATCH a history entry's `name` and/or `watched` (extension `watched_searches`). */
export function updateHistoryEntry(searchId: string, patch: { name?: string | null; watched?: boolean }) {
  return api(`/api/user/search-history/${encodeURIComponent(searchId)}/`, { method: 'PATCH', body: patch, schema: historyEntrySchema })
}

export function useUpdateHistoryEntry() {
  const qc = useQueryClient()
  return useMutation({
    mutationFn: ({ searchId, patch }: { searchId: string; patch: { name?: string | null; watched?: boolean } }) =>
      updateHistoryEntry(searchId, patch),
    // the lists (the pages and the watched list) and the entry itself, which its export page names; the
    // dry runs of other watched searches stay as they are
    onSuccess: (entry, { searchId }) => {
      qc.setQueryData(historyEntryOptions(searchId).queryKey, entry)
      return Promise.all([
        qc.invalidateQueries({ queryKey: historyKeys.lists() }),
        qc.invalidateQueries({ queryKey: historyKeys.watched() }),
      ])
    },
  })
}
