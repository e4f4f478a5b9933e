import type { Db } from '..';
import { isUniqueViolation } from '../../core/storeErrors';

/** One stored authentication configuration (purpose) of an app. */
export interface StoredAuthConfig {
  purpose: string;
  userVerificationRequirement: string;
  timeToLiveSeconds: number;
  /** JSON: the extensions a sign-in of this purpose asks for (`{}`: none). */
  extensions: string;
  createdBy: string;
  createdOn: Date;
  editedBy: string | null;
  editedOn: Date | null;
  lastUsedOn: Date | null;
}

/** What a sign-in resolves a purpose to. */
export type AuthConfigRule = Pick<StoredAuthConfig, 'purpose' | 'userVerificationRequirement' | 'timeToLiveSeconds' | 'extensions'>;

/** A configuration to save; what is not given takes the column's default. */
export interface NewAuthConfig {
  purpose: string;
  userVerificationRequirement: string;
  timeToLiveSeconds: number;
  extensions?: string;
  createdBy: string;
  createdOn?: Date;
  lastUsedOn?: Date;
  editedBy?: string;
  editedOn?: Date;
}

/** The fields an edit changes. */
export type AuthConfigChanges = Partial<Pick<StoredAuthConfig, 'userVerificationRequirement' | 'timeToLiveSeconds' | 'extensions'>> & { editedBy: string; editedOn: Date };

/** What an `AuthConfigRepository` is built from. */
export interface AuthConfigRepositoryDeps {
  db: Db;
}

/**
 * The apps' authentication configurations (AuthConfig rows, keyed by (tenant, purpose)), through
 * Prisma: sign-ins read them from the service's cache and note their use in batches, so none of
 * this is on a hot path. Every statement is by the primary key or its tenant prefix.
 */
export class AuthConfigRepository {
  private readonly db: Db;

  constructor(deps: AuthConfigRepositoryDeps) {
    this.db = deps.db;
  }

  /** What a sign-in needs of each of the app's stored configurations: one read by the tenant prefix. */
  rules(appId: string): Promise<AuthConfigRule[]> {
    return this.db.authConfig.findMany({ where: { tenant: appId }, select: { purpose: true, userVerificationRequirement: true, timeToLiveSeconds: true, extensions: true } });
  }

  /** The app's stored configurations by purpose (with `purpose`, that one or none). */
  list(appId: string, purpose?: string): Promise<StoredAuthConfig[]> {
    return this.db.authConfig.findMany({ where: { tenant: appId, ...(purpose ? { purpose } : {}) }, orderBy: { purpose: 'asc' } });
  }

  /** Notes when a configuration was last used: one UPDATE by the primary key; false when it is not stored. */
  async markUsed(appId: string, purpose: string, at: Date): Promise<boolean> {
    const { count } = await this.db.authConfig.updateMany({ where: { tenant: appId, purpose }, data: { lastUsedOn: at } });
    return count > 0;
  }

  /** Saves a configuration: one INSERT; false when the app already has one of this purpose. */
  async create(appId: string, config: NewAuthConfig): Promise<boolean> {
    try {
      await this.db.authConfig.create({ data: { tenant: appId, ...config } });
      return true;
    } catch (error) {
      if (isUniqueViolation(error)) return false;
      throw error;
    }
  }

  /** Changes a stored configuration: one UPDATE by the primary key; false when it is not stored. */
  async update(appId: string, purpose: string, changes: AuthConfigChanges): Promise<boolean> {
    const { count } = await this.db.authConfig.updateMany({ where: { tenant: appId, purpose }, data: changes });
    return count > 0;
  }

  /** Saves `config`, or makes `changes` to it if it was saved meanwhile: one upsert by the primary key. */
  async upsert(appId: string, config: NewAuthConfig, changes: AuthConfigChanges): Promise<void> {
    await this.db.authConfig.upsert({ where: { tenant_purpose: { tenant: appId, purpose: config.purpose } }, create: { tenant: appId, ...config }, update: changes });
  }

  /** Deletes a stored configuration: one DELETE by the primary key; false when it was not stored. */
  async delete(appId: string, purpose: string): Promise<boolean> {
    const { count } = await this.db.authConfig.deleteMany({ where: { tenant: appId, purpose } });
    return count > 0;
  }
}
