import { hash, randomBytes, timingSafeEqual } from 'node:crypto';
import { APP_ID_PATTERN, parseKey, type KeyKind, type ParsedKey } from '../../../shared/apiKeys';
import type { ApiKeyRepository, AppRepository } from '../../store/repositories';
import type { FailedKeyUses } from './failedKeyUses';
import { AppIncarnations } from './incarnations';
import { TtlCache } from '../../core/ttlCache';

export { APP_ID_PATTERN, parseKey, type KeyKind, type ParsedKey };
import type { Scope } from '../../core/keyScopes';
import { effectiveScopes } from '../../core/effectiveScopes';
export { PUBLIC_SCOPES, SECRET_SCOPES, SCOPES, scopesOf, type Scope } from '../../core/keyScopes';

export function digestKey(value: string): string {
  // One-shot: no Hash object per request.
  return hash('sha256', value, 'hex');
}

/** `<appId>:<kind>:<32 hex>`: 128 random bits, so a plain SHA-256 digest is a safe stored form. */
export function generateKey(appId: string, kind: KeyKind): string {
  return `${appId}:${kind}:${randomBytes(16).toString('hex')}`;
}

function constantTimeEqualHex(a: string, b: string): boolean {
  const left = Buffer.from(a, 'hex');
  const right = Buffer.from(b, 'hex');
  return left.length === right.length && timingSafeEqual(left, right);
}

export interface AuthenticatedKey {
  appId: string;
  kind: KeyKind;
  keyId: string;
  /** What the key may do (`effectiveScopes` of the ones stored with it). */
  scopes: readonly Scope[];
  /** The incarnation of the app the key was checked against. */
  incarnation: string;
}

/**
 * `unknown`: no such key; `invalid`: the app has a key with this id, but not this one; `locked`:
 * locked key or frozen app; `deleting`: the app is pending deletion and its keys are frozen.
 */
export type KeyCheck = { ok: true; key: AuthenticatedKey } | { ok: false; reason: 'unknown' | 'invalid' | 'locked' | 'deleting' };

interface CacheEntry {
  appId: string;
  check: KeyCheck;
}

/** What an `ApiKeyAuthenticator` is built from. */
export interface ApiKeyAuthenticatorDeps {
  keys: ApiKeyRepository;
  /** Whether the key's app is frozen, being deleted, and which incarnation it is. */
  apps: AppRepository;
  /** Where failed uses are tallied for the event log; none for an offline check. */
  failures?: FailedKeyUses;
  incarnations?: AppIncarnations;
  ttlMs?: number;
  maxEntries?: number;
}

/**
 * Authenticates API keys. A hit in the short-lived cache costs one SHA-256; a miss costs two
 * indexed reads. Lock, unlock, delete and freeze in this process clear the cache at once; other
 * replicas (and the offline CLI) take effect within `ttlMs`, at once when a notification or a
 * newer read (`incarnations`) says the app was re-created. A wrong or locked key of an existing
 * app is tallied for that app's log (at most one event per key id and address a minute).
 */
export class ApiKeyAuthenticator {
  private readonly cache: TtlCache<string, CacheEntry>;

  private readonly keys: ApiKeyRepository;
  private readonly apps: AppRepository;
  private readonly failures?: FailedKeyUses;
  private readonly incarnations: AppIncarnations;

  constructor(deps: ApiKeyAuthenticatorDeps) {
    this.keys = deps.keys;
    this.apps = deps.apps;
    this.failures = deps.failures;
    this.incarnations = deps.incarnations ?? new AppIncarnations();
    const ttlMs = deps.ttlMs ?? 5000;
    const maxEntries = deps.maxEntries ?? 10_000;
    this.cache = new TtlCache({ ttlMs, maxEntries });
  }

  /** `addressOf` names the client (only asked when the key fails). */
  async check(value: string, addressOf: () => string = () => 'unknown'): Promise<KeyCheck> {
    const parsed = parseKey(value);
    if (!parsed) return { ok: false, reason: 'unknown' };
    const digest = digestKey(value);
    const check = this.cachedCheck(digest) ?? (await this.lookUpAndCache(parsed, digest));
    if (!check.ok && check.reason !== 'unknown') this.failures?.note(parsed.appId, parsed.kind, parsed.keyId, check.reason, addressOf());
    return check;
  }

  /**
   * Whether `value` is a valid secret key of an app: the same cached check, but a failure is not
   * tallied (the route's own check of the same request does that), and a key not in the cache is
   * looked up only when `mayLookUp()` allows (else: not known to be valid). Asked before a request
   * is traced, to decide whether its trace context is continued (TRUST_INCOMING_TRACE): ahead of
   * the rate limits, so its lookups are budgeted.
   */
  async isSecretKey(value: string, mayLookUp: () => boolean = () => true): Promise<boolean> {
    const parsed = parseKey(value);
    if (parsed?.kind !== 'secret') return false;
    const digest = digestKey(value);
    const cached = this.cachedCheck(digest);
    if (cached) return cached.ok;
    return mayLookUp() && (await this.lookUpAndCache(parsed, digest)).ok;
  }

  private cachedCheck(digest: string): KeyCheck | undefined {
    const cached = this.cache.get(digest);
    return cached && (!cached.check.ok || this.incarnations.isCurrent(cached.check.key.appId, cached.check.key.incarnation)) ? cached.check : undefined;
  }

  private async lookUpAndCache(parsed: ParsedKey, digest: string): Promise<KeyCheck> {
    const check = await this.lookup(parsed, digest);
    this.cache.set(digest, { appId: parsed.appId, check });
    return check;
  }

  invalidate(): void {
    this.cache.clear();
  }

  /** Drops the cached checks of one app's keys. */
  forgetApp(appId: string): void {
    this.cache.deleteWhere((entry) => entry.appId === appId);
  }

  private async lookup(parsed: ParsedKey, digest: string): Promise<KeyCheck> {
    const row = await this.keys.find(parsed.appId, parsed.keyId);
    if (!row) return { ok: false, reason: 'unknown' };
    if (row.kind !== parsed.kind || !constantTimeEqualHex(row.keyHash, digest)) return { ok: false, reason: 'invalid' };
    if (row.isLocked) return { ok: false, reason: 'locked' };
    const app = await this.apps.keyStateOf(parsed.appId);
    if (!app) return { ok: false, reason: 'unknown' };
    this.incarnations.note(parsed.appId, app.incarnation);
    if (app.keysFrozenForDeletion) return { ok: false, reason: 'deleting' };
    if (app.frozen) return { ok: false, reason: 'locked' };
    const scopes = effectiveScopes(parsed.kind, row.scopes);
    return { ok: true, key: { appId: parsed.appId, kind: parsed.kind, keyId: parsed.keyId, scopes, incarnation: app.incarnation } };
  }
}
