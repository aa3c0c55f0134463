import { useMutation, useQueryClient } from '@tanstack/react-query'
import { api, ApiError } from '@/lib/api-client'
import { listKeys } from './keys'

/** 204: the list, its rows and its files are gone. A 404 (deleted meanwhile, in another tab) is the state asked for. */
export async function deleteList(listId: string): Promise<void> {
  try {
    await api<undefined>(`/api/lists/${encodeURIComponent(listId)}/`, { method: 'DELETE' })
  } catch (e) {
    if (!(e instanceof ApiError && e.status === 404)) throw e
  }
}

export function useDeleteList() {
  const qc = useQueryClient()
  return useMutation({
    mutationFn: deleteList,
    // the list's own queries are left to expire: its page is still open until the component leaves it
    onSuccess: () => qc.invalidateQueries({ queryKey: listKeys.index() }),
  })
}
