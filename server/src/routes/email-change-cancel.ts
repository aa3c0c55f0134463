import { createHash, randomBytes } from 'node:crypto'
import { createRoute, z, type OpenAPIHono } from '@hono/zod-openapi'
import type { Context } from 'hono'
import type { AppEnv } from '../app-env.ts'
import type { Config } from '../config.ts'
import type { Queryable } from '../db/db.ts'
import { badRequest } from '../lib/errors.ts'
import { pageStrings } from '../lib/mail-templates.ts'
import { jsonError, safeString } from '../lib/schemas.ts'
import { SECURITY_HEADERS } from '../static.ts'
import { endSessions } from './auth.ts'

/**
 * "This wasn't me" (issue 22): the notice mailed to the OLD address of an email change carries a
 * one-use link. Opening it shows a page with one button (a GET never acts: mail scanners open links);
 * the button cancels the pending change — or, when the new address was confirmed already, puts the
 * old address back — and ends every session of the account. The link is the credential: only a
 * SHA-256 of its token is kept, and it works once, for EMAIL_CHANGE_CANCEL_SECONDS.
 */
export const EMAIL_CHANGE_CANCEL_SECONDS = 7 * 86_400
const PATH = '/api/auth/email-change/cancel'

const sha256 = (s: string) => createHash('sha256').update(s).digest('hex')

/** A new "this wasn't me" link for one email change request. */
export async function newCancelLink(
  q: Queryable,
  config: Config,
  change: { userId: number; oldEmail: string; newEmail: string },
  now: Date,
): Promise<string> {
  const token = randomBytes(32).toString('base64url')
  await q.query(
    `INSERT INTO email_change_cancellations (token_hash, user_id, old_email, new_email, expires_at, created_at) VALUES ($1, $2, $3, $4, $5, $6)`,
    [sha256(token), change.userId, change.oldEmail, change.newEmail, new Date(now.getTime() + EMAIL_CHANGE_CANCEL_SECONDS * 1000), now],
  )
  return `${config.publicUrl}${PATH}/?token=${encodeURIComponent(token)}`
}

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

const html = (description: string) => ({ description, content: { 'text/html': { schema: z.string() } } })

const pageRoute = createRoute({
  method: 'get',
  path: PATH,
  tags: ['Authentication'],
  summary: '"This wasn\'t me": the page of the link in the notice to the old address (a button, no action)',
  'x-extension': true,
  request: { query: z.object({ token: tokenSchema.optional().openapi({ param: { name: 'token', in: 'query' } }) }).strict() },
  responses: { 200: html("The page, in the account's language"), 400: jsonError('Invalid input') },
})

const cancelRoute = createRoute({
  method: 'post',
  path: PATH,
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

interface Outcome {
  language: string | null
  restoredEmail: string | null
}

/** Uses the token once: cancels the change (or undoes it) and ends every session; null when the token does not work. */
async function cancelChange(q: Queryable, token: string, now: Date): Promise<Outcome | null> {
  const used = (
    await q.query<{ user_id: number; old_email: string; new_email: string }>(
      `UPDATE email_change_cancellations SET used_at = $2 WHERE token_hash = $1 AND used_at IS NULL AND expires_at > $2
       RETURNING user_id, old_email, new_email`,
      [sha256(token), now],
    )
  ).rows[0]
  if (!used) return null
  const user = (
    await q.query<{ email: string; preferred_language: string | null }>(
      'SELECT email, preferred_language FROM users WHERE id = $1 FOR UPDATE',
      [used.user_id],
    )
  ).rows[0]
  if (!user) return null
  // every pending change: whoever asked for this one may have asked for another since
  await q.query('UPDATE users SET pending_email = NULL WHERE id = $1', [used.user_id])
  await q.query(`UPDATE email_confirmations SET used_at = $2 WHERE user_id = $1 AND kind = 'email_change' AND used_at IS NULL`, [
    used.user_id,
    now,
  ])
  let restoredEmail: string | null = null
  const moved = user.email.toLowerCase() === used.new_email.toLowerCase() && used.old_email.toLowerCase() !== used.new_email.toLowerCase()
  if (moved) {
    const taken = await q.query('SELECT 1 FROM users WHERE lower(email) = lower($1) AND id <> $2', [used.old_email, used.user_id])
    if (!taken.rows.length) {
      await q.query('UPDATE users SET email = $2 WHERE id = $1', [used.user_id, used.old_email])
      restoredEmail = used.old_email
    }
  }
  await endSessions(q, used.user_id, now)
  return { language: user.preferred_language, restoredEmail }
}

const invalidToken = () =>
  badRequest({ token: [{ code: 'confirmation_invalid', message: 'This link is invalid, already used or expired.' }] })

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`)

/** A small page in the account's language: the service's security headers, no script, a form to itself at most. */
function page(
  c: Context<AppEnv>,
  language: string | null,
  status: 200 | 400,
  parts: { title: string; paragraphs: string[]; form?: string; link?: [string, string] },
) {
  const { lang, dir } = pageStrings(language)
  const body = [
    `<!doctype html><html lang="${lang}" dir="${dir}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">`,
    `<title>${escapeHtml(parts.title)}</title></head><body><main>`,
    `<h1>${escapeHtml(parts.title)}</h1>`,
    ...parts.paragraphs.map((p) => `<p>${escapeHtml(p)}</p>`),
    parts.form ?? '',
    parts.link ? `<p><a href="${escapeHtml(parts.link[0])}">${escapeHtml(parts.link[1])}</a></p>` : '',
    '</main></body></html>',
  ].join('\n')
  return c.html(body, status, { ...SECURITY_HEADERS, 'Cache-Control': 'no-store' })
}

export function registerEmailChangeCancelRoutes(app: OpenAPIHono<AppEnv>) {
  app.openapi(pageRoute, async (c) => {
    const { token } = c.req.valid('query')
    const { db, clock, config } = c.var.deps
    const row = token
      ? (
          await db.query<{ new_email: string; preferred_language: string | null }>(
            `SELECT x.new_email, u.preferred_language FROM email_change_cancellations x JOIN users u ON u.id = x.user_id
              WHERE x.token_hash = $1 AND x.used_at IS NULL AND x.expires_at > $2`,
            [sha256(token), clock.now()],
          )
        ).rows[0]
      : undefined
    const { t } = pageStrings(row?.preferred_language)
    if (!row || !token) {
      return page(c, null, 400, {
        title: t('email_change_cancel_page.invalidTitle'),
        paragraphs: [t('email_change_cancel_page.invalid')],
        link: [`${config.publicUrl}/forgot-password`, t('email_change_cancel_page.reset')],
      })
    }
    return page(c, row.preferred_language, 200, {
      title: t('email_change_cancel_page.title'),
      paragraphs: [t('email_change_cancel_page.intro', { email: row.new_email }), t('email_change_cancel_page.explain')],
      form: `<form method="post" action="${PATH}/"><input type="hidden" name="token" value="${escapeHtml(token)}"><button type="submit">${escapeHtml(t('email_change_cancel_page.button'))}</button></form>`,
    })
  })

  app.openapi(cancelRoute, async (c) => {
    const form = (c.req.header('content-type') ?? '').toLowerCase().startsWith('application/x-www-form-urlencoded')
    const body = form ? c.req.valid('form') : c.req.valid('json')
    const { db, clock, config } = c.var.deps
    const outcome = body?.token ? await db.tx((q) => cancelChange(q, body.token, clock.now())) : null
    if (!form) {
      if (!outcome) throw invalidToken()
      return c.json({ detail: 'The email change was cancelled and every session ended.', restored_email: outcome.restoredEmail }, 200)
    }
    const { t } = pageStrings(outcome?.language)
    if (!outcome) {
      return page(c, null, 400, {
        title: t('email_change_cancel_page.invalidTitle'),
        paragraphs: [t('email_change_cancel_page.invalid')],
        link: [`${config.publicUrl}/forgot-password`, t('email_change_cancel_page.reset')],
      })
    }
    return page(c, outcome.language, 200, {
      title: t('email_change_cancel_page.doneTitle'),
      paragraphs: [
        ...(outcome.restoredEmail ? [t('email_change_cancel_page.restored', { email: outcome.restoredEmail })] : []),
        t('email_change_cancel_page.done'),
      ],
      link: [`${config.publicUrl}/forgot-password`, t('email_change_cancel_page.reset')],
    })
  })
}
