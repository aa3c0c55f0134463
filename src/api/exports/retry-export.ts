import { useMutation, useQueryClient } from '@tanstack/react-query'
import { api } from '@/lib/api-client'
import { exportStatusOptions } from './get-export-status'
import { z } from 'zod/mini'
import { historyKeys } from '../history/keys'
import { optionalOpaqueId } from '../schemas'
import { exportKeys } from './keys'

/**
 * `POST /api/user/search-history/{search_id}/retry/` (interface 4.3): the samples send `{}`, the
 * answer is "not shown". Any 2xx (an empty body, `{}`, 204) means accepted; the export keeps its
 * id unless the answer names another.
 */
const retriedSchema = z.catch(z.looseObject({ search_id: optionalOpaqueId() }), {})

export async function retryExport(searchId: string): Promise<{ search_id: string }> {
  const answer = await api(`/api/user/search-history/${encodeURIComponent(searchId)}/retry/`, {
    method: 'POST',
    body: {},
    schema: retriedSchema,
  })
  return { search_id: answer?.search_id ?? searchId }
}

/**
 * The one retry of a failed export, at no new charge (decisions.md), for the export page and
 * History alike: the retried export's status (and the lists that show it) go stale.
 */
export function useRetryExport() {
  const queryClient = useQueryClient()
  return useMutation({
    mutationFn: retryExport,
    onSuccess: (retried, searchId) =>
      Promise.all([
        queryClient.invalidateQueries({ queryKey: exportStatusOptions(searchId).queryKey }),
        queryClient.invalidateQueries({ queryKey: exportKeys.status(retried.search_id) }),
        queryClient.invalidateQueries({ queryKey: historyKeys.all }),
      ]),
  })
}
