import { mkdir, writeFile } from 'node:fs/promises'
import path from 'node:path'

/**
 * The local outbox (issue 2: "the mail goes to a local outbox on disk and to the log"): each mail is
 * a plain-text .eml file in DATA_DIR/outbox. The log says a mail was written and where, never its
 * content (it can hold a password-reset token).
 */
export async function sendMail(
  dataDir: string,
  mail: { to: string; subject: string; text: string; now: Date; lang?: string },
): Promise<string> {
  const dir = path.join(dataDir, 'outbox')
  await mkdir(dir, { recursive: true })
  const stamp = mail.now.toISOString().replace(/[:.]/g, '-')
  const safeTo = mail.to.replace(/[^a-zA-Z0-9@._+-]/g, '_')
  const file = path.join(dir, `${stamp}-${safeTo}.eml`)
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
