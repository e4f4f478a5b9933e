import type { Db } from '..';
import { SEALED_PREFIX } from '../../core/keyEncryptionKeySealing';

/** One stored token key: its material as stored (plain base64, or wrapped with a key-encryption key). */
export interface StoredTokenKey {
  keyId: number;
  createdAt: Date;
  keyMaterial: string;
}

/** An app's token keys and what they are derived with; see `TokenKeyRepository.keysOf`. */
export interface AppTokenKeyRows {
  incarnation: string;
  /** Hex; empty for an app made by a copy of an older database. */
  decoyKey: string;
  /** Newest first. */
  keys: StoredTokenKey[];
}

/** What a `TokenKeyRepository` is built from. */
export interface TokenKeyRepositoryDeps {
  db: Db;
}

/**
 * The apps' token keys (the TokenKey rows, keyed by (tenant, keyId)) and the App columns they are
 * derived with, through Prisma: a process reads an app's keys about once a minute (the token
 * service caches them), and writes them once a week per app, so none of this is on a hot path.
 */
export class TokenKeyRepository {
  private readonly db: Db;

  constructor(deps: TokenKeyRepositoryDeps) {
    this.db = deps.db;
  }

  /**
   * The app's incarnation, decoy secret and token keys, newest first, in one read (the App row by
   * its primary key, its keys by the primary key's tenant prefix); undefined when there is no such app.
   */
  async keysOf(appId: string): Promise<AppTokenKeyRows | undefined> {
    const app = await this.db.app.findUnique({ where: { id: appId }, select: { incarnation: true, decoyKey: true, tokenKeys: { orderBy: { createdAt: 'desc' } } } });
    return app ? { incarnation: app.incarnation, decoyKey: app.decoyKey, keys: app.tokenKeys } : undefined;
  }

  /** Gives an app without a decoy secret this one: one conditional UPDATE by the primary key (a concurrent one may win). */
  async fillDecoyKey(appId: string, decoyKey: string): Promise<void> {
    await this.db.app.updateMany({ where: { id: appId, decoyKey: '' }, data: { decoyKey } });
  }

  /**
   * Adds a key, then deletes the app's keys created before `pruneBefore`: two statements, not one
   * transaction (a prune that fails is done by the next rotation).
   */
  async rotate(appId: string, key: StoredTokenKey, pruneBefore: Date): Promise<void> {
    await this.db.tokenKey.create({ data: { tenant: appId, ...key } });
    await this.db.tokenKey.deleteMany({ where: { tenant: appId, createdAt: { lt: pruneBefore } } });
  }

  /** Every token key of every app, by app and key id: a scan, for `token-keys rewrap`. */
  all(): Promise<({ tenant: string } & Omit<StoredTokenKey, 'createdAt'>)[]> {
    return this.db.tokenKey.findMany({ select: { tenant: true, keyId: true, keyMaterial: true }, orderBy: [{ tenant: 'asc' }, { keyId: 'asc' }] });
  }

  /**
   * Replaces one key's stored material, only if it is still `stored` (so that a rotation racing a
   * running service loses nothing): one conditional UPDATE by the primary key; whether it did.
   */
  async replaceMaterial(appId: string, keyId: number, stored: string, replacement: string): Promise<boolean> {
    const { count } = await this.db.tokenKey.updateMany({ where: { tenant: appId, keyId, keyMaterial: stored }, data: { keyMaterial: replacement } });
    return count > 0;
  }

  /** The stored material of every wrapped key: a scan, at start-up. */
  async wrappedMaterials(): Promise<string[]> {
    const rows = await this.db.tokenKey.findMany({ where: { keyMaterial: { startsWith: SEALED_PREFIX } }, select: { keyMaterial: true } });
    return rows.map((row) => row.keyMaterial);
  }

  /** How many keys are stored in plain text: a count over a scan, at start-up. */
  plainCount(): Promise<number> {
    return this.db.tokenKey.count({ where: { NOT: { keyMaterial: { startsWith: SEALED_PREFIX } } } });
  }
}
