import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from 'node:crypto'
import { safeString } from '../../lib/schemas.ts'

export const PASSWORD_MIN = 8
export const PASSWORD_MAX = 128
/** A new password as sign-up, a reset and a change take it. */
export const passwordSchema = safeString()
  .refine((s) => s.length >= PASSWORD_MIN, {
    message: `Use at least ${PASSWORD_MIN} characters.`,
    params: { code: 'password_too_short', limit: PASSWORD_MIN },
  })
  .refine((s) => s.length <= PASSWORD_MAX, {
    message: `Use at most ${PASSWORD_MAX} characters.`,
    params: { code: 'password_too_long', limit: PASSWORD_MAX },
  })
  .openapi({ minLength: PASSWORD_MIN, maxLength: PASSWORD_MAX })

/**
 * Passwords: scrypt (a slow, memory-hard KDF from node itself), a random salt per password, and the
 * parameters stored with the hash so they can be raised later without breaking old hashes:
 * `scrypt$N$r$p$<salt b64>$<hash b64>`.
 */
const PARAMS = { N: 16384, r: 8, p: 1 }
const KEY_LENGTH = 64

function derive(password: string, salt: Buffer, opts: ScryptOptions, keyLength: number): Promise<Buffer> {
  return new Promise((resolve, reject) =>
    scrypt(password.normalize('NFKC'), salt, keyLength, { ...opts, maxmem: 256 * 1024 * 1024 }, (err, key) =>
      err ? reject(err) : resolve(key),
    ),
  )
}

export async function hashPassword(password: string): Promise<string> {
  const salt = randomBytes(16)
  const key = await derive(password, salt, PARAMS, KEY_LENGTH)
  return ['scrypt', PARAMS.N, PARAMS.r, PARAMS.p, salt.toString('base64'), key.toString('base64')].join('$')
}

export async function verifyPassword(password: string, stored: string): Promise<boolean> {
  const parts = stored.split('$')
  if (parts.length !== 6 || parts[0] !== 'scrypt') return false
  const [, n, r, p, saltB64, keyB64] = parts as [string, string, string, string, string, string]
  const expected = Buffer.from(keyB64, 'base64')
  const key = await derive(password, Buffer.from(saltB64, 'base64'), { N: Number(n), r: Number(r), p: Number(p) }, expected.length)
  return key.length === expected.length && timingSafeEqual(key, expected)
}

/** A hash of a random password: login against a missing account costs the same time as a wrong password. */
let dummyHash: Promise<string> | undefined
export const dummyPasswordHash = () => (dummyHash ??= hashPassword(randomBytes(16).toString('hex')))
