import { randomBytes } from 'node:crypto'
import { mkdir, writeFile } from 'node:fs/promises'
import path from 'node:path'

/**
 * The local outbox (issue 2: "the mail goes to a local outbox on disk and to the log"): each mail is
 * an .eml file in DATA_DIR/outbox, multipart/alternative with a plain-text part and an HTML part that
 * carries the language and direction (issue 10: Hebrew mails read right to left). The log says a mail
 * was written and where, never its content (it can hold a password-reset token).
 */
let sequence = 0

/** RFC 2047: a header value outside ASCII travels as UTF-8 base64 encoded-words. */
export function encodeHeader(value: string): string {
  if (/^[\x20-\x7e]*$/.test(value)) return value
  const words: string[] = []
  let chunk = ''
  // at most 45 bytes per word keeps each encoded word under 75 characters, never splitting a character
  for (const ch of value) {
    if (Buffer.byteLength(chunk + ch) > 45) {
      words.push(chunk)
      chunk = ''
    }
    chunk += ch
  }
  if (chunk) words.push(chunk)
  return words.map((w) => `=?UTF-8?B?${Buffer.from(w, 'utf8').toString('base64')}?=`).join('\r\n ')
}

export async function sendMail(
  dataDir: string,
  mail: { to: string; subject: string; text: string; html?: string; now: Date; lang?: string },
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
  const part = (type: string, content: string) => [`Content-Type: ${type}; charset=utf-8`, 'Content-Transfer-Encoding: 8bit', '', content]
  const boundary = `=_leads_${randomBytes(12).toString('hex')}`
  const body = mail.html
    ? [
        `Content-Type: multipart/alternative; boundary="${boundary}"`,
        '',
        `--${boundary}`,
        ...part('text/plain', mail.text),
        `--${boundary}`,
        ...part('text/html', mail.html),
        `--${boundary}--`,
      ]
    : part('text/plain', mail.text)
  const eml = [
    'From: Lead data service <no-reply@leads.local>',
    `To: ${mail.to}`,
    `Subject: ${encodeHeader(mail.subject)}`,
    `Date: ${mail.now.toUTCString()}`,
    'MIME-Version: 1.0',
    ...(mail.lang ? [`Content-Language: ${mail.lang}`] : []),
    ...body,
    '',
  ].join('\r\n')
  await writeFile(file, eml, { mode: 0o600 })
  console.log(`[mail] wrote a mail to ${mail.to}: ${file}`)
  return file
}
