import { createHmac } from 'node:crypto';

/**
 * Credential id lengths (bytes) of common passkey providers, each as often as it comes up: 16
 * (Google Password Manager, security keys' discoverable credentials, UUID-based managers), 20
 * (iCloud Keychain), 32 (Windows Hello, Chrome profiles, 1Password), 64 (non-discoverable
 * security-key credentials, rarer here since registrations default to discoverable).
 */
const ID_LENGTHS = [16, 16, 16, 20, 20, 20, 32, 32, 32, 32, 64] as const;

export interface DecoyDescriptor {
  type: 'public-key';
  id: string;
}

/**
 * The allow list a sign-in gets for a name that has no passkeys (nobody has it, or its user has
 * none): derived by HMAC from the app's decoy secret and the name, so the same on every call, and
 * shaped like a real list: one passkey (three times in four) or two, ids of a provider's length.
 * No transports: the published browser client sends none at registration, so the passkeys it
 * registered are offered without them too.
 */
export function decoyAllowList(secret: Buffer, name: string): DecoyDescriptor[] {
  const bytes = (label: string) => createHmac('sha256', secret).update(label).update('\u0000').update(name).digest();
  const seed = bytes('decoy-list');
  const count = seed[0] % 4 === 0 ? 2 : 1;
  const list: DecoyDescriptor[] = [];
  for (let i = 0; i < count; i++) {
    const length = ID_LENGTHS[seed[1 + i] % ID_LENGTHS.length];
    const material = Buffer.concat([bytes(`decoy-id-${i}-a`), bytes(`decoy-id-${i}-b`)]);
    list.push({ type: 'public-key', id: material.subarray(0, length).toString('base64url') });
  }
  return list;
}
