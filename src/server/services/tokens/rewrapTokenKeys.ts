import type { TokenKeyRepository } from '../../store/repositories';
import { storableKeyMaterial, unwrapKeyMaterial, wrappingKeyIdOf, type TokenKeyEncryption } from './tokenKeyWrapping';

export interface RewrapReport {
  /** Rows now wrapped with the current key-encryption key (they were plain, or wrapped with a previous one). */
  rewrapped: number;
  /** Rows already wrapped with the current key. */
  unchanged: number;
  /** Rows no configured key opens, left as they are: `<app>/<keyId>`. */
  unreadable: string[];
}

/**
 * `token-keys rewrap`: every token key stored wrapped with the current TOKEN_KEY_ENCRYPTION_KEY,
 * the step of a rotation after every replica has the new key (and the old one as _PREVIOUS), and
 * how plain keys of an older database get wrapped. Each row is replaced only if it is still what
 * was read, so a rotation racing a running service loses nothing.
 */
export async function rewrapTokenKeys(tokenKeys: TokenKeyRepository, encryption: TokenKeyEncryption): Promise<RewrapReport> {
  const current = encryption.current;
  if (!current) throw new Error('TOKEN_KEY_ENCRYPTION_KEY is not set: there is nothing to wrap the token keys with');
  const report: RewrapReport = { rewrapped: 0, unchanged: 0, unreadable: [] };
  const rows = await tokenKeys.all();
  for (const row of rows) {
    if (wrappingKeyIdOf(row.keyMaterial) === current.id) {
      report.unchanged += 1;
      continue;
    }
    const material = unwrapKeyMaterial(row.keyMaterial, encryption, row.tenant, row.keyId);
    if (material === undefined) {
      report.unreadable.push(`${row.tenant}/${row.keyId}`);
      continue;
    }
    const replaced = await tokenKeys.replaceMaterial(row.tenant, row.keyId, row.keyMaterial, storableKeyMaterial(material, encryption, row.tenant, row.keyId));
    if (replaced) report.rewrapped += 1;
  }
  return report;
}
