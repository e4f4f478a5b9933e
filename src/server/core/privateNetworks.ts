import { BlockList, isIP } from 'node:net';

/**
 * Destinations a webhook may not reach on its own say (server-side request forgery): addresses
 * that are not the public internet's. IPv4-mapped IPv6 addresses (::ffff:a.b.c.d) are judged as
 * the IPv4 address they carry. node:net's BlockList does the prefix arithmetic.
 */
const NOT_PUBLIC: [string, number, 'ipv4' | 'ipv6'][] = [
  ['0.0.0.0', 8, 'ipv4'], // "this network", the unspecified address
  ['10.0.0.0', 8, 'ipv4'], // private
  ['100.64.0.0', 10, 'ipv4'], // carrier-grade NAT
  ['127.0.0.0', 8, 'ipv4'], // loopback
  ['169.254.0.0', 16, 'ipv4'], // link-local (cloud metadata services live here)
  ['172.16.0.0', 12, 'ipv4'], // private
  ['192.0.0.0', 24, 'ipv4'], // IETF protocol assignments
  ['192.168.0.0', 16, 'ipv4'], // private
  ['198.18.0.0', 15, 'ipv4'], // benchmarking
  ['224.0.0.0', 4, 'ipv4'], // multicast
  ['240.0.0.0', 4, 'ipv4'], // reserved, and the broadcast address
  ['::', 128, 'ipv6'], // unspecified
  ['::1', 128, 'ipv6'], // loopback
  ['64:ff9b::', 96, 'ipv6'], // NAT64: reaches whatever IPv4 address it embeds
  ['fc00::', 7, 'ipv6'], // unique local
  ['fe80::', 10, 'ipv6'], // link-local
  ['fec0::', 10, 'ipv6'], // site-local (deprecated)
  ['ff00::', 8, 'ipv6'], // multicast
];

const notPublic = new BlockList();
for (const [network, prefix, family] of NOT_PUBLIC) notPublic.addSubnet(network, prefix, family);

/** The address as its own family judges it: an IPv4-mapped IPv6 address as its IPv4 address. */
function plainAddress(address: string): { address: string; family: 'ipv4' | 'ipv6' } | undefined {
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/i.exec(address);
  if (mapped) return { address: mapped[1], family: 'ipv4' };
  const version = isIP(address);
  if (version === 0) return undefined;
  return { address, family: version === 4 ? 'ipv4' : 'ipv6' };
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
      const plain = plainAddress(candidate);
      return plain !== undefined && list.check(plain.address, plain.family);
    },
  };
}

export const NO_NETWORKS: NetworkList = { entries: [], covers: () => false };

/**
 * Whether a webhook may be sent to this IP address: a public one, or one in a network the operator
 * allowed. Anything that is not an IP address is refused.
 */
export function isAllowedDestination(address: string, allowed: NetworkList): boolean {
  const plain = plainAddress(address);
  if (plain === undefined) return false;
  if (!notPublic.check(plain.address, plain.family)) return true;
  return allowed.covers(address);
}

/** Whether the address is a loopback one (where plain http is allowed with WEBHOOK_ALLOW_INSECURE). */
export function isLoopbackAddress(address: string): boolean {
  const plain = plainAddress(address);
  if (plain === undefined) return false;
  return plain.family === 'ipv4' ? plain.address.startsWith('127.') : plain.address === '::1' || plain.address === '0:0:0:0:0:0:0:1';
}
