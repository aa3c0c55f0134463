import { readFileSync } from 'node:fs'
import i18next, { type TFunction } from 'i18next'
import { LANGUAGES } from './schemas.ts'

/**
 * Every mail the service sends, by kind, with the parameters each one takes, rendered in the
 * recipient's `preferred_language` from locales/<lng>/mail.json (the locale check covers those files
 * like the dashboard's: same keys and variables, the plural forms each language needs).
 */
export interface MailParams {
  /** A password-reset link (`/reset-password?token=…`), valid for `hours`. */
  password_reset: { link: string; hours: number }
  /** After sign-up: confirm the address to receive the free plan's `credits`. */
  signup_confirm: { link: string; credits: number }
  /** To the NEW address of an email change: confirm it to make it the sign-in address. */
  email_change_confirm: { link: string; new_email: string }
  /**
   * To the OLD address of an email change: someone asked to move the account to `new_email`; the
   * "this wasn't me" `cancel_link` cancels (or undoes) it and ends every session.
   */
  email_change_notice: { new_email: string; cancel_link: string }
  /**
   * After a password reset or change: every session was ended; these API keys still work
   * (prefix and creation day), revocable at `keys_url`; these webhook endpoints still receive events,
   * removable at `webhooks_url`.
   */
  password_changed: {
    keys: Array<{ prefix: string; created: Date }>
    keys_url: string
    webhooks: Array<{ url: string }>
    webhooks_url: string
  }
}
export type MailKind = keyof MailParams

export interface RenderedMail {
  subject: string
  /** Plain text, CRLF line ends. */
  text: string
  /** The same mail as a small HTML document carrying `lang` and `dir` (right-to-left for Hebrew). */
  html: string
  dir: 'ltr' | 'rtl'
  lang: string
}

const RTL = new Set(['he'])
const LOCALES = new URL('../../../locales/', import.meta.url)

function loadMailStrings(): Record<string, { mail: Record<string, unknown> }> {
  const resources: Record<string, { mail: Record<string, unknown> }> = {}
  for (const lng of LANGUAGES) {
    try {
      resources[lng] = { mail: JSON.parse(readFileSync(new URL(`${lng}/mail.json`, LOCALES), 'utf8')) }
    } catch (err) {
      // English must exist; another missing language falls back to English (the locale check fails on it)
      if (lng === 'en') throw err
    }
  }
  return resources
}

const i18n = i18next.createInstance()
void i18n.init({
  initAsync: false,
  lng: 'en',
  fallbackLng: 'en',
  supportedLngs: [...LANGUAGES],
  ns: ['mail'],
  defaultNS: 'mail',
  resources: loadMailStrings(),
  interpolation: { escapeValue: false },
  returnNull: false,
})

/** A paragraph of the mail: text, or a link shown on its own line. */
type Block = { text: string } | { link: string } | { pre: string }

const blocks: { [K in MailKind]: (t: TFunction, p: MailParams[K], lng: string) => Block[] } = {
  password_reset: (t, p) => [
    { text: t('password_reset.intro') },
    { text: t('password_reset.action', { count: p.hours }) },
    { link: p.link },
    { text: t('password_reset.ignore') },
  ],
  signup_confirm: (t, p) => [
    { text: t('signup_confirm.intro') },
    { text: t('signup_confirm.action', { count: p.credits }) },
    { link: p.link },
    { text: t('signup_confirm.ignore') },
  ],
  email_change_confirm: (t, p) => [
    { text: t('email_change_confirm.intro', { email: p.new_email }) },
    { text: t('email_change_confirm.action') },
    { link: p.link },
    { text: t('email_change_confirm.ignore') },
  ],
  email_change_notice: (t, p) => [
    { text: t('email_change_notice.intro', { email: p.new_email }) },
    { text: t('email_change_notice.pending') },
    { text: t('email_change_notice.notYou') },
    { link: p.cancel_link },
  ],
  password_changed: (t, p, lng) => {
    const day = new Intl.DateTimeFormat(lng, { dateStyle: 'medium', timeZone: 'UTC' })
    return [
      { text: t('password_changed.intro') },
      ...(p.keys.length
        ? [
            { text: t('password_changed.keys', { count: p.keys.length }) },
            { pre: p.keys.map((k) => `${k.prefix}…  (${day.format(k.created)})`).join('\n') },
            { text: t('password_changed.revoke', { url: p.keys_url }) },
          ]
        : [{ text: t('password_changed.noKeys') }, { text: t('password_changed.notYou') }]),
      ...(p.webhooks.length
        ? [
            { text: t('password_changed.webhooks') },
            { pre: p.webhooks.map((w) => w.url).join('\n') },
            { text: t('password_changed.removeWebhooks', { url: p.webhooks_url }) },
          ]
        : []),
    ]
  },
}

/** The strings of a page the service itself renders (the "this wasn't me" page), in the person's language. */
export function pageStrings(preferred: string | null | undefined): { t: TFunction; lang: string; dir: 'ltr' | 'rtl' } {
  const lang = preferred && (LANGUAGES as readonly string[]).includes(preferred) ? preferred : 'en'
  return { t: i18n.getFixedT(lang, 'mail'), lang, dir: RTL.has(lang) ? 'rtl' : 'ltr' }
}

const escapeHtml = (s: string) => s.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)

export function renderMail<K extends MailKind>(kind: K, preferred: string | null | undefined, params: MailParams[K]): RenderedMail {
  const lang = preferred && (LANGUAGES as readonly string[]).includes(preferred) ? preferred : 'en'
  const t = i18n.getFixedT(lang, 'mail')
  const dir = RTL.has(lang) ? 'rtl' : 'ltr'
  const body = [...blocks[kind](t, params, lang), { text: t('signature') }]
  const subject = t(`${kind}.subject`)
  const text = body
    .map((b) => ('text' in b ? b.text : 'link' in b ? b.link : b.pre.replace(/^/gm, '  ')))
    .join('\r\n\r\n')
    .replace(/\r?\n/g, '\r\n')
  const html = [
    `<!doctype html><html lang="${lang}" dir="${dir}"><head><meta charset="utf-8"><title>${escapeHtml(subject)}</title></head><body>`,
    ...body.map((b) =>
      'text' in b
        ? `<p>${escapeHtml(b.text)}</p>`
        : 'link' in b
          ? // a link reads left to right inside right-to-left text
            `<p dir="ltr"><a href="${escapeHtml(b.link)}">${escapeHtml(b.link)}</a></p>`
          : `<pre dir="ltr">${escapeHtml(b.pre)}</pre>`,
    ),
    '</body></html>',
  ].join('\r\n')
  return { subject, text, html, dir, lang }
}
