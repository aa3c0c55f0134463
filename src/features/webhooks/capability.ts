import { useMemo } from 'react'
import { z } from 'zod/mini'
import { useCapabilityInfo } from '@/api/capabilities/get-capabilities'

/**
 * The extension `webhooks` as GET /api/capabilities/ describes it (decisions.md): the events an
 * endpoint can subscribe to, the signature header, how many endpoints an account may hold and whether
 * plain http to loopback is allowed (a development service). Missing fields take the reference values.
 */
const webhooksCapabilitySchema = z.object({
  events: z._default(z.array(z.string()), ['export.completed', 'export.failed']),
  signature_header: z._default(z.string().check(z.regex(/^[A-Za-z0-9-]+$/)), 'Leads-Signature'),
  limit: z.nullish(z.number()),
  allow_http_loopback: z._default(z.boolean(), false),
})
export type WebhooksCapability = z.output<typeof webhooksCapabilitySchema>

/** undefined while asking, null when the service does not offer webhooks (or describes them unreadably). */
export function useWebhooksCapability(): WebhooksCapability | null | undefined {
  const info = useCapabilityInfo('webhooks')
  return useMemo(() => {
    if (info === undefined || info === null) return info
    const parsed = webhooksCapabilitySchema.safeParse(info)
    return parsed.success ? parsed.data : null
  }, [info])
}
