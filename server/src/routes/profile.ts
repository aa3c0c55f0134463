import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi'
import type { AppEnv } from '../app-env.ts'
import type { Queryable } from '../db/db.ts'
import { authed, security } from '../lib/authed.ts'
import { balanceOf, loadAccount } from '../lib/credits.ts'
import { badRequest, notFound } from '../lib/errors.ts'
import { planToJson } from '../lib/plans.ts'
import {
  authErrors,
  emailSchema,
  int32,
  jsonBody,
  jsonError,
  languageSchema,
  nameSchema,
  UserSchema,
  type User,
} from '../lib/schemas.ts'

const epoch = (d: Date | null) => (d ? Math.floor(new Date(d).getTime() / 1000) : null)

/** User (interface 2.1) as of `now`: the billing period rolls over lazily here too. */
export async function profileOf(q: Queryable, userId: number, now: Date): Promise<User> {
  const account = await loadAccount(q, userId, now)
  if (!account) throw notFound()
  const balance = await balanceOf(q, account, now)
  return {
    id: account.id,
    email: account.email,
    first_name: account.first_name,
    last_name: account.last_name,
    subscription_plan: account.plan ? planToJson(account.plan) : null,
    total_credits: account.plan?.monthly_credits ?? 0,
    remaining_credits: account.remaining_credits,
    purchased_credits_available: balance.purchased,
    purchased_credits_expiring_soon: balance.purchasedExpiringSoon,
    current_period_start: epoch(account.current_period_start),
    current_period_end: epoch(account.current_period_end),
    can_download_fresh_exports: account.plan?.allows_fresh_exports ?? false,
    preferred_language: account.preferred_language as User['preferred_language'],
  }
}

// Every field the interface calls writable, with its limits (part 8); unknown fields are ignored.
const ProfilePatch = z
  .object({
    email: emailSchema.optional(),
    first_name: nameSchema.optional(),
    last_name: nameSchema.optional(),
    preferred_language: languageSchema.optional(),
    remaining_credits: int32().nullable().optional().openapi({ description: 'Range-checked, then refused: read-only here.' }),
    current_period_start: int32().nullable().optional().openapi({ description: 'Range-checked, then refused: read-only here.' }),
    current_period_end: int32().nullable().optional().openapi({ description: 'Range-checked, then refused: read-only here.' }),
  })
  .openapi('ProfileUpdate')

const READ_ONLY = ['remaining_credits', 'current_period_start', 'current_period_end'] as const

const getProfile = createRoute({
  method: 'get',
  path: '/api/user/profile',
  tags: ['Credits & Profile'],
  summary: 'The caller’s profile and credits',
  middleware: authed,
  security,
  responses: { 200: { description: 'User', content: { 'application/json': { schema: UserSchema } } }, ...authErrors },
})

const patchProfile = createRoute({
  method: 'patch',
  path: '/api/user/profile',
  tags: ['Credits & Profile'],
  summary: 'Partial update of the profile',
  description:
    'email, first_name, last_name and preferred_language can be changed. remaining_credits, current_period_start and current_period_end are range-checked and then refused with `errors.<field>: ["read-only"]` (decisions.md).',
  middleware: authed,
  security,
  request: { body: jsonBody(ProfilePatch) },
  responses: {
    200: { description: 'Updated user', content: { 'application/json': { schema: UserSchema } } },
    400: jsonError('Invalid input, read-only field or email taken'),
    ...authErrors,
  },
})

export function registerProfileRoutes(app: OpenAPIHono<AppEnv>) {
  app.openapi(getProfile, async (c) => {
    const { db, clock } = c.var.deps
    return c.json(await profileOf(db, c.var.user.id, clock.now()), 200)
  })

  app.openapi(patchProfile, async (c) => {
    const body = c.req.valid('json')
    const { db, clock } = c.var.deps
    const userId = c.var.user.id
    const readOnly: Record<string, string[]> = {}
    for (const f of READ_ONLY) if (body[f] !== undefined) readOnly[f] = ['read-only']
    if (Object.keys(readOnly).length) throw badRequest(readOnly)

    const sets: string[] = []
    const params: unknown[] = [userId]
    for (const f of ['email', 'first_name', 'last_name', 'preferred_language'] as const) {
      const v = body[f]
      if (v === undefined) continue
      params.push(v)
      sets.push(`${f} = $${params.length}`)
    }
    await db.tx(async (q) => {
      if (body.email !== undefined) {
        const taken = await q.query('SELECT 1 FROM users WHERE lower(email) = lower($1) AND id <> $2', [body.email, userId])
        if (taken.rows.length) throw badRequest({ email: ['An account with this email already exists.'] })
      }
      if (sets.length) await q.query(`UPDATE users SET ${sets.join(', ')} WHERE id = $1`, params)
    }).catch((err: unknown) => {
      if (typeof err === 'object' && err !== null && (err as { code?: unknown }).code === '23505') {
        throw badRequest({ email: ['An account with this email already exists.'] })
      }
      throw err
    })
    return c.json(await profileOf(db, userId, clock.now()), 200)
  })
}
