import { createHash } from 'node:crypto';
import { z } from 'zod';
import { ApiError } from '../http/problem';
import { isUniqueViolation, type Db } from '../store';

export const MAX_ALIASES = 10;
export const MAX_ALIAS_LENGTH = 250;

/** Aliases as the spec limits them: at most 10, each 1..250 characters; duplicates collapse. */
export const aliasListSchema = z
  .array(z.string().min(1, 'must not contain empty aliases').max(MAX_ALIAS_LENGTH, `must contain aliases of at most ${MAX_ALIAS_LENGTH} characters`), {
    message: 'must be an array of strings',
  })
  .max(MAX_ALIASES, `must contain at most ${MAX_ALIASES} aliases`)
  .transform((aliases) => [...new Set(aliases)]);

/** base64(SHA-256(UTF-8(app id + alias))): the stored form, case- and space-sensitive like the reference. */
export function hashAlias(tenant: string, alias: string): string {
  return createHash('sha256').update(tenant + alias, 'utf8').digest('base64');
}

export interface AliasRow {
  tenant: string;
  aliasHash: string;
  userId: string;
  plaintext: string | null;
}

export function aliasRows(tenant: string, userId: string, aliases: string[], hashing: boolean): AliasRow[] {
  return aliases.map((alias) => ({ tenant, aliasHash: hashAlias(tenant, alias), userId, plaintext: hashing ? null : alias }));
}

export const aliasConflict = () => new ApiError('alias_conflict', { detail: 'One of the aliases already belongs to another user of this application.' });

export class AliasService {
  constructor(private readonly db: Db) {}

  /** 409 when any alias belongs to a different user of the app. */
  async assertAvailable(tenant: string, userId: string, aliases: string[]): Promise<void> {
    if (aliases.length === 0) return;
    const taken = await this.db.alias.findFirst({
      where: { tenant, aliasHash: { in: aliases.map((a) => hashAlias(tenant, a)) }, userId: { not: userId } },
      select: { userId: true },
    });
    if (taken) throw aliasConflict();
  }

  /** Replaces the user's whole alias set atomically; a conflict changes nothing. */
  async replace(tenant: string, userId: string, aliases: string[], hashing: boolean): Promise<void> {
    await this.assertAvailable(tenant, userId, aliases);
    try {
      await this.db.$transaction([
        this.db.alias.deleteMany({ where: { tenant, userId } }),
        this.db.alias.createMany({ data: aliasRows(tenant, userId, aliases, hashing) }),
      ]);
    } catch (error) {
      if (isUniqueViolation(error)) throw aliasConflict();
      throw error;
    }
  }

  async list(tenant: string, userId: string) {
    const rows = await this.db.alias.findMany({ where: { tenant, userId }, orderBy: { aliasHash: 'asc' } });
    // Hashed aliases are never shown in plaintext: only their digest.
    return rows.map((row) => ({ userId: row.userId, alias: row.aliasHash, plaintext: row.plaintext }));
  }

  async userIdOf(tenant: string, alias: string): Promise<string | undefined> {
    const row = await this.db.alias.findUnique({ where: { tenant_aliasHash: { tenant, aliasHash: hashAlias(tenant, alias) } }, select: { userId: true } });
    return row?.userId;
  }
}
