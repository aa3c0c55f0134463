import { queryOptions } from '@tanstack/react-query'
import { z } from 'zod/mini'
import { api } from '@/lib/api-client'
import { apiKeyKeys } from '@/api/api-keys/keys'

/** API key (interface 2.3): only the prefix is ever retrievable. */
export const apiKeySchema = z.object({
  id: z.pipe(z.union([z.string(), z.number()]), z.transform(String)),
  token_key: z.string(),
  // extension api_key_names (absent on a service without it); a blank name is no name
  name: z.pipe(
    z.nullish(z.string()),
    z.transform((v) => v?.trim() || null),
  ),
  created: z.string(),
  expiry: z.pipe(
    z.nullish(z.string()),
    z.transform((v) => v ?? null),
  ),
  // extension scoped_api_keys (absent on a service without it)
  scope: z.optional(z.enum(['read', 'export'])),
  monthly_credit_cap: z.nullish(z.number()),
  credits_spent_this_period: z.optional(z.number()),
})
export type ApiKey = z.infer<typeof apiKeySchema>

const listSchema = z.pipe(
  z.union([z.array(apiKeySchema), z.object({ results: z.array(apiKeySchema) })]),
  z.transform((v) => (Array.isArray(v) ? v : v.results)),
)

export function getApiKeys({ signal }: { signal?: AbortSignal } = {}) {
  return api('/api/user/api-keys/', { schema: listSchema, signal })
}

export const apiKeysOptions = () =>
  queryOptions({
    queryKey: apiKeyKeys.list(),
    queryFn: ({ signal }) => getApiKeys({ signal }),
  })

export const isExpired = (key: ApiKey, now: number = Date.now()) => key.expiry !== null && new Date(key.expiry).getTime() <= now
