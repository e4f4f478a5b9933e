import { createHash } from 'node:crypto';
import { z } from 'zod';
import { ApiError } from '../../core/apiError';
import type { AliasRepository, NewAlias, WebhookEvent } from '../../store/repositories';
import type { EventLog } from '../events/eventLog';
import { MAX_ALIAS_LENGTH, MAX_ALIASES } from '../../../shared/vocabulary';

/** Aliases as the spec limits them: at most 10, each 1..250 characters; duplicates collapse. */
export const aliasListSchema = z
  .array(z.string().min(1, 'must not contain empty aliases').max(MAX_ALIAS_LENGTH, `must contain aliases of at most ${MAX_ALIAS_LENGTH} characters`), {
    message: 'must be an array of strings',
  })
  .max(MAX_ALIASES, `must contain at most ${MAX_ALIASES} aliases`)
  .transform((aliases) => [...new Set(aliases)]);

/** base64(SHA-256(UTF-8(app id + alias))): the stored form, case- and space-sensitive like the reference. */
function hashAlias(appId: string, alias: string): string {
  return createHash('sha256').update(appId + alias, 'utf8').digest('base64');
}

/** In key order, so that concurrent inserts lock rows in the same order and cannot deadlock. */
export function newAliases(appId: string, aliases: string[], hashing: boolean): NewAlias[] {
  return aliases
    .map((alias) => ({ aliasHash: hashAlias(appId, alias), plaintext: hashing ? null : alias }))
    .sort((a, b) => (a.aliasHash < b.aliasHash ? -1 : a.aliasHash > b.aliasHash ? 1 : 0));
}

/**
 * How often a write that replaces a user's aliases is tried. On PostgreSQL two concurrent
 * replacements for one user can both find nothing to delete and then collide on insert; that is
 * not a conflict with another user, so the loser tries again once the winner has committed.
 */
export const ALIAS_WRITE_ATTEMPTS = 5;

export const aliasConflict = () => new ApiError('alias_conflict', { detail: 'One of the aliases already belongs to another user of this application.' });

/** What an `AliasService` is built from. */
export interface AliasServiceDeps {
  aliases: AliasRepository;
  events: EventLog;
}

export class AliasService {
  private readonly aliases: AliasRepository;
  private readonly events: EventLog;

  constructor(deps: AliasServiceDeps) {
    this.aliases = deps.aliases;
    this.events = deps.events;
  }

  /** 409 when any alias belongs to a different user of the app. */
  async assertAvailable(appId: string, userId: string, aliases: string[]): Promise<void> {
    if (aliases.length === 0) return;
    if (await this.aliases.takenByOther(appId, userId, aliases.map((a) => hashAlias(appId, a)))) throw aliasConflict();
  }

  /** Replaces the user's whole alias set atomically (with the user's row); a conflict changes nothing. */
  async replace(appId: string, userId: string, aliases: string[], hashing: boolean): Promise<void> {
    // How many, never which: an alias is often an email address, and may be stored hashed.
    const report: WebhookEvent = { type: 'aliases.updated', data: { userId, aliasCount: aliases.length } };
    for (let attempt = 1; ; attempt++) {
      await this.assertAvailable(appId, userId, aliases);
      if (await this.aliases.replace(appId, userId, newAliases(appId, aliases, hashing), report)) break;
      // Lost a race; against the same user's own replacement only (checked again above), it is worth another go.
      if (attempt === ALIAS_WRITE_ATTEMPTS) throw aliasConflict();
    }
    // The count only: an alias is often an email address.
    this.events.record(appId, { type: 'ApiUserSetAliases', message: `The user's aliases were replaced (${aliases.length} now).`, subject: userId, performedBy: userId });
  }

  async list(appId: string, userId: string) {
    const rows = await this.aliases.list(appId, userId);
    // Hashed aliases are never shown in plaintext: only their digest.
    return rows.map((row) => ({ userId: row.userId, alias: row.aliasHash, plaintext: row.plaintext }));
  }

  async userIdOf(appId: string, alias: string): Promise<string | undefined> {
    return this.aliases.userIdOf(appId, hashAlias(appId, alias));
  }
}
