import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto'
import type { Context } from 'hono'
import { getCookie, setCookie } from 'hono/cookie'
import type { AppEnv } from '../../app-env.ts'

/**
 * "This device signed in to this account before" (issue 22: no lockout by a stranger). A successful
 * sign-in sets `leads.device`: `<account id>.<random device id>.<HMAC-SHA256 under the service
 * secret>`, HttpOnly (no script reads it), SameSite=Strict, Secure on an https service, sent only to
 * /api/auth/. It is never a credential by itself: it only lets the sign-in of THAT account from THAT
 * device be judged by the device's own back-off instead of the account's, so a stranger's wrong
 * passwords lock out new devices but not the owner's. A forged or altered value is ignored.
 */
export const DEVICE_COOKIE = 'leads.device'
const MAX_AGE_SECONDS = 365 * 86_400

const mac = (secret: string, userId: number, deviceId: string) =>
  createHmac('sha256', secret).update(`device|${userId}|${deviceId}`).digest('base64url')

/** The device id of a cookie signed by this service for `userId`, else null. */
export function knownDevice(secret: string, value: string | undefined, userId: number): string | null {
  const m = /^(\d{1,10})\.([A-Za-z0-9_-]{16,64})\.([A-Za-z0-9_-]{43})$/.exec(value ?? '')
  if (!m || Number(m[1]) !== userId) return null
  const expected = Buffer.from(mac(secret, userId, m[2]!))
  const given = Buffer.from(m[3]!)
  return expected.length === given.length && timingSafeEqual(expected, given) ? m[2]! : null
}

export const deviceCookieOf = (c: Context<AppEnv>) => getCookie(c, DEVICE_COOKIE)

/** After a successful sign-in: keeps this device's id for the account (a new one for another account). */
export function rememberDevice(c: Context<AppEnv>, userId: number): void {
  const { secret, publicUrl } = c.var.deps.config
  const deviceId = knownDevice(secret, deviceCookieOf(c), userId) ?? randomBytes(18).toString('base64url')
  setCookie(c, DEVICE_COOKIE, `${userId}.${deviceId}.${mac(secret, userId, deviceId)}`, {
    httpOnly: true,
    sameSite: 'Strict',
    secure: publicUrl.startsWith('https:') || new URL(c.req.url).protocol === 'https:',
    path: '/api/auth/',
    maxAge: MAX_AGE_SECONDS,
  })
}
