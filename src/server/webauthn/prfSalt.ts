import { createHmac, randomBytes } from 'node:crypto';

/** A new passkey's PRF salt: 32 random bytes, stored as hex (as the migration wrote the earlier ones). */
export function newPrfSalt(): string {
  return randomBytes(32).toString('hex');
}

/** A stored salt as the browser gets it: its bytes in base64url. */
export function prfSaltInput(storedHex: string): string {
  return Buffer.from(storedHex, 'hex').toString('base64url');
}

/**
 * The salt of a decoy passkey (an allow list for a name without passkeys): derived from the app's
 * decoy secret and the decoy's id, so stable across calls and shaped like a real one, and a PRF
 * request does not tell a real list from a decoy.
 */
export function decoyPrfSalt(secret: Buffer, decoyId: string): string {
  return createHmac('sha256', secret).update('decoy-prf-salt').update('\u0000').update(decoyId).digest('hex');
}
