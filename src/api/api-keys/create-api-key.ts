import { useMutation, useQueryClient } from '@tanstack/react-query'
import { z } from 'zod/mini'
import { api } from '@/lib/api-client'
import { apiKeySchema, apiKeysOptions } from '@/api/api-keys/get-api-keys'

/** Extension api_key_names: the reference service's limit, when its capability does not state one. */
export const KEY_NAME_MAX_LENGTH = 60

/**
 * The form: an optional expiry day (local time). The key stays valid through the end of that day; a
 * day that has already ended is refused before sending. The optional name (extension api_key_names)
 * is sent trimmed, so its length counts without the spaces around it.
 */
export const createApiKeyFormSchema = (now: () => number = Date.now, nameMaxLength: number = KEY_NAME_MAX_LENGTH) =>
  z.object({
    name: z.string().check(z.refine((v) => v.trim().length <= nameMaxLength, { message: 'tooLong' })),
    expiry: z.string().check(
      z.refine((v) => v === '' || !Number.isNaN(endOfLocalDay(v).getTime()), { message: 'invalid' }),
      z.refine((v) => v === '' || endOfLocalDay(v).getTime() > now(), { message: 'past' }),
    ),
    // extension scoped_api_keys: what the key may do, and an optional monthly credit cap, read in the
    // person's language by the form (lib/parse-number.ts) and handed here as plain digits
    scope: z.enum(['read', 'export']),
    cap: z.string(),
  })
export type CreateApiKeyForm = z.infer<ReturnType<typeof createApiKeyFormSchema>>

/** "2026-12-31" → the last millisecond of that day in the person's time zone. */
export function endOfLocalDay(day: string): Date {
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(day)
  if (!m) return new Date(NaN)
  return new Date(Number(m[1]), Number(m[2]) - 1, Number(m[3]), 23, 59, 59, 999)
}

export const MAX_CAP = 1_000_000_000

export const createdApiKeySchema = z.object({ token: z.string(), api_key: apiKeySchema })
export type CreatedApiKey = z.infer<typeof createdApiKeySchema>

/**
 * `POST {expiry?}`: expiry is an ISO 8601 date-time; omitted means the key never expires. With
 * `scoped` (the service lists scoped_api_keys) the scope and the cap go too, and with `named`
 * (api_key_names) a name that is not blank; otherwise none of them.
 */
export function createApiKey({ form, scoped, named }: { form: CreateApiKeyForm; scoped: boolean; named: boolean }) {
  const body: Record<string, unknown> = form.expiry ? { expiry: endOfLocalDay(form.expiry).toISOString() } : {}
  const name = form.name.trim()
  if (named && name) body.name = name
  if (scoped) {
    body.scope = form.scope
    // plain digits only: the form has read the person's number already (never "2.5" as 25)
    if (/^\d+$/.test(form.cap)) body.monthly_credit_cap = Number(form.cap)
  }
  return api('/api/user/api-keys/', { method: 'POST', body, schema: createdApiKeySchema })
}

export function useCreateApiKey() {
  const qc = useQueryClient()
  return useMutation({
    mutationFn: createApiKey,
    onSuccess: () => qc.invalidateQueries({ queryKey: apiKeysOptions().queryKey }),
  })
}
