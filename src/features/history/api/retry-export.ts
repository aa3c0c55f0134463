import { useMutation, useQueryClient } from '@tanstack/react-query'
import { z } from 'zod/mini'
import { api } from '@/lib/api-client'
import { historyKeys } from '../history-keys'

export const retryResultSchema = z.object({
  search_id: z.coerce.number().check(z.int()),
  status: z.string(),
})

/** Only a FAILED export can be retried, and at no new charge (decisions.md). */
export function retryExport(searchId: number) {
  return api(`/api/user/search-history/${searchId}/retry`, { method: 'POST', body: {}, schema: retryResultSchema })
}

export function useRetryExport() {
  const qc = useQueryClient()
  return useMutation({
    mutationFn: retryExport,
    onSuccess: () => qc.invalidateQueries({ queryKey: historyKeys.all }),
  })
}
