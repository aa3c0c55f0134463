import { queryOptions } from '@tanstack/react-query'
import { z } from 'zod'
import { api } from '@/lib/api-client'

/**
 * SubscriptionPlan (interface 2.2) plus the `id` the reference service adds. Tolerant as
 * decisions.md asks: extra fields pass, optional fields may be missing, the decimal price may
 * arrive as a string ("49.00", the declared format) or as a number.
 */
export const planSchema = z.looseObject({
  id: z.union([z.number(), z.string()]).optional(),
  plan_type: z.string(),
  monthly_credits: z.number().int().catch(0),
  price_per_month: z.union([z.string(), z.number()]).transform(String).catch('0'),
  link_expiration_days: z.number().int().catch(0),
  product_id: z.string().optional(),
  price_id: z.string().optional(),
  is_active: z.boolean().optional().default(true),
  is_sellable: z.boolean().optional().default(true),
  allows_fresh_exports: z.boolean().optional().default(false),
  created_at: z.string().optional(),
  updated_at: z.string().optional(),
})
export type Plan = z.infer<typeof planSchema>

/** `GET /api/plans` answers a list; a paginated `{results: [...]}` is accepted too. */
export const plansResponseSchema = z
  .union([z.array(planSchema), z.looseObject({ results: z.array(planSchema) })])
  .transform((v) => (Array.isArray(v) ? v : v.results))

export const planKeys = {
  all: ['plans'] as const,
  list: () => [...planKeys.all, 'list'] as const,
}

export const getPlans = (signal?: AbortSignal) =>
  api('/api/plans', { schema: plansResponseSchema, signal, auth: false })

export const plansOptions = () =>
  queryOptions({
    queryKey: planKeys.list(),
    queryFn: ({ signal }) => getPlans(signal),
    staleTime: 5 * 60_000,
  })
