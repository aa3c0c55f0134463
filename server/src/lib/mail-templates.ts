/**
 * Every mail the service sends, by kind, with the parameters each one takes. The text is rendered in
 * the recipient's `preferred_language`; until the translated templates exist this renders English for
 * every language (the translation files replace the bodies below, the kinds and parameters stay).
 */
export interface MailParams {
  /** A password-reset link (`/reset-password?token=…`), valid for `hours`. */
  password_reset: { link: string; hours: number }
  /** After sign-up: confirm the address to receive the free plan's `credits`. */
  signup_confirm: { link: string; credits: number }
  /** To the NEW address of an email change: confirm it to make it the sign-in address. */
  email_change_confirm: { link: string; new_email: string }
  /** To the OLD address of an email change: someone asked to move the account to `new_email`. */
  email_change_notice: { new_email: string }
  /**
   * After a password reset or change: every session was ended; `key_count` API keys still work
   * (`key_list`: one line per key, prefix and name), revocable at `keys_url`.
   */
  password_changed: { key_count: number; key_list: string; keys_url: string }
}
export type MailKind = keyof MailParams

export interface RenderedMail {
  subject: string
  text: string
  /** Text direction of the mail's language ('rtl' for Hebrew). */
  dir: 'ltr' | 'rtl'
  lang: string
}

const english: { [K in MailKind]: (p: MailParams[K]) => { subject: string; lines: string[] } } = {
  password_reset: (p) => ({
    subject: 'Reset your password',
    lines: [
      'Someone asked to reset the password of your lead-data account.',
      '',
      `To choose a new password, open this link within ${p.hours} hour(s):`,
      p.link,
      '',
      'If it was not you, ignore this mail: your password stays as it is.',
    ],
  }),
  signup_confirm: (p) => ({
    subject: 'Confirm your email address',
    lines: [
      'Welcome to the lead-data service.',
      '',
      `Open this link to confirm your address and receive your ${p.credits} free credits:`,
      p.link,
      '',
      'If you did not sign up, ignore this mail.',
    ],
  }),
  email_change_confirm: (p) => ({
    subject: 'Confirm your new email address',
    lines: [
      `Someone asked to make ${p.new_email} the sign-in address of a lead-data account.`,
      '',
      'Open this link to confirm it:',
      p.link,
      '',
      'If it was not you, ignore this mail: nothing changes.',
    ],
  }),
  email_change_notice: (p) => ({
    subject: 'Your sign-in address is about to change',
    lines: [
      `Someone with your password asked to change the sign-in address of your lead-data account to ${p.new_email}.`,
      '',
      'It changes only once the new address is confirmed. If it was not you, change your password now.',
    ],
  }),
  password_changed: (p) => ({
    subject: 'Your password was changed',
    lines: [
      'The password of your lead-data account was changed, and every session was signed out.',
      '',
      `${p.key_count} API key(s) still work:`,
      p.key_list,
      '',
      `Revoke them at ${p.keys_url} if you did not make this change.`,
    ],
  }),
}

export function renderMail<K extends MailKind>(kind: K, _lang: string | null | undefined, params: MailParams[K]): RenderedMail {
  const { subject, lines } = english[kind](params)
  return { subject, text: lines.join('\r\n'), dir: 'ltr', lang: 'en' }
}
