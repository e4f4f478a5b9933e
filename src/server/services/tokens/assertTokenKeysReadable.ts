import type { Logger } from 'pino';
import { ConfigError } from '../../core/config';
import type { TokenKeyRepository } from '../../store/repositories';
import { wrappingKeyIdOf, type TokenKeyEncryption } from './tokenKeyWrapping';

/**
 * At start-up: refuses to run when the database holds token keys wrapped with a key-encryption key
 * that is not configured (a copy of the database without its key, a key lost or mistyped), since
 * every token those keys signed would fail and none could be checked; says how many keys are still
 * stored in plain text when a key-encryption key is set.
 */
export async function assertTokenKeysReadable(tokenKeys: TokenKeyRepository, encryption: TokenKeyEncryption, logger?: Logger): Promise<void> {
  const wrapped = await tokenKeys.wrappedMaterials();
  const known = new Set([encryption.current, ...encryption.previous].map((k) => k?.id));
  const missing = [...new Set(wrapped.map((material) => wrappingKeyIdOf(material)))].filter((id) => !known.has(id));
  if (missing.length > 0) {
    throw new ConfigError(
      `Invalid configuration: TOKEN_KEY_ENCRYPTION_KEY: the database's token keys are wrapped with a key-encryption key this service does not have (id ${missing.join(', ')}); ` +
        'set TOKEN_KEY_ENCRYPTION_KEY (or, during a rotation, TOKEN_KEY_ENCRYPTION_KEY_PREVIOUS) to it',
    );
  }
  if (encryption.current) {
    const plain = await tokenKeys.plainCount();
    if (plain > 0) logger?.info({ plain }, 'token keys stored in plain text: new keys are wrapped; `token-keys rewrap` wraps these too');
  }
}
