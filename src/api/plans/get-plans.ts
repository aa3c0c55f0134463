import { queryOptions } from '@tanstack/react-query'
import { z } from 'zod/mini'
import { api, lazySchema } from '@/lib/api-client'
import { listOf, withDefault } from '../schemas'
import { planKeys } from './keys'

/*
 * Schemas on the first load use `zod/mini` (same validation, a fraction of the bytes); feature
 * chunks may use full `zod`: both are zod v4 schemas and `api()` takes either.
 */

/**
 * SubscriptionPlan (interface 2.2) plus the `id` the reference service adds. Tolerant as
 * decisions.md asks: extra fields pass, optional fields may be missing, the decimal price may
 * arrive as a string ("49.00", the declared format) or as a number.
 */
export const planSchema = lazySchema(() =>
  z.looseObject({
    id: z.optional(z.union([z.number(), z.string()])),
    plan_type: z.string(),
    monthly_credits: withDefault(z.number(), 0),
    price_per_month: z.pipe(withDefault(z.union([z.string(), z.number()]), '0'), z.transform(String)),
    link_expiration_days: withDefault(z.number(), 0),
    product_id: z.optional(z.string()),
    price_id: z.optional(z.string()),
    is_active: withDefault(z.boolean(), true),
    is_sellable: withDefault(z.boolean(), true),
    allows_fresh_exports: withDefault(z.boolean(), false),
    created_at: z.optional(z.string()),
    updated_at: z.optional(z.string()),
  }),
)
export type Plan = z.output<ReturnType<typeof planSchema>>

/** `GET /api/plans`: the shape is "not shown" (interface 4.1); a bare list or a paginated `{results: [...]}`. */
export const plansResponseSchema = lazySchema(() => listOf(planSchema()))

/** Open to everyone, and sent without the slash, as the interface writes it. */
export const getPlans = (signal?: AbortSignal) => api('/api/plans', { schema: plansResponseSchema, signal, auth: false })

export const plansOptions = () =>
  queryOptions({
    queryKey: planKeys.list(),
    queryFn: ({ signal }) => getPlans(signal),
    staleTime: 5 * 60_000,
  })
