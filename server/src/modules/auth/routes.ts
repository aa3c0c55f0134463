import { createRoute, z } from '@hono/zod-openapi'
import type { Context } from 'hono'
import type { AppEnv } from '../../app-env.ts'
import type { Config } from '../../config.ts'
import { afterAnswer } from '../../lib/after-answer.ts'
import { badRequest } from '../../lib/errors.ts'
import { openApiApp } from '../../lib/openapi-app.ts'
import { rateLimit } from '../../lib/rate-limit.ts'
import { authErrors, emailSchema, jsonBody, jsonError, languageSchema, nameSchema, safeString } from '../../lib/schemas.ts'
import { SECURITY_HEADERS } from '../../static.ts'
import { authed, security } from './authed.ts'
import { deviceCookieOf, rememberDevice } from './device.ts'
import { askToCancelPage, CANCEL_PATH, cancelEmailChange, cancelledPage, invalidLinkPage, pendingCancellation } from './email-change.ts'
import { passwordSchema } from './password.ts'
import { checkCredentials, confirmEmail, resendConfirmation, resetPassword, sendResetMail, signIn, signUp } from './service.ts'
import { refreshSession, signOut } from './sessions.ts'

const SignUpBody = z
  .object({
    email: emailSchema,
    password: passwordSchema,
    first_name: nameSchema.optional(),
    last_name: nameSchema.optional(),
    preferred_language: languageSchema.optional(),
  })
  .openapi('SignUpRequest')

const LoginBody = z
  .object({
    username: safeString().min(1).max(254).openapi({ description: 'The account email.' }),
    password: safeString().min(1).max(1024),
  })
  .openapi('LoginRequest')

const LoginUser = z
  .object({
    id: z.string(),
    email: z.string(),
    first_name: z.string(),
    last_name: z.string(),
    remaining_credits: z.number().int(),
    subscription_plan: z.string().nullable().openapi({ description: 'Plan name.' }),
  })
  .openapi('LoginUser')

const TokenPair = z.object({ access: z.string(), refresh: z.string() }).openapi('TokenPair')

const tooMany = jsonError('Too many attempts from this address; see Retry-After.')

const signUpRoute = createRoute({
  method: 'post',
  path: '/api/auth/sign-up',
  tags: ['Authentication'],
  summary: 'Register an account (free plan)',
  request: { body: jsonBody(SignUpBody) },
  responses: {
    201: {
      description:
        "Created. The account can sign in at once; the free plan's credits arrive when the address is confirmed through the mailed link (POST /api/auth/confirm-email/).",
      content: { 'application/json': { schema: z.object({ id: z.number().int(), email: z.string() }) } },
    },
    400: jsonError('Invalid input or email already registered'),
    429: tooMany,
  },
})

const loginRoute = createRoute({
  method: 'post',
  path: '/api/auth/login',
  tags: ['Authentication'],
  summary: 'Log in with email and password',
  request: { body: jsonBody(LoginBody) },
  responses: {
    200: {
      description: 'Tokens and the user',
      content: { 'application/json': { schema: TokenPair.extend({ user: LoginUser }).openapi('LoginResponse') } },
    },
    400: jsonError('Invalid input'),
    401: jsonError('Wrong credentials (`code: invalid_credentials`)'),
    429: jsonError(
      'Too many attempts: from this address, or for this account (after 5 failed sign-ins each further one doubles the wait, from 30 s up to 15 min; a success resets it). A device that signed in to the account before (the HttpOnly `leads.device` cookie this answer sets) has a back-off of its own, so guesses made elsewhere do not lock it out. `retry_after` in seconds.',
    ),
  },
})

const refreshRoute = createRoute({
  method: 'post',
  path: '/api/token/refresh',
  tags: ['Authentication'],
  summary: 'Rotate a refresh token',
  description:
    'Each refresh token can be used once; the answer carries a new one. Presenting a rotated token again within 30 seconds (a retry, a second tab) gets the same new refresh token; later, it revokes its whole family, and the access tokens of that family stop working at once.',
  request: { body: jsonBody(z.object({ refresh: safeString().min(1).max(4096) })) },
  responses: {
    200: { description: 'New token pair', content: { 'application/json': { schema: TokenPair } } },
    400: jsonError('Invalid input'),
    401: jsonError('Refresh token invalid, expired, used or revoked (`code: token_not_valid`)'),
    429: tooMany,
  },
})

const resetRequestRoute = createRoute({
  method: 'post',
  path: '/api/auth/password-reset',
  tags: ['Authentication'],
  summary: 'Ask for a password-reset mail',
  description:
    'Always 202, in the same time whether or not the account exists: the account is looked up and the mail sent after the answer. The mail goes to the local outbox (DATA_DIR/outbox).',
  request: { body: jsonBody(z.object({ email: emailSchema })) },
  responses: {
    202: { description: 'Accepted', content: { 'application/json': { schema: z.object({ detail: z.string() }) } } },
    400: jsonError('Invalid input'),
    429: tooMany,
  },
})

const resetConfirmRoute = createRoute({
  method: 'post',
  path: '/api/auth/password-reset/confirm',
  tags: ['Authentication'],
  summary: 'Set a new password with the token from the mail',
  request: { body: jsonBody(z.object({ token: safeString().min(1).max(200), password: passwordSchema })) },
  responses: {
    200: { description: 'Password changed', content: { 'application/json': { schema: z.object({ detail: z.string() }) } } },
    400: jsonError('Invalid input, or the token is invalid, used or expired (on `token`)'),
    429: tooMany,
  },
})

const logoutRoute = createRoute({
  method: 'post',
  path: '/api/auth/logout',
  tags: ['Authentication'],
  summary: 'Sign out: end the session of a refresh token',
  description:
    "Revokes the refresh token's whole family; the access tokens issued in that session stop working at once. Always 204 for a token this service signed (already ended, expired or not).",
  'x-extension': true,
  request: { body: jsonBody(z.object({ refresh: safeString().min(1).max(4096) })) },
  responses: {
    204: { description: 'Signed out' },
    400: jsonError('Invalid input, or not a refresh token of this service (on `refresh`)'),
    429: tooMany,
  },
})

const confirmEmailRoute = createRoute({
  method: 'post',
  path: '/api/auth/confirm-email',
  tags: ['Authentication'],
  summary: 'Confirm an address with the token from the mail',
  description:
    "A sign-up link confirms the account and grants the free plan's credits; an email-change link makes the new address the sign-in address.",
  'x-extension': true,
  request: { body: jsonBody(z.object({ token: safeString().min(1).max(200) })) },
  responses: {
    200: {
      description: 'Confirmed',
      content: {
        'application/json': { schema: z.object({ detail: z.string(), kind: z.enum(['signup', 'email_change']), email: z.string() }) },
      },
    },
    400: jsonError(
      'The link is invalid, used or expired (`code: confirmation_invalid` on `token`), or the new address was taken meanwhile',
    ),
    409: jsonError('The link was used before and its address is confirmed (`code: already_confirmed`)'),
    429: tooMany,
  },
})

const resendConfirmationRoute = createRoute({
  method: 'post',
  path: '/api/auth/confirm-email/resend',
  tags: ['Authentication'],
  summary: 'Mail the sign-up confirmation link again',
  'x-extension': true,
  middleware: authed,
  security,
  responses: {
    202: { description: 'Sent (at most 3 an hour)', content: { 'application/json': { schema: z.object({ detail: z.string() }) } } },
    409: jsonError('The address is already confirmed (`code: already_confirmed`)'),
    ...authErrors,
  },
})

const tokenSchema = safeString().min(1).max(200)
const CancelBody = z.object({ token: tokenSchema }).strict().openapi('EmailChangeCancel')
const CancelResult = z
  .object({
    detail: z.string(),
    restored_email: z
      .string()
      .nullable()
      .openapi({ description: 'The address put back when the change had been confirmed already; null when it was still pending.' }),
  })
  .openapi('EmailChangeCancelled')

const htmlPage = (description: string) => ({ description, content: { 'text/html': { schema: z.string() } } })

const cancelPageRoute = createRoute({
  method: 'get',
  path: CANCEL_PATH,
  tags: ['Authentication'],
  summary: '"This wasn\'t me": the page of the link in the notice to the old address (a button, no action)',
  'x-extension': true,
  request: { query: z.object({ token: tokenSchema.optional().openapi({ param: { name: 'token', in: 'query' } }) }).strict() },
  responses: { 200: htmlPage("The page, in the account's language"), 400: jsonError('Invalid input') },
})

const cancelRoute = createRoute({
  method: 'post',
  path: CANCEL_PATH,
  tags: ['Authentication'],
  summary: '"This wasn\'t me": cancel (or undo) an email change and end every session',
  description:
    "With the token of the link mailed to the OLD address: a pending change is cancelled, a change already confirmed is undone (the old address is the sign-in address again, unless another account took it meanwhile), and every session of the account ends. JSON answers JSON; the page's form (application/x-www-form-urlencoded) answers a page.",
  'x-extension': true,
  request: {
    body: {
      required: false,
      content: { 'application/json': { schema: CancelBody }, 'application/x-www-form-urlencoded': { schema: CancelBody } },
    },
  },
  responses: {
    200: { description: 'Cancelled', content: { 'application/json': { schema: CancelResult }, 'text/html': { schema: z.string() } } },
    400: jsonError('The link is invalid, used or expired (`confirmation_invalid` on `token`)'),
    429: jsonError('Too many attempts from this address'),
  },
})

/** Per-address budgets, one per route, so that flooding one cannot starve another. */
const limitOf = (pick: (l: Config['limits']) => number) => rateLimit((config) => pick(config.limits))

/** A page of the "this wasn't me" link: the service's security headers, never cached. */
const page = (c: Context<AppEnv>, html: string, status: 200 | 400) =>
  c.html(html, status, { ...SECURITY_HEADERS, 'Cache-Control': 'no-store' })

/** Signing in and out, and the links the service mails (address confirmation, password reset, "this wasn't me"). */
export function authRoutes() {
  const app = openApiApp()
  const budgets = {
    login: limitOf((l) => l.login),
    refresh: limitOf((l) => l.refresh),
    signup: limitOf((l) => l.signup),
    reset: limitOf((l) => l.reset),
    confirm: limitOf((l) => l.confirm),
  }
  const budgetOf = (p: string) =>
    p.startsWith('/api/token/') || p.startsWith('/api/auth/logout')
      ? budgets.refresh
      : p.startsWith('/api/auth/login')
        ? budgets.login
        : p.startsWith('/api/auth/sign-up')
          ? budgets.signup
          : p.startsWith('/api/auth/password-reset')
            ? budgets.reset
            : budgets.confirm
  for (const p of ['/api/auth/*', '/api/token/*']) app.use(p, (c, next) => budgetOf(c.req.path)(c, next))

  app.openapi(signUpRoute, async (c) => {
    const { db, clock, config } = c.var.deps
    return c.json(await signUp(db, config, c.req.valid('json'), clock.now()), 201)
  })

  app.openapi(loginRoute, async (c) => {
    const { username, password } = c.req.valid('json')
    const { db, clock, config } = c.var.deps
    const now = clock.now()
    const userId = await checkCredentials(db, config.secret, { username, password, deviceCookie: deviceCookieOf(c) }, now)
    rememberDevice(c, userId)
    return c.json(await signIn(db, config.secret, userId, now), 200)
  })

  app.openapi(refreshRoute, async (c) => {
    const { db, clock, config } = c.var.deps
    return c.json(await refreshSession(db, config.secret, c.req.valid('json').refresh, clock.now()), 200)
  })

  app.openapi(logoutRoute, async (c) => {
    const { db, clock, config } = c.var.deps
    await signOut(db, config.secret, c.req.valid('json').refresh, clock.now())
    return c.body(null, 204)
  })

  app.openapi(confirmEmailRoute, async (c) => {
    const { db, clock } = c.var.deps
    const result = await confirmEmail(db, c.req.valid('json').token, clock.now())
    return c.json({ detail: result.kind === 'signup' ? 'Your address is confirmed.' : 'Your new address is confirmed.', ...result }, 200)
  })

  app.openapi(resendConfirmationRoute, async (c) => {
    const { db, clock, config } = c.var.deps
    await resendConfirmation(db, config, c.var.user.id, clock.now())
    return c.json({ detail: 'A new confirmation link has been sent.' }, 202)
  })

  app.openapi(resetRequestRoute, async (c) => {
    const { email } = c.req.valid('json')
    const deps = c.var.deps
    // Nothing about the account before the answer: looking it up, counting its recent mails and
    // writing one took measurably longer for an existing account (issue 22). Done after it instead.
    afterAnswer(deps, () => sendResetMail(deps, email))
    return c.json({ detail: 'If an account exists for this address, a reset link has been sent.' }, 202)
  })

  app.openapi(resetConfirmRoute, async (c) => {
    const { token, password } = c.req.valid('json')
    const { db, clock, config } = c.var.deps
    await resetPassword(db, config, token, password, clock.now())
    return c.json({ detail: 'Your password has been changed.' }, 200)
  })

  app.openapi(cancelPageRoute, async (c) => {
    const { token } = c.req.valid('query')
    const { db, clock, config } = c.var.deps
    const change = token ? await pendingCancellation(db, token, clock.now()) : undefined
    return change && token ? page(c, askToCancelPage(token, change), 200) : page(c, invalidLinkPage(config.publicUrl), 400)
  })

  app.openapi(cancelRoute, async (c) => {
    const form = (c.req.header('content-type') ?? '').toLowerCase().startsWith('application/x-www-form-urlencoded')
    const body = form ? c.req.valid('form') : c.req.valid('json')
    const { db, clock, config } = c.var.deps
    const outcome = body?.token ? await cancelEmailChange(db, body.token, clock.now()) : null
    if (!form) {
      if (!outcome)
        throw badRequest({ token: [{ code: 'confirmation_invalid', message: 'This link is invalid, already used or expired.' }] })
      return c.json({ detail: 'The email change was cancelled and every session ended.', restored_email: outcome.restoredEmail }, 200)
    }
    return outcome ? page(c, cancelledPage(outcome, config.publicUrl), 200) : page(c, invalidLinkPage(config.publicUrl), 400)
  })

  return app
}
