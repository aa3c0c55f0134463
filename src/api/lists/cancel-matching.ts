import { useMutation, useQueryClient } from '@tanstack/react-query'
import { api } from '@/lib/api-client'
import { listSchema } from './get-lists'
import { invalidateList } from './invalidate'

/** Stops a queued or running match; the rows matched so far keep their match. */
export const cancelMatching = (listId: string) =>
  api(`/api/lists/${encodeURIComponent(listId)}/cancel/`, { method: 'POST', schema: listSchema })

export function useCancelMatching(listId: string) {
  const qc = useQueryClient()
  return useMutation({
    mutationFn: () => cancelMatching(listId),
    onSuccess: () => invalidateList(qc, listId),
  })
}
