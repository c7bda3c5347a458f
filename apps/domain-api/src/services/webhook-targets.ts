import { lookup as dnsLookup, type LookupAddress, type LookupAllOptions } from 'node:dns'
import { lookup as dnsLookupAsync } from 'node:dns/promises'
import { BlockList, isIP, type LookupFunction } from 'node:net'

/**
 * Where webhooks may point. A registry that posts to any URL an admin types could be steered at
 * its own network (SSRF), so outside development only public addresses are allowed: the check runs
 * when a hook is registered and again on every connection (a name may later resolve elsewhere).
 */

const NON_PUBLIC = new BlockList()
const V4: Array<[string, number]> = [
  ['0.0.0.0', 8], ['10.0.0.0', 8], ['100.64.0.0', 10], ['127.0.0.0', 8], ['169.254.0.0', 16], ['172.16.0.0', 12],
  ['192.0.0.0', 24], ['192.0.2.0', 24], ['192.168.0.0', 16], ['198.18.0.0', 15], ['224.0.0.0', 4], ['240.0.0.0', 4]
]
const V6: Array<[string, number]> = [
  ['::', 128], ['::1', 128], ['64:ff9b::', 96], ['100::', 64], ['2001:db8::', 32], ['fc00::', 7], ['fe80::', 10],
  ['ff00::', 8]
]
for (const [net, prefix] of V4) NON_PUBLIC.addSubnet(net, prefix, 'ipv4')
for (const [net, prefix] of V6) NON_PUBLIC.addSubnet(net, prefix, 'ipv6')

/** Loopback, private, link-local, shared, documentation, multicast or reserved (also as IPv4-mapped IPv6). */
export function isNonPublicAddress (address: string): boolean {
  const mapped = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i.exec(address)?.[1]
  if (mapped !== undefined) return NON_PUBLIC.check(mapped, 'ipv4')
  const family = isIP(address)
  if (family === 0) return true
  return NON_PUBLIC.check(address, family === 4 ? 'ipv4' : 'ipv6')
}

/** Why `url` cannot be a webhook target, or undefined when it can. */
export async function refuseTarget (url: string, allowPrivate: boolean): Promise<string | undefined> {
  let target: URL
  try {
    target = new URL(url)
  } catch {
    return 'must be an absolute URL'
  }
  if (target.protocol !== 'https:' && target.protocol !== 'http:') return 'must use http or https'
  if (target.username !== '' || target.password !== '') return 'must not carry credentials'
  if (target.hash !== '') return 'must not have a fragment'
  if (allowPrivate) return undefined
  const host = target.hostname.replace(/^\[(.*)\]$/, '$1')
  if (isIP(host) !== 0) return isNonPublicAddress(host) ? 'must not point at a private or loopback address' : undefined
  try {
    const addresses = await dnsLookupAsync(host, { all: true })
    return addresses.some((a) => isNonPublicAddress(a.address))
      ? 'must not resolve to a private or loopback address'
      : undefined
  } catch {
    return 'host name does not resolve'
  }
}

/** A `lookup` for outgoing requests that refuses names resolving to non-public addresses. */
export function publicOnlyLookup (): LookupFunction {
  return (hostname, options, callback) => {
    dnsLookup(hostname, { ...options, all: true } satisfies LookupAllOptions, (error, addresses: LookupAddress[]) => {
      if (error !== null) return callback(error, '', 0)
      if (addresses.some((a) => isNonPublicAddress(a.address))) {
        const refused = Object.assign(new Error(`${hostname} resolves to a non-public address`), { code: 'EPERM' })
        return callback(refused, '', 0)
      }
      const first = addresses[0]
      if (options.all === true) return (callback as unknown as (e: null, a: LookupAddress[]) => void)(null, addresses)
      return callback(null, first?.address ?? '', first?.family ?? 4)
    })
  }
}
