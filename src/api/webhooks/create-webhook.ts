import { useMutation, useQueryClient } from '@tanstack/react-query'
import { z } from 'zod/mini'
import { api } from '@/lib/api-client'
import { webhookSchema, webhooksOptions } from './get-webhooks'

/** The service's limit on a URL's length (server/src/lib/webhook-target.ts). */
export const MAX_URL_LENGTH = 2000

/** Host names plain http may use on a development service (allow_http_loopback). */
const LOOPBACK_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]'])

/**
 * Why `raw` cannot be a webhook URL, as a key of the form's messages, or null when it can: absolute,
 * https (plain http to loopback only when the service allows it), no user name or password. The
 * service checks the rest (public addresses only) and answers on the field.
 */
export function urlProblem(
  raw: string,
  allowHttpLoopback: boolean,
): 'required' | 'tooLong' | 'invalid' | 'credentials' | 'https' | 'httpsOrLoopback' | null {
  const value = raw.trim()
  if (value === '') return 'required'
  if (value.length > MAX_URL_LENGTH) return 'tooLong'
  let url: URL
  try {
    url = new URL(value)
  } catch {
    return 'invalid'
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return allowHttpLoopback ? 'httpsOrLoopback' : 'https'
  if (!url.hostname) return 'invalid'
  if (url.username || url.password) return 'credentials'
  if (url.protocol === 'http:' && !(allowHttpLoopback && LOOPBACK_HOSTS.has(url.hostname.toLowerCase()))) {
    return allowHttpLoopback ? 'httpsOrLoopback' : 'https'
  }
  return null
}

export const createWebhookFormSchema = ({ allowHttpLoopback }: { allowHttpLoopback: boolean }) =>
  z.object({
    url: z.string().check(
      z.superRefine((v, ctx) => {
        const problem = urlProblem(v, allowHttpLoopback)
        if (problem) ctx.addIssue({ code: 'custom', message: problem, input: v })
      }),
    ),
    events: z.array(z.string()).check(z.minLength(1, 'eventsRequired')),
  })
export type CreateWebhookForm = z.infer<ReturnType<typeof createWebhookFormSchema>>

/** An endpoint with its signing secret: the only answer that carries the secret (create and rotate). */
export const webhookWithSecretSchema = z.object({ webhook: webhookSchema, secret: z.string() })
export type WebhookWithSecret = z.infer<typeof webhookWithSecretSchema>

/** `POST {url, events}` → 201 with the secret, shown once. */
export function createWebhook(form: CreateWebhookForm) {
  return api('/api/user/webhooks/', {
    method: 'POST',
    body: { url: form.url.trim(), events: form.events },
    schema: webhookWithSecretSchema,
  })
}

export function useCreateWebhook() {
  const qc = useQueryClient()
  return useMutation({
    mutationFn: createWebhook,
    onSuccess: () => qc.invalidateQueries({ queryKey: webhooksOptions().queryKey }),
  })
}
