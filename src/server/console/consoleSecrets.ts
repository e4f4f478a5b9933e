import { hkdfSync, randomBytes } from 'node:crypto';
import { isLoopbackUrl } from '../core/config';
import type { KeyEncryptionKey } from '../core/parseKeyEncryptionKey';

/**
 * What the console's keys and its session cookie's secret are derived from: never a value stored
 * in the database (a copy or a backup of it must not open the console). The first is the current
 * secret (its keys are the ones the console uses, it signs the cookie); the others are still
 * accepted: their keys stay and the cookies they signed still open sessions.
 */
export type ConsoleSecrets = { secrets: Buffer[]; inMemory: boolean } | { refused: string };

/** HKDF's `info`: a label of the console's own, so the secret is independent of the key's other uses (sealing token keys). */
const LABEL = 'passwordless-selfhost operator console secret';

/** The console's secret under one key-encryption key: HKDF-SHA256, 32 bytes. */
export function consoleSecretOf(kek: KeyEncryptionKey): Buffer {
  return Buffer.from(hkdfSync('sha256', kek.key, Buffer.alloc(0), LABEL, 32));
}

/**
 * The console's secrets for this configuration: derived from TOKEN_KEY_ENCRYPTION_KEY (and one from
 * each _PREVIOUS, so that replicas in the middle of a rotation keep working), the same on every
 * replica and after a restart. Without a key-encryption key: a random secret held in this process's
 * memory only, when PUBLIC_URL is this machine (development: operators sign in again after a
 * restart); otherwise the console refuses to start, saying why.
 */
export function consoleSecrets(config: { tokenKeyEncryption: { current: KeyEncryptionKey | undefined; previous: readonly KeyEncryptionKey[] }; publicUrl: string }, random = () => randomBytes(32)): ConsoleSecrets {
  const { current, previous } = config.tokenKeyEncryption;
  if (current) return { secrets: [current, ...previous.filter((kek) => kek.id !== current.id)].map(consoleSecretOf), inMemory: false };
  if (isLoopbackUrl(config.publicUrl)) return { secrets: [random()], inMemory: true };
  return {
    refused:
      'the operator console does not start: TOKEN_KEY_ENCRYPTION_KEY is not set, and the console derives its keys and its session cookie secret from it ' +
      '(only a PUBLIC_URL on this machine, for development, may do without). Set TOKEN_KEY_ENCRYPTION_KEY (`passwordless-selfhost generate-key token-encryption` prints one), or CONSOLE=off',
  };
}
