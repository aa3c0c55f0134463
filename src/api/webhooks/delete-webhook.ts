import { useMutation, useQueryClient } from '@tanstack/react-query'
import { api, ApiError } from '@/lib/api-client'
import { webhooksOptions } from './get-webhooks'

/**
 * 204: the endpoint and its queued deliveries are gone; nothing is sent to it any more. A 404 (removed
 * meanwhile, e.g. in another tab) is the state asked for, not an error.
 */
export async function deleteWebhook(id: string): Promise<void> {
  try {
    await api<undefined>(`/api/user/webhooks/${encodeURIComponent(id)}/`, { method: 'DELETE' })
  } catch (e) {
    if (!(e instanceof ApiError && e.status === 404)) throw e
  }
}

export function useDeleteWebhook() {
  const qc = useQueryClient()
  return useMutation({
    mutationFn: deleteWebhook,
    onSuccess: () => qc.invalidateQueries({ queryKey: webhooksOptions().queryKey }),
  })
}
