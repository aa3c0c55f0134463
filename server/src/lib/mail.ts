import { mkdir, writeFile } from 'node:fs/promises'
import path from 'node:path'

/**
 * The local outbox (issue 2: "the mail goes to a local outbox on disk and to the log"): each mail is
 * a plain-text .eml file in DATA_DIR/outbox. The log says a mail was written and where, never its
 * content (it can hold a password-reset token).
 */
let sequence = 0

export async function sendMail(
  dataDir: string,
  mail: { to: string; subject: string; text: string; now: Date; lang?: string },
): Promise<string> {
  const dir = path.join(dataDir, 'outbox')
  await mkdir(dir, { recursive: true })
  const stamp = mail.now.toISOString().replace(/[:.]/g, '-')
  // A file name holds at most 255 bytes: long addresses are cut in the middle (the To: line keeps it whole).
  const cleaned = mail.to.replace(/[^a-zA-Z0-9@._+-]/g, '_')
  const safeTo = cleaned.length > 120 ? `${cleaned.slice(0, 40)}__${cleaned.slice(-60)}` : cleaned
  // The sequence keeps two mails of one instant (test clock, sign-up + reset) apart and in order.
  sequence = (sequence + 1) % 1_000_000
  const file = path.join(dir, `${stamp}-${String(sequence).padStart(6, '0')}-${safeTo}.eml`)
  const eml = [
    'From: Lead data service <no-reply@leads.local>',
    `To: ${mail.to}`,
    `Subject: ${mail.subject}`,
    `Date: ${mail.now.toUTCString()}`,
    'MIME-Version: 1.0',
    'Content-Type: text/plain; charset=utf-8',
    'Content-Transfer-Encoding: 8bit',
    ...(mail.lang ? [`Content-Language: ${mail.lang}`] : []),
    '',
    mail.text,
    '',
  ].join('\r\n')
  await writeFile(file, eml, { mode: 0o600 })
  console.log(`[mail] wrote a mail to ${mail.to}: ${file}`)
  return file
}
