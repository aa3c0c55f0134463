import { queryOptions } from '@tanstack/react-query'
import { z } from 'zod/mini'
import { api } from '@/lib/api-client'
import { webhookKeys } from './keys'

/** A webhook endpoint (extension `webhooks`): the secret itself is never sent again, only its hint. */
export const webhookSchema = z.object({
  id: z.string(),
  url: z.string(),
  events: z.array(z.string()),
  secret_hint: z.string(),
  created_at: z.string(),
  secret_rotated_at: z.nullish(z.string()),
  /**
   * `unhealthy` after several deliveries in a row got no answer in time: its deliveries wait and one is
   * tried at `next_retry_at`, unless the owner resumes it (resume-webhook.ts). Absent at an older service.
   */
  health: z.optional(z.string()),
  unhealthy_since: z.nullish(z.string()),
  next_retry_at: z.nullish(z.string()),
})
export type Webhook = z.infer<typeof webhookSchema>

export function getWebhooks({ signal }: { signal?: AbortSignal } = {}) {
  return api('/api/user/webhooks/', { schema: z.array(webhookSchema), signal })
}

export const webhooksOptions = () =>
  queryOptions({
    queryKey: webhookKeys.list(),
    queryFn: ({ signal }) => getWebhooks({ signal }),
  })
