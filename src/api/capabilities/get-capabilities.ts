import { queryOptions, useQuery } from '@tanstack/react-query'
import { z } from 'zod/mini'
import { api, ApiError, lazySchema } from '@/lib/api-client'
import { capabilityKeys } from './keys'

/**
 * The service's extensions beyond the interface (decisions.md): asked once per session. A service
 * without the endpoint (404, the real one today), or one that fails to answer, has none: every
 * extension stays hidden and nothing errors.
 */
const capabilitiesSchema = lazySchema(() => z.record(z.string(), z.looseObject({ version: z.optional(z.number()) })))
export type Capabilities = z.output<ReturnType<typeof capabilitiesSchema>>

export const capabilitiesOptions = () =>
  queryOptions({
    queryKey: capabilityKeys.all,
    queryFn: async ({ signal }): Promise<Capabilities> => {
      try {
        return await api('/api/capabilities/', { schema: capabilitiesSchema, signal })
      } catch (e) {
        if (e instanceof ApiError && e.status !== 401 && e.status !== 429) return {}
        throw e
      }
    },
    staleTime: Infinity,
    retry: false,
  })

/** Whether the service offers the extension `name`: undefined while asking, false on any failure. */
export function useCapability(name: string): boolean | undefined {
  const { data, isError } = useQuery({
    ...capabilitiesOptions(),
    select: (caps) => name in caps,
  })
  return isError ? false : data
}

/** The extension's own description ({version, …}, e.g. `limit`): undefined while asking, null when absent. */
export function useCapabilityInfo(name: string): Capabilities[string] | null | undefined {
  const { data, isError } = useQuery({
    ...capabilitiesOptions(),
    select: (caps) => caps[name] ?? null,
  })
  return isError ? null : data
}
