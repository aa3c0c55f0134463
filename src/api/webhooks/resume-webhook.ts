import { useMutation, useQueryClient } from '@tanstack/react-query'
import { api } from '@/lib/api-client'
import { deliveriesOptions } from './get-deliveries'
import { webhookSchema, webhooksOptions } from './get-webhooks'

/** An unhealthy endpoint made healthy again: its waiting deliveries are tried at once (a password session only). */
export function resumeWebhook(id: string) {
  return api(`/api/user/webhooks/${encodeURIComponent(id)}/resume/`, { method: 'POST', schema: webhookSchema, retryThrottled: false })
}

export function useResumeWebhook() {
  const qc = useQueryClient()
  return useMutation({
    mutationFn: resumeWebhook,
    // the list (its health) and this endpoint's deliveries (their next try)
    onSuccess: (_webhook, id) =>
      Promise.all([
        qc.invalidateQueries({ queryKey: webhooksOptions().queryKey }),
        qc.invalidateQueries({ queryKey: deliveriesOptions(id).queryKey }),
      ]),
  })
}
