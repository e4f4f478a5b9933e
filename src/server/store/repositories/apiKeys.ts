import type { Db } from '..';
import { isUniqueViolation } from '../../core/storeErrors';

/** A key as it is stored: its digest, never a secret in plain text. */
export interface NewApiKey {
  /** The key's last four characters, unique within the app. */
  id: string;
  kind: 'public' | 'secret';
  /** SHA-256 of the whole key, hex. */
  keyHash: string;
  /** Public keys only: the key itself, so that it can be shown again. */
  publicValue: string | null;
  scopes: readonly string[];
}

export interface StoredApiKey {
  id: string;
  kind: string;
  keyHash: string;
  publicValue: string | null;
  scopes: string[];
  isLocked: boolean;
  lastLockedAt: Date | null;
  lastUnlockedAt: Date | null;
  createdAt: Date;
}

/** What an `ApiKeyRepository` is built from. */
export interface ApiKeyRepositoryDeps {
  db: Db;
}

/** The stored form of a key's scopes: one comma-separated column. */
export const scopesColumn = (scopes: readonly string[]) => scopes.join(',');
const scopesOfColumn = (column: string) => column.split(',').filter(Boolean);

function storedKey(row: Awaited<ReturnType<Db['apiKey']['findMany']>>[number]): StoredApiKey {
  return { ...row, scopes: scopesOfColumn(row.scopes) };
}

/**
 * The apps' API keys, through Prisma (key checks are cached by the authenticator, so none of this
 * is on a hot path). Every statement is by the (tenant, id) primary key or its tenant prefix.
 */
export class ApiKeyRepository {
  private readonly db: Db;

  constructor(deps: ApiKeyRepositoryDeps) {
    this.db = deps.db;
  }

  /** One key by its address: one read by the primary key; undefined when the app has no key with this id. */
  async find(appId: string, keyId: string): Promise<StoredApiKey | undefined> {
    const row = await this.db.apiKey.findUnique({ where: { tenant_id: { tenant: appId, id: keyId } } });
    return row ? storedKey(row) : undefined;
  }

  /**
   * Every key of the app, oldest first. The keys an app is created with share one createdAt, and
   * the two databases break such ties differently (SQLite by the primary key it scans, PostgreSQL by
   * where the rows lie): kind, then id, both lowercase ASCII that every collation sorts alike, make
   * one order on both.
   */
  async list(appId: string): Promise<StoredApiKey[]> {
    const rows = await this.db.apiKey.findMany({ where: { tenant: appId }, orderBy: [{ createdAt: 'asc' }, { kind: 'asc' }, { id: 'asc' }] });
    return rows.map(storedKey);
  }

  /** The ids the app's keys take: one read of the primary key's tenant prefix. */
  async ids(appId: string): Promise<Set<string>> {
    const rows = await this.db.apiKey.findMany({ where: { tenant: appId }, select: { id: true } });
    return new Set(rows.map((k) => k.id));
  }

  /** Adds one key; false when the app already has a key with its id (a concurrent request took it). */
  async create(appId: string, key: NewApiKey): Promise<boolean> {
    try {
      await this.db.apiKey.create({ data: { ...key, tenant: appId, scopes: scopesColumn(key.scopes) } });
      return true;
    } catch (error) {
      if (isUniqueViolation(error)) return false;
      throw error;
    }
  }

  /** Locks or unlocks one key, noting when: one UPDATE by the primary key; false when there is no such key. */
  async setLocked(appId: string, keyId: string, locked: boolean, at: Date): Promise<boolean> {
    const { count } = await this.db.apiKey.updateMany({
      where: { tenant: appId, id: keyId },
      data: locked ? { isLocked: true, lastLockedAt: at } : { isLocked: false, lastUnlockedAt: at },
    });
    return count > 0;
  }

  /** Deletes one key: one DELETE by the primary key; false when there was no such key. */
  async delete(appId: string, keyId: string): Promise<boolean> {
    const { count } = await this.db.apiKey.deleteMany({ where: { tenant: appId, id: keyId } });
    return count > 0;
  }
}
