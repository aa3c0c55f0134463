import { useMutation, useQueryClient } from '@tanstack/react-query'
import { z } from 'zod/mini'
import { api } from '@/lib/api-client'
import { webhookKeys } from './keys'

const queuedSchema = z.object({ delivery_id: z.number(), event_id: z.string() })

/**
 * 202: a `webhook.test` event is queued for this endpoint. At most 5 a minute per endpoint: the 429
 * is thrown at once (not waited out) so the page can say how long to wait.
 */
export function sendTestEvent(id: string) {
  return api(`/api/user/webhooks/${encodeURIComponent(id)}/test/`, { method: 'POST', schema: queuedSchema, retryThrottled: false })
}

export function useSendTestEvent() {
  const qc = useQueryClient()
  return useMutation({
    mutationFn: sendTestEvent,
    onSuccess: (_queued, id) => qc.invalidateQueries({ queryKey: webhookKeys.deliveries(id) }),
  })
}
