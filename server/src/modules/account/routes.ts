import { createRoute, z } from '@hono/zod-openapi'
import { badRequest } from '../../lib/errors.ts'
import { openApiApp } from '../../lib/openapi-app.ts'
import { authErrors, emailSchema, int32, jsonBody, jsonError, languageSchema, nameSchema, UserSchema } from '../../lib/schemas.ts'
import { authed, security } from '../auth/authed.ts'
import { passwordSchema } from '../auth/password.ts'
import { refuseReadOnlyKey } from '../keys/scope.ts'
import { changePassword, profileOf, updateProfile, type Caller } from './service.ts'

// Every field the interface calls writable, with its limits (part 8); unknown fields are ignored.
const ProfilePatch = z
  .object({
    email: emailSchema.optional(),
    first_name: nameSchema.optional(),
    last_name: nameSchema.optional(),
    preferred_language: languageSchema.optional(),
    current_password: z.string().max(1024).optional().openapi({
      description: 'Extension: required with `email` (and refused for API-key callers, 403 `api_key_not_allowed`).',
    }),
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
    'first_name, last_name and preferred_language can be changed. A new email needs `current_password` and a signed-in session (not an API key): the new address gets a confirmation link, the old one a notice, and `email` changes only when the link is used (`pending_email` meanwhile). remaining_credits, current_period_start and current_period_end are range-checked and then refused with `errors.<field>: ["read-only"]` (decisions.md).',
  middleware: authed,
  security,
  request: { body: jsonBody(ProfilePatch) },
  responses: {
    200: { description: 'Updated user', content: { 'application/json': { schema: UserSchema } } },
    400: jsonError('Invalid input, read-only field, email taken, or current password missing or wrong'),
    403: jsonError(
      'An API key tried to change the email (`code: api_key_not_allowed`), or a read-only key any field (`code: api_key_read_only`)',
    ),
    ...authErrors,
  },
})

const ChangePassword = z.object({ current_password: z.string().min(1).max(1024), new_password: passwordSchema }).openapi('PasswordChange')

const changePasswordRoute = createRoute({
  method: 'post',
  path: '/api/user/password',
  tags: ['Credits & Profile'],
  summary: 'Change the password (ends every other session)',
  description:
    'Needs the current password and a signed-in session (403 `api_key_not_allowed` for API keys). Every session ends; the answer carries a fresh token pair for the caller and the API keys that still work, which are also mailed.',
  'x-extension': true,
  middleware: authed,
  security,
  request: { body: jsonBody(ChangePassword) },
  responses: {
    200: {
      description: 'Changed',
      content: {
        'application/json': {
          schema: z.object({
            access: z.string(),
            refresh: z.string(),
            api_keys: z.array(
              z.object({ id: z.string(), prefix: z.string(), created: z.number().int(), expiry: z.number().int().nullable() }),
            ),
            webhooks: z
              .array(z.object({ id: z.string(), url: z.string(), created_at: z.string().openapi({ format: 'date-time' }) }))
              .openapi({ description: 'The webhook endpoints that still receive events (also mailed): remove any you did not add.' }),
          }),
        },
      },
    },
    400: jsonError('Invalid input, or the current password is wrong (`wrong_password` on `current_password`)'),
    403: jsonError('API keys cannot change the password (`code: api_key_not_allowed`)'),
    ...authErrors,
    401: jsonError('Credential invalid or expired, or the 5th wrong current password in a row ended this session (`token_not_valid`)'),
    429: jsonError('Too many wrong current passwords for this account (the sign-in back-off), or the rate limit'),
  },
})

const callerOf = (v: { user: { id: number }; credential: string; session: string | null }): Caller => ({
  userId: v.user.id,
  viaApiKey: v.credential.startsWith('key:'),
  session: v.session,
})

/** The caller's own account: the profile, and the changes to how it signs in, which take its password. */
export function accountRoutes() {
  const app = openApiApp()

  app.openapi(getProfile, async (c) => {
    const { db, clock } = c.var.deps
    return c.json(await profileOf(db, c.var.user.id, clock.now()), 200)
  })

  app.openapi(patchProfile, async (c) => {
    const body = c.req.valid('json')
    refuseReadOnlyKey(c, 'change the profile')
    const readOnly: Record<string, string[]> = {}
    for (const f of READ_ONLY) if (body[f] !== undefined) readOnly[f] = ['read-only']
    if (Object.keys(readOnly).length) throw badRequest(readOnly)
    const { db, clock, config } = c.var.deps
    return c.json(await updateProfile(db, config, clock, callerOf(c.var), body), 200)
  })

  app.openapi(changePasswordRoute, async (c) => {
    const { current_password, new_password } = c.req.valid('json')
    const { db, clock, config } = c.var.deps
    return c.json(await changePassword(db, config, clock, callerOf(c.var), { current: current_password, next: new_password }), 200)
  })

  return app
}
