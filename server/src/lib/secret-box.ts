import { createCipheriv, createDecipheriv, hkdfSync, randomBytes } from 'node:crypto'

/**
 * Secrets the service must read back (webhook signing secrets) are stored sealed: AES-256-GCM under a
 * key derived (HKDF-SHA256) from the service's SECRET_KEY, so a copy of the database alone does not
 * give them away. Sealed form: `v1.<base64url(iv | tag | ciphertext)>`.
 */
const keys = new Map<string, Buffer>()
function keyOf(serviceSecret: string): Buffer {
  let key = keys.get(serviceSecret)
  if (!key) {
    key = Buffer.from(hkdfSync('sha256', serviceSecret, 'leads-secret-box', 'webhook-secrets v1', 32))
    keys.set(serviceSecret, key)
  }
  return key
}

export function seal(serviceSecret: string, plaintext: string): string {
  const iv = randomBytes(12)
  const cipher = createCipheriv('aes-256-gcm', keyOf(serviceSecret), iv)
  const data = Buffer.concat([cipher.update(plaintext, 'utf8'), cipher.final()])
  return `v1.${Buffer.concat([iv, cipher.getAuthTag(), data]).toString('base64url')}`
}

export function open(serviceSecret: string, sealed: string): string {
  if (!sealed.startsWith('v1.')) throw new Error('Unknown sealed-secret version.')
  const raw = Buffer.from(sealed.slice(3), 'base64url')
  const decipher = createDecipheriv('aes-256-gcm', keyOf(serviceSecret), raw.subarray(0, 12))
  decipher.setAuthTag(raw.subarray(12, 28))
  return Buffer.concat([decipher.update(raw.subarray(28)), decipher.final()]).toString('utf8')
}
