import { lookup as dnsLookup } from 'node:dns/promises';
import { isIP } from 'node:net';
import type { WebhookDestinationPolicy } from '../../core/config';
import { isAllowedDestination, isLoopbackAddress } from '../../core/privateNetworks';

/** Where a webhook goes: the address it was checked at, to connect to and nothing else (no second lookup to rebind). */
export type WebhookDestination = { ok: true; address: string; family: 4 | 6 } | { ok: false; reason: string };

export type AddressLookup = (hostname: string) => Promise<{ address: string; family: number }[]>;

const systemLookup: AddressLookup = (hostname) => dnsLookup(hostname, { all: true, verbatim: true });

/**
 * Checks a webhook URL against the destination rules: https (or plain http to a loopback address
 * with WEBHOOK_ALLOW_INSECURE), no credentials in it, and every address its host resolves to
 * global unicast (core/privateNetworks.ts) or in WEBHOOK_ALLOW_PRIVATE_NETWORKS: one refused address refuses the URL, so a name
 * with a public and a private answer cannot be used to reach the private one. Run when an
 * endpoint is saved and again before every delivery.
 */
export async function resolveWebhookDestination(text: string, policy: WebhookDestinationPolicy, lookup: AddressLookup = systemLookup): Promise<WebhookDestination> {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return { ok: false, reason: 'must be an absolute URL' };
  }
  if (url.protocol !== 'https:' && url.protocol !== 'http:') return { ok: false, reason: 'must be an https:// URL' };
  if (url.protocol === 'http:' && !policy.allowInsecure) return { ok: false, reason: 'must be an https:// URL (http only to a loopback address, with WEBHOOK_ALLOW_INSECURE)' };
  if (url.username !== '' || url.password !== '') return { ok: false, reason: 'must not carry a user name or password' };
  const host = url.hostname.replace(/^\[(.*)\]$/, '$1');
  let addresses: { address: string; family: number }[];
  if (isIP(host) !== 0) {
    addresses = [{ address: host, family: isIP(host) }];
  } else {
    try {
      addresses = await lookup(host);
    } catch {
      return { ok: false, reason: 'has a host name that does not resolve' };
    }
    if (addresses.length === 0) return { ok: false, reason: 'has a host name that does not resolve' };
  }
  // The reason never names the address: a host name's answer from the service's resolver is the operator's to know.
  for (const { address } of addresses) {
    if (url.protocol === 'http:' && !isLoopbackAddress(address)) return { ok: false, reason: 'must be an https:// URL (http only to a loopback address, with WEBHOOK_ALLOW_INSECURE)' };
    if (!isAllowedDestination(address, policy.allowPrivateNetworks)) return { ok: false, reason: 'resolves to an address that is not global unicast (private, loopback, link-local, documentation, or an IPv6 form that embeds an IPv4 address; see WEBHOOK_ALLOW_PRIVATE_NETWORKS)' };
  }
  const [first] = addresses;
  return { ok: true, address: first.address, family: first.family === 6 ? 6 : 4 };
}
