import { Resolver as DnsResolver } from 'node:dns/promises'
import { isIP } from 'node:net'
import ipaddr from 'ipaddr.js'
import type { FieldIssue } from '../../lib/errors.ts'

/**
 * Webhook URLs are a server-side request forgery surface (docs/security.md): the service sends a
 * request wherever an account points it. So:
 * - at registration: an absolute https URL without credentials (plain http only to a loopback host,
 *   and only with the development setting WEBHOOK_ALLOW_HTTP_LOOPBACK=1); an IP literal must be public;
 * - at EVERY delivery: the host is resolved and every address must be public unicast (no private,
 *   loopback, link-local, unique-local, carrier-grade NAT, multicast, reserved, and no IPv6 form that
 *   embeds an IPv4 address — IPv4-compatible ::/96, SIIT ::ffff:0:0:0/96, NAT64 64:ff9b::/96 and
 *   64:ff9b:1::/48, 6to4 2002::/16, Teredo 2001::/32 — and so no cloud metadata address such as
 *   169.254.169.254 or fd00:ec2::254); IPv6 must be global unicast (2000::/3); an IPv4-mapped address
 *   (::ffff:a.b.c.d) is judged as its IPv4 address. The connection then goes to that checked address
 *   (a DNS answer that changes between check and connect cannot move it), redirects are not
 *   followed, and time (the lookup included) and bytes read are bounded.
 */
export const MAX_URL_LENGTH = 2000

/**
 * Resolves a host name to its addresses (tests pass their own). The signal aborts when the delivery's
 * deadline passes: the lookup is part of the delivery's time.
 */
export type Resolver = (host: string, signal?: AbortSignal) => Promise<string[]>

/** DNS lookup of a delivery, after which the attempt counts as timed out. */
const DNS_TIMEOUT_MS = 2_000

/**
 * The system's DNS servers through c-ares (not getaddrinfo, which runs on libuv's small thread pool
 * and cannot be cancelled: a receiver's name server that never answers would hold a thread the
 * password hashing needs). A new resolver per delivery, cancelled at the deadline.
 */
export const systemResolver: Resolver = async (host, signal) => {
  if (LOOPBACK_NAMES.has(host.toLowerCase())) return ['127.0.0.1']
  const resolver = new DnsResolver({ timeout: DNS_TIMEOUT_MS, tries: 1 })
  const cancel = () => resolver.cancel()
  signal?.addEventListener('abort', cancel, { once: true })
  try {
    const answers = await Promise.allSettled([resolver.resolve4(host), resolver.resolve6(host)])
    const found = answers.flatMap((a) => (a.status === 'fulfilled' ? a.value : []))
    if (found.length) return found
    const failed = answers.find((a): a is PromiseRejectedResult => a.status === 'rejected')
    throw failed?.reason ?? new Error(`${host} has no address`)
  } finally {
    signal?.removeEventListener('abort', cancel)
  }
}

const LOOPBACK_NAMES = new Set(['localhost', 'localhost.'])

const GLOBAL_UNICAST_V6 = ipaddr.IPv6.parseCIDR('2000::/3')
/** IPv6 forms that carry an IPv4 address, and where: [range, how to read the IPv4 address out of the 16 bytes]. */
const EMBEDDING: Array<[[ipaddr.IPv6, number], (b: number[]) => number[]]> = [
  [ipaddr.IPv6.parseCIDR('::/96'), (b) => b.slice(12)], // IPv4-compatible (deprecated)
  [ipaddr.IPv6.parseCIDR('::ffff:0:0:0/96'), (b) => b.slice(12)], // SIIT (RFC 6145)
  [ipaddr.IPv6.parseCIDR('64:ff9b::/96'), (b) => b.slice(12)], // NAT64 (RFC 6052)
  [ipaddr.IPv6.parseCIDR('64:ff9b:1::/48'), (b) => b.slice(12)], // local-use NAT64 (RFC 8215)
  [ipaddr.IPv6.parseCIDR('2002::/16'), (b) => b.slice(2, 6)], // 6to4
  [ipaddr.IPv6.parseCIDR('2001::/32'), (b) => b.slice(12).map((x) => x ^ 0xff)], // Teredo: the client, obfuscated
]

/** The IPv4 address an IPv6 address embeds (mapped, compatible, SIIT, NAT64, 6to4, Teredo), if any. */
export function embeddedIPv4(v6: ipaddr.IPv6): ipaddr.IPv4 | null {
  if (v6.isIPv4MappedAddress()) return v6.toIPv4Address()
  const bytes = v6.toByteArray()
  for (const [cidr, read] of EMBEDDING) {
    if (v6.match(cidr)) return new ipaddr.IPv4(read(bytes))
  }
  return null
}

/**
 * An IPv6 address in its canonical text (the URL parser's): ipaddr.js reads `::127.0.0.1` as the
 * IPv4-MAPPED `::ffff:127.0.0.1`, while it is the IPv4-compatible `::7f00:1`.
 */
function canonical(address: string): string {
  if (isIP(address) !== 6) return address
  try {
    return new URL(`http://[${address}]/`).hostname.slice(1, -1)
  } catch {
    return address
  }
}

/** The range of an address; an IPv4-mapped IPv6 address is judged as its IPv4 address. */
function rangeOf(address: string): string {
  let parsed = ipaddr.parse(canonical(address))
  if (parsed.kind() === 'ipv6' && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) parsed = (parsed as ipaddr.IPv6).toIPv4Address()
  return parsed.range()
}

/** Why an address may not be called, or null when it may (public unicast, or loopback in development). */
export function blockedReason(address: string, allowLoopback: boolean): string | null {
  if (!ipaddr.isValid(address)) return `${address} is not an IP address`
  const parsed = ipaddr.parse(canonical(address))
  if (parsed.kind() === 'ipv6') {
    const v6 = parsed as ipaddr.IPv6
    if (v6.range() === 'loopback') return allowLoopback ? null : `${address} is a loopback address`
    const v4 = embeddedIPv4(v6)
    if (v4 && !v6.isIPv4MappedAddress()) {
      const range = v4.range()
      // whatever it embeds, a transition form is not where a receiver lives: refused, saying what it hides
      return `${address} embeds ${v4.toString()}${range === 'unicast' ? '' : `, a ${range} address`}`
    }
    if (!v4) {
      const range = v6.range()
      if (range !== 'unicast') return `${address} is a ${range} address`
      if (!v6.match(GLOBAL_UNICAST_V6)) return `${address} is not a global unicast address`
      return null
    }
  }
  const range = rangeOf(address)
  if (range === 'unicast') return null
  if (range === 'loopback' && allowLoopback) return null
  return `${address} is a ${range} address`
}

const hostOf = (u: URL) => u.hostname.replace(/^\[|\]$/g, '')

/** Registration check: a field issue for `url`, or the parsed URL. */
export function checkWebhookUrl(raw: string, allowHttpLoopback: boolean): URL | FieldIssue {
  const invalid = (message: string): FieldIssue => ({ code: 'invalid_format', message })
  if (raw.length > MAX_URL_LENGTH)
    return { code: 'max_length', message: `Use at most ${MAX_URL_LENGTH} characters.`, params: { limit: MAX_URL_LENGTH } }
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
export async function resolveTarget(
  u: URL,
  allowLoopback: boolean,
  resolve: Resolver,
  signal?: AbortSignal,
): Promise<{ address: string; family: 4 | 6 }> {
  const host = hostOf(u)
  const addresses = isIP(host) !== 0 ? [host] : await resolve(host, signal)
  if (!addresses.length) throw new BlockedTarget(`${host} has no address`)
  for (const a of addresses) {
    const why = blockedReason(a, allowLoopback)
    if (why) throw new BlockedTarget(`blocked: ${host} resolves to a non-public address (${why})`)
  }
  const address = addresses[0]!
  return { address, family: isIP(address) === 6 ? 6 : 4 }
}
