import { BlockList, isIP } from 'node:net';

/**
 * Destinations a webhook may reach on its own say (server-side request forgery): global unicast
 * addresses only. For IPv6 that is an allow list: 2000::/3 less the parts of it that are not
 * global (below), so that every other form, those that embed an IPv4 address included
 * (IPv4-compatible ::a.b.c.d, SIIT ::ffff:0:a.b.c.d, NAT64 64:ff9b::/96 and 64:ff9b:1::/48), and
 * whatever IANA assigns outside 2000::/3 later, is refused outright. The one exception is an
 * IPv4-mapped address (::ffff:a.b.c.d), which a dual-stack socket connects to as the IPv4 address it
 * carries: it is judged as that address. For IPv4, IANA's special-purpose ranges that are not
 * global are refused. node:net's BlockList does the prefix arithmetic (its IPv4 rules also match
 * the IPv4-mapped form of an address, which is what judges a mapped address by its IPv4 address).
 */
const NOT_GLOBAL_IPV4: [string, number][] = [
  ['0.0.0.0', 8], // "this network", the unspecified address
  ['10.0.0.0', 8], // private
  ['100.64.0.0', 10], // carrier-grade NAT
  ['127.0.0.0', 8], // loopback
  ['169.254.0.0', 16], // link-local (cloud metadata services live here)
  ['172.16.0.0', 12], // private
  ['192.0.0.0', 24], // IETF protocol assignments
  ['192.0.2.0', 24], // documentation (TEST-NET-1)
  ['192.88.99.0', 24], // 6to4 relay anycast (deprecated)
  ['192.168.0.0', 16], // private
  ['198.18.0.0', 15], // benchmarking
  ['198.51.100.0', 24], // documentation (TEST-NET-2)
  ['203.0.113.0', 24], // documentation (TEST-NET-3)
  ['224.0.0.0', 4], // multicast
  ['240.0.0.0', 4], // reserved, and the broadcast address
];

/** Global unicast IPv6 space, and the parts of it that are not global. */
const GLOBAL_UNICAST_IPV6: [string, number] = ['2000::', 3];
const NOT_GLOBAL_IPV6: [string, number][] = [
  ['2001::', 23], // IETF protocol assignments: Teredo 2001::/32 (embeds an IPv4 address), benchmarking, ORCHID
  ['2001:db8::', 32], // documentation
  ['2002::', 16], // 6to4 (embeds an IPv4 address)
  ['3fff::', 20], // documentation (RFC 9637)
];
const IPV4_MAPPED: [string, number] = ['::ffff:0:0', 96];

const notGlobalIpv4 = new BlockList();
for (const [network, prefix] of NOT_GLOBAL_IPV4) notGlobalIpv4.addSubnet(network, prefix, 'ipv4');
const globalIpv6 = new BlockList();
globalIpv6.addSubnet(...GLOBAL_UNICAST_IPV6, 'ipv6');
const notGlobalIpv6 = new BlockList();
for (const [network, prefix] of NOT_GLOBAL_IPV6) notGlobalIpv6.addSubnet(network, prefix, 'ipv6');
const ipv4Mapped = new BlockList();
ipv4Mapped.addSubnet(...IPV4_MAPPED, 'ipv6');
const loopback = new BlockList();
loopback.addSubnet('127.0.0.0', 8, 'ipv4');
loopback.addAddress('::1', 'ipv6');

const familyOf = (address: string): 'ipv4' | 'ipv6' | undefined => {
  const version = isIP(address);
  return version === 4 ? 'ipv4' : version === 6 ? 'ipv6' : undefined;
};

/** Whether an IP address is global unicast (anything that is not an IP address is not). */
export function isGlobalUnicast(address: string): boolean {
  const family = familyOf(address);
  if (family === 'ipv4') return !notGlobalIpv4.check(address, 'ipv4');
  if (family === undefined) return false;
  // BlockList would match an IPv6 rule against an IPv4 address too; here the family is known to be 6.
  if (ipv4Mapped.check(address, 'ipv6')) return !notGlobalIpv4.check(address, 'ipv6');
  return globalIpv6.check(address, 'ipv6') && !notGlobalIpv6.check(address, 'ipv6');
}

/** A parsed WEBHOOK_ALLOW_PRIVATE_NETWORKS: the networks an operator lets webhooks reach. */
export interface NetworkList {
  /** The entries as written (address or address/prefix). */
  entries: readonly string[];
  covers(address: string): boolean;
}

/**
 * A comma-separated list of addresses and address/prefix networks; undefined when an entry is
 * neither (the configuration names it).
 */
export function parseNetworkList(text: string): NetworkList | undefined {
  const entries = text.split(',').map((e) => e.trim()).filter((e) => e !== '');
  const list = new BlockList();
  for (const entry of entries) {
    const [address, prefix, ...rest] = entry.split('/');
    const version = isIP(address);
    if (version === 0 || rest.length > 0) return undefined;
    const family = version === 4 ? 'ipv4' : 'ipv6';
    if (prefix === undefined) {
      list.addAddress(address, family);
      continue;
    }
    if (!/^\d{1,3}$/.test(prefix) || Number(prefix) > (version === 4 ? 32 : 128)) return undefined;
    list.addSubnet(address, Number(prefix), family);
  }
  return {
    entries,
    covers(candidate) {
      // An IPv4 entry also covers the IPv4-mapped form of its addresses (BlockList matches both).
      const family = familyOf(candidate);
      return family !== undefined && list.check(candidate, family);
    },
  };
}

export const NO_NETWORKS: NetworkList = { entries: [], covers: () => false };

/**
 * Whether a webhook may be sent to this IP address: a global unicast one, or one in a network the
 * operator allowed. Anything that is not an IP address is refused.
 */
export function isAllowedDestination(address: string, allowed: NetworkList): boolean {
  return isGlobalUnicast(address) || allowed.covers(address);
}

/** Whether the address is a loopback one (where plain http is allowed with WEBHOOK_ALLOW_INSECURE). */
export function isLoopbackAddress(address: string): boolean {
  const family = familyOf(address);
  return family !== undefined && loopback.check(address, family);
}
