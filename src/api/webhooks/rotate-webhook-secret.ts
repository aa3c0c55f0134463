import { useMutation, useQueryClient } from '@tanstack/react-query'
import { api } from '@/lib/api-client'
import { webhookWithSecretSchema } from './create-webhook'
import { webhooksOptions } from './get-webhooks'

/** A new signing secret, in this answer only; the old one stops signing at once. */
export function rotateWebhookSecret(id: string) {
  return api(`/api/user/webhooks/${encodeURIComponent(id)}/rotate-secret/`, { method: 'POST', schema: webhookWithSecretSchema })
}

export function useRotateWebhookSecret() {
  const qc = useQueryClient()
  return useMutation({
    mutationFn: rotateWebhookSecret,
    onSuccess: () => qc.invalidateQueries({ queryKey: webhooksOptions().queryKey }),
  })
}
