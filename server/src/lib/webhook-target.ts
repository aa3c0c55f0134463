import { lookup as dnsLookup } from 'node:dns/promises'
import { isIP } from 'node:net'
import ipaddr from 'ipaddr.js'
import type { FieldIssue } from './errors.ts'

/**
 * Webhook URLs are a server-side request forgery surface (docs/security.md): the service sends a
 * request wherever an account points it. So:
 * - at registration: an absolute https URL without credentials (plain http only to a loopback host,
 *   and only with the development setting WEBHOOK_ALLOW_HTTP_LOOPBACK=1); an IP literal must be public;
 * - at EVERY delivery: the host is resolved and every address must be public unicast (no private,
 *   loopback, link-local, unique-local, carrier-grade NAT, multicast, reserved, 6to4/Teredo/NAT64
 *   ranges that embed IPv4, and so no cloud metadata address such as 169.254.169.254 or fd00:ec2::254);
 *   the connection then goes to that checked address (a DNS answer that changes between check and
 *   connect cannot move it), redirects are not followed, and time and bytes read are bounded.
 */
export const MAX_URL_LENGTH = 2000

/** Resolves a host name to its addresses (tests pass their own). */
export type Resolver = (host: string) => Promise<string[]>
export const systemResolver: Resolver = async (host) => (await dnsLookup(host, { all: true, verbatim: true })).map((a) => a.address)

const LOOPBACK_NAMES = new Set(['localhost', 'localhost.'])

/** The range of an address; an IPv4-mapped IPv6 address is judged as its IPv4 address. */
function rangeOf(address: string): string {
  let parsed = ipaddr.parse(address)
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) parsed = (parsed as ipaddr.IPv6).toIPv4Address()
  return parsed.range()
}

/** Why an address may not be called, or null when it may (public unicast, or loopback in development). */
export function blockedReason(address: string, allowLoopback: boolean): string | null {
  if (!ipaddr.isValid(address)) return `${address} is not an IP address`
  const range = rangeOf(address)
  if (range === 'unicast') return null
  if (range === 'loopback' && allowLoopback) return null
  return `${address} is a ${range} address`
}

const hostOf = (u: URL) => u.hostname.replace(/^\[|\]$/g, '')

/** Registration check: a field issue for `url`, or the parsed URL. */
export function checkWebhookUrl(raw: string, allowHttpLoopback: boolean): URL | FieldIssue {
  const invalid = (message: string): FieldIssue => ({ code: 'invalid_format', message })
  if (raw.length > MAX_URL_LENGTH) return { code: 'max_length', message: `Use at most ${MAX_URL_LENGTH} characters.`, params: { limit: MAX_URL_LENGTH } }
  let u: URL
  try {
    u = new URL(raw)
  } catch {
    return invalid('Enter an absolute URL, like https://example.com/hooks/leads.')
  }
  if (u.username || u.password) return invalid('A webhook URL cannot carry a user name or password.')
  const host = hostOf(u)
  const loopbackHost = LOOPBACK_NAMES.has(host.toLowerCase()) || (isIP(host) !== 0 && rangeOf(host) === 'loopback')
  if (u.protocol === 'http:') {
    if (!(allowHttpLoopback && loopbackHost)) {
      return {
        code: 'webhook_https_required',
        message: allowHttpLoopback
          ? 'Use https (plain http is allowed only to 127.0.0.1 or localhost on this development service).'
          : 'Use an https URL.',
      }
    }
    return u
  }
  if (u.protocol !== 'https:') return { code: 'webhook_https_required', message: 'Use an https URL.' }
  if (isIP(host) !== 0) {
    const why = blockedReason(host, allowHttpLoopback)
    if (why) return { code: 'webhook_address_blocked', message: `The service does not call private or reserved addresses (${why}).` }
  } else if (loopbackHost && !allowHttpLoopback) {
    return { code: 'webhook_address_blocked', message: 'The service does not call private or reserved addresses (localhost).' }
  }
  return u
}

export class BlockedTarget extends Error {}

/** Delivery check: the address to connect to, after every resolved address passed. */
export async function resolveTarget(u: URL, allowLoopback: boolean, resolve: Resolver): Promise<{ address: string; family: 4 | 6 }> {
  const host = hostOf(u)
  const addresses = isIP(host) !== 0 ? [host] : await resolve(host)
  if (!addresses.length) throw new BlockedTarget(`${host} has no address`)
  for (const a of addresses) {
    const why = blockedReason(a, allowLoopback)
    if (why) throw new BlockedTarget(`blocked: ${host} resolves to a non-public address (${why})`)
  }
  const address = addresses[0]!
  return { address, family: isIP(address) === 6 ? 6 : 4 }
}
