const IPV4 = /^\d{1,3}(\.\d{1,3}){3}$/;

/**
 * Whether `rpId` may serve as the RP ID of a page on `host`, as browsers decide: the host itself,
 * or a registrable suffix of it (a parent domain that is not a public suffix). An IP address only
 * fits itself. Without the Public Suffix List, a single label (`com`) is refused as a public
 * suffix, `localhost` excepted; a multi-label public suffix such as `co.uk` is not recognised.
 */
export function rpIdFitsHost(rpId: string, host: string): boolean {
  const id = rpId.trim().toLowerCase();
  const name = host.trim().toLowerCase().replace(/^\[|\]$/g, '');
  if (!id || !name) return false;
  if (id === name) return true;
  if (IPV4.test(name) || name.includes(':')) return false;
  if (!name.endsWith(`.${id}`)) return false;
  return id.includes('.') || id === 'localhost';
}
