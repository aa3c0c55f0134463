import { createHash, randomBytes } from 'node:crypto'
import type { Config } from '../../config.ts'
import type { Db, Queryable } from '../../db/db.ts'
import { pageStrings } from '../../lib/mail-templates.ts'
import { endSessions } from './sessions.ts'

/**
 * "This wasn't me" (issue 22): the notice mailed to the OLD address of an email change carries a
 * one-use link. Opening it shows a page with one button (a GET never acts: mail scanners open links);
 * the button cancels the pending change — or, when the new address was confirmed already, puts the
 * old address back — and ends every session of the account. The link is the credential: only a
 * SHA-256 of its token is kept, and it works once, for EMAIL_CHANGE_CANCEL_SECONDS.
 */
export const EMAIL_CHANGE_CANCEL_SECONDS = 7 * 86_400
export const CANCEL_PATH = '/api/auth/email-change/cancel'

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
  return `${config.publicUrl}${CANCEL_PATH}/?token=${encodeURIComponent(token)}`
}

/** The change a link would cancel, while the link still works (the page's question names its new address). */
export async function pendingCancellation(db: Db, token: string, now: Date) {
  return (
    await db.query<{ new_email: string; preferred_language: string | null }>(
      `SELECT x.new_email, u.preferred_language FROM email_change_cancellations x JOIN users u ON u.id = x.user_id
        WHERE x.token_hash = $1 AND x.used_at IS NULL AND x.expires_at > $2`,
      [sha256(token), now],
    )
  ).rows[0]
}

interface Outcome {
  language: string | null
  restoredEmail: string | null
}

/** Uses the token once: cancels the change (or undoes it) and ends every session; null when the token does not work. */
export function cancelEmailChange(db: Db, token: string, now: Date): Promise<Outcome | null> {
  return db.tx((q) => cancelChange(q, token, now))
}

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

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (ch) => `&#${ch.charCodeAt(0)};`)

/** A small page in the account's language: no script, a form to itself at most. */
function page(language: string | null, parts: { title: string; paragraphs: string[]; form?: string; link?: [string, string] }): string {
  const { lang, dir } = pageStrings(language)
  return [
    `<!doctype html><html lang="${lang}" dir="${dir}"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width, initial-scale=1">`,
    `<title>${escapeHtml(parts.title)}</title></head><body><main>`,
    `<h1>${escapeHtml(parts.title)}</h1>`,
    ...parts.paragraphs.map((p) => `<p>${escapeHtml(p)}</p>`),
    parts.form ?? '',
    parts.link ? `<p><a href="${escapeHtml(parts.link[0])}">${escapeHtml(parts.link[1])}</a></p>` : '',
    '</main></body></html>',
  ].join('\n')
}

/** The page of a link that does not work (no account to take a language from): a way to reset the password instead. */
export function invalidLinkPage(publicUrl: string): string {
  const { t } = pageStrings(null)
  return page(null, {
    title: t('email_change_cancel_page.invalidTitle'),
    paragraphs: [t('email_change_cancel_page.invalid')],
    link: [`${publicUrl}/forgot-password`, t('email_change_cancel_page.reset')],
  })
}

/** The page of a working link: what the button would do, and the button, which posts the token back. */
export function askToCancelPage(token: string, change: { new_email: string; preferred_language: string | null }): string {
  const { t } = pageStrings(change.preferred_language)
  return page(change.preferred_language, {
    title: t('email_change_cancel_page.title'),
    paragraphs: [t('email_change_cancel_page.intro', { email: change.new_email }), t('email_change_cancel_page.explain')],
    form: `<form method="post" action="${CANCEL_PATH}/"><input type="hidden" name="token" value="${escapeHtml(token)}"><button type="submit">${escapeHtml(t('email_change_cancel_page.button'))}</button></form>`,
  })
}

/** The page the button leads to: the change is cancelled (the old address back, when it had moved), every session ended. */
export function cancelledPage(outcome: Outcome, publicUrl: string): string {
  const { t } = pageStrings(outcome.language)
  return page(outcome.language, {
    title: t('email_change_cancel_page.doneTitle'),
    paragraphs: [
      ...(outcome.restoredEmail ? [t('email_change_cancel_page.restored', { email: outcome.restoredEmail })] : []),
      t('email_change_cancel_page.done'),
    ],
    link: [`${publicUrl}/forgot-password`, t('email_change_cancel_page.reset')],
  })
}
