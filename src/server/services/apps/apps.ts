import { randomBytes } from 'node:crypto';
import type { Logger } from 'pino';
import { z } from 'zod';
import { ApiError } from '../../core/apiError';
import { isBareEmailAddress } from '../../core/isBareEmailAddress';
import { MAX_NAME_LENGTH, boundedString, ciEnum, ciObject, looseBoolean } from '../../core/validation';
import type { ApiKeyRepository, AppRepository, AppSettings, NewApiKey, StoredApiKey } from '../../store/repositories';
import { APP_ID_PATTERN, PUBLIC_SCOPES, SECRET_SCOPES, digestKey, generateKey, parseKey, type KeyKind, type Scope } from './apiKeys';
import { SYSTEM, UNKNOWN_USER } from '../events/eventTypes';
import type { AppEvent, EventLog } from '../events/eventLog';
import { normaliseAllowedOrigin } from '../../webauthn/origins';

export const PLANS = ['trial', 'pro', 'enterprise'] as const;
export type Plan = (typeof PLANS)[number];

/** The stores keep these counts in 32-bit integer columns. */
const MAX_INT32 = 2_147_483_647;
const nonNegativeInt32 = () => z.number().int().min(0).max(MAX_INT32, `must be at most ${MAX_INT32}`);
/** Days; one rule at creation and afterwards, so that what GET features answers can be posted back. */
const retentionDays = () => z.number().int().min(0).max(90);

const allowedOrigins = z
  .array(z.string())
  .max(50)
  .transform((values, ctx) => {
    const out: string[] = [];
    for (const value of values) {
      const origin = normaliseAllowedOrigin(value);
      if (origin === undefined) ctx.addIssue({ code: 'custom', message: `has an entry that is not an origin (https://host[:port] or android:apk-key-hash:...)` });
      else if (!out.includes(origin)) out.push(origin);
    }
    return out;
  });

/** The features an operator may change; every field optional (POST changes what it is given). */
export const featuresPatchSchema = ciObject({
  eventLoggingIsEnabled: looseBoolean().optional(),
  eventLoggingRetentionPeriod: retentionDays().optional(),
  magicLinkEmailMonthlyQuota: nonNegativeInt32().optional(),
  maxUsers: nonNegativeInt32().nullable().optional(),
  allowAttestation: looseBoolean().optional(),
  isGenerateSignInTokenEndpointEnabled: looseBoolean().optional(),
  isMagicLinksEnabled: looseBoolean().optional(),
  plan: ciEnum(PLANS).optional(),
  allowedOrigins: allowedOrigins.optional(),
  sdkCompatibleLists: looseBoolean().nullable().optional(),
});
export type FeaturesPatch = z.output<typeof featuresPatchSchema>;

/**
 * One bare address (`admin@localhost` is a fine address on a self-hosted box): no display name, no
 * list, nothing a mail library could read as more than one recipient.
 */
export const emailAddress = () => z.string().refine(isBareEmailAddress, 'must be one bare email address (name@domain, without a display name or a list)');

export const createAppSchema = ciObject({
  adminEmail: emailAddress(),
  plan: ciEnum(PLANS).optional(),
  magicLinkEmailMonthlyQuota: nonNegativeInt32().optional(),
  eventLoggingIsEnabled: looseBoolean().optional(),
  eventLoggingRetentionPeriod: retentionDays().optional(),
  maxUsers: nonNegativeInt32().nullable().optional(),
  allowAttestation: looseBoolean().optional(),
  allowedOrigins: allowedOrigins.optional(),
});
export type CreateAppInput = z.output<typeof createAppSchema>;

/** The private API's `POST /apps/features` (ApiSecret): the reference's three switches, patch semantics. */
export const appFeaturesSchema = ciObject({
  performedBy: boundedString(MAX_NAME_LENGTH).nullish(),
  eventLoggingRetentionPeriod: retentionDays().nullish(),
  enableManuallyGeneratedAuthenticationTokens: looseBoolean().nullish(),
  enableMagicLinks: looseBoolean().nullish(),
});

export interface AppFeatures {
  eventLoggingIsEnabled: boolean;
  eventLoggingRetentionPeriod: number;
  developerLoggingEndsAt: null;
  magicLinkEmailMonthlyQuota: number;
  maxUsers: number | null;
  allowAttestation: boolean;
  isGenerateSignInTokenEndpointEnabled: boolean;
  isMagicLinksEnabled: boolean;
  plan: Plan;
  allowedOrigins: string[];
  sdkCompatibleLists: boolean;
}

export interface CreatedApp {
  message: string;
  apiKey1: string;
  apiKey2: string;
  apiSecret1: string;
  apiSecret2: string;
}

function assertAppId(appId: string): void {
  if (!APP_ID_PATTERN.test(appId)) {
    throw new ApiError('validation_failed', {
      detail: "'appId' must be between 3 and 62 characters, contain only lowercase letters and numbers, and start with a lowercase letter.",
      extras: { errors: { appId: ["'appId' must be between 3 and 62 characters, contain only lowercase letters and numbers, and start with a lowercase letter."] } },
    });
  }
}

/** Tries at picking an unused key id when concurrent requests keep taking the one picked. */
const KEY_ID_ATTEMPTS = 3;

export const appNotFound = (appId: string) => new ApiError('app_not_found', { detail: `There is no app '${appId}'.` });

/** A key id is the key's last four hex characters; anything else (or under an impossible app id) names no key. */
function assertKeyAddress(appId: string, keyId: string): void {
  if (!APP_ID_PATTERN.test(appId) || !/^[0-9a-f]{4}$/.test(keyId)) throw new ApiError('api_key_not_found');
}

function keyRow(kind: KeyKind, value: string, scopes: readonly Scope[]): NewApiKey {
  return { id: parseKey(value)!.keyId, kind, keyHash: digestKey(value), publicValue: kind === 'public' ? value : null, scopes };
}

/** Generates `count` keys whose ids (last four characters) are unique within the app. */
function generateKeys(appId: string, kind: KeyKind, count: number, takenIds: Set<string>): string[] {
  const keys: string[] = [];
  while (keys.length < count) {
    const value = generateKey(appId, kind);
    const id = value.slice(-4);
    if (takenIds.has(id)) continue;
    takenIds.add(id);
    keys.push(value);
  }
  return keys;
}

/** What an `AppsService` is built from. */
export interface AppsServiceDeps {
  apps: AppRepository;
  keys: ApiKeyRepository;
  events: EventLog;
  defaults: { sdkCompatibleLists: boolean; magicLinkMonthlyQuota: number };
  /** Called after any change that must invalidate what is cached about the app (key checks, settings, token keys). */
  onAppChanged?: (appId: string) => void;
  /** Where a deletion is recorded, the app's own log going with it. */
  logger?: Logger;
}

export class AppsService {
  private readonly apps: AppRepository;
  private readonly keys: ApiKeyRepository;
  private readonly events: EventLog;
  private readonly defaults: { sdkCompatibleLists: boolean; magicLinkMonthlyQuota: number };
  private readonly onAppChanged: (appId: string) => void;
  private readonly logger: Logger | undefined;

  constructor(deps: AppsServiceDeps) {
    this.apps = deps.apps;
    this.keys = deps.keys;
    this.events = deps.events;
    this.defaults = deps.defaults;
    this.onAppChanged = deps.onAppChanged ?? (() => undefined);
    this.logger = deps.logger;
  }

  async isAvailable(appId: string): Promise<boolean> {
    assertAppId(appId);
    return !(await this.apps.exists(appId));
  }

  /** `by`: who created it, for the event log (default: the admin email). */
  async create(appId: string, input: CreateAppInput, by?: string): Promise<CreatedApp> {
    assertAppId(appId);
    const taken = new Set<string>();
    const [apiKey1, apiKey2] = generateKeys(appId, 'public', 2, taken);
    const [apiSecret1, apiSecret2] = generateKeys(appId, 'secret', 2, taken);
    await this.insert(appId, input, by, { reserved: false }, [
      keyRow('public', apiKey1, PUBLIC_SCOPES),
      keyRow('public', apiKey2, PUBLIC_SCOPES),
      keyRow('secret', apiSecret1, SECRET_SCOPES),
      keyRow('secret', apiSecret2, SECRET_SCOPES),
    ]);
    return { message: 'Store keys safely. They will only be shown to you once.', apiKey1, apiKey2, apiSecret1, apiSecret2 };
  }

  /**
   * The operator console's own app, marked as made by it (`reserved`), and without keys: the
   * console adopts keys derived from its own secret (console/consoleKeys.ts). Not offered by any
   * API or command: both refuse the reserved id. `app_already_exists` when the id is taken.
   */
  async createReserved(appId: string, input: CreateAppInput, by: string): Promise<void> {
    assertAppId(appId);
    await this.insert(appId, input, by, { reserved: true }, []);
  }

  /** Whether the app is marked as the console's own; undefined when there is no such app. */
  async reservedOf(appId: string): Promise<boolean | undefined> {
    return APP_ID_PATTERN.test(appId) ? (await this.apps.find(appId))?.reserved : undefined;
  }

  /** Marks an existing app as the console's own (an older version's console app, recognised by its keys). */
  async markReserved(appId: string): Promise<void> {
    if (!(await this.apps.markReserved(appId))) throw appNotFound(appId);
    this.onAppChanged(appId);
  }

  private async insert(appId: string, input: CreateAppInput, by: string | undefined, options: { reserved: boolean }, keys: NewApiKey[]): Promise<void> {
    const plan = input.plan ?? 'trial';
    const created = await this.apps.create(
      appId,
      {
        incarnation: randomBytes(8).toString('hex'),
        decoyKey: randomBytes(32).toString('hex'),
        adminEmail: input.adminEmail,
        plan,
        magicLinkEmailMonthlyQuota: input.magicLinkEmailMonthlyQuota ?? this.defaults.magicLinkMonthlyQuota,
        eventLoggingIsEnabled: input.eventLoggingIsEnabled ?? false,
        eventLoggingRetentionPeriod: input.eventLoggingRetentionPeriod ?? 90,
        maxUsers: input.maxUsers ?? null,
        allowAttestation: input.allowAttestation ?? plan === 'enterprise',
        allowedOrigins: input.allowedOrigins ?? [],
        reserved: options.reserved,
      },
      keys,
    );
    if (!created) throw new ApiError('app_already_exists', { detail: `accountName '${appId}' is not available` });
    // Caches here and (notified) on other replicas may hold what a previous app of this id left.
    this.onAppChanged(appId);
    this.events.record(appId, { type: 'ApiManagementAppCreated', message: `The app '${appId}' was created.`, subject: appId, performedBy: by ?? input.adminEmail });
  }

  async list() {
    const apps = await this.apps.list();
    return apps.map((app) => ({
      appId: app.id,
      adminEmail: app.adminEmail,
      plan: app.plan,
      createdAt: app.createdAt.toISOString(),
      frozen: app.frozen,
      // Pending deletion: when the data goes (null: not pending).
      deleteAt: app.deleteAt?.toISOString() ?? null,
    }));
  }

  /**
   * Stores a key whose value the caller made (the operator console derives its own, see
   * console/consoleKeys.ts), replacing a key of the same id that is not it; nothing when the app
   * has it already. Not offered by any API: a key given from outside would not be random.
   */
  async adoptKey(appId: string, value: string, scopes: readonly Scope[]): Promise<void> {
    const parsed = parseKey(value);
    if (!parsed || parsed.appId !== appId) throw new Error('adoptKey takes a well-formed key of the app');
    const row = keyRow(parsed.kind, value, scopes);
    const isIt = (key: StoredApiKey | undefined) => key?.keyHash === row.keyHash && key.kind === parsed.kind;
    const existing = await this.keys.find(appId, parsed.keyId);
    if (isIt(existing)) return;
    if (existing) await this.keys.delete(appId, parsed.keyId);
    // Another replica adopting the same key at once may have stored it between our read and our insert.
    if (!(await this.keys.create(appId, row)) && !isIt(await this.keys.find(appId, parsed.keyId))) throw new Error(`the key ${parsed.keyId} of '${appId}' could not be stored`);
    this.onAppChanged(appId);
  }

  /**
   * The ids of the app's keys that are none of `values` (compared by digest and kind): what the
   * console deletes of its own app, and what tells an older version's console app from one someone
   * else made. Not offered by any API.
   */
  async keyIdsOtherThan(appId: string, values: readonly string[]): Promise<string[]> {
    const known = new Set(values.map((value) => `${parseKey(value)?.kind}:${digestKey(value)}`));
    return (await this.keys.list(appId)).filter((key) => !known.has(`${key.kind}:${key.keyHash}`)).map((key) => key.id);
  }

  private async requireApp(appId: string) {
    // An id no app can have is not looked up (PostgreSQL refuses a NUL in a query parameter).
    const app = APP_ID_PATTERN.test(appId) ? await this.apps.find(appId) : undefined;
    if (!app) throw appNotFound(appId);
    return app;
  }

  /** Updates an app that requireApp found, which a concurrent delete may have removed since. */
  private async updateApp(appId: string, changes: Partial<AppSettings>): Promise<void> {
    if (!(await this.apps.update(appId, changes))) throw appNotFound(appId);
  }

  async getFeatures(appId: string): Promise<AppFeatures> {
    const app = await this.requireApp(appId);
    return {
      eventLoggingIsEnabled: app.eventLoggingIsEnabled,
      eventLoggingRetentionPeriod: app.eventLoggingRetentionPeriod,
      developerLoggingEndsAt: null,
      magicLinkEmailMonthlyQuota: app.magicLinkEmailMonthlyQuota,
      maxUsers: app.maxUsers,
      allowAttestation: app.allowAttestation,
      isGenerateSignInTokenEndpointEnabled: app.isGenerateSignInTokenEndpointEnabled,
      isMagicLinksEnabled: app.isMagicLinksEnabled,
      plan: app.plan as Plan,
      allowedOrigins: app.allowedOrigins,
      sdkCompatibleLists: app.sdkCompatibleLists ?? this.defaults.sdkCompatibleLists,
    };
  }

  /** `by`: who changed them, for the event log (default: the reference's `Unknown User`). */
  async setFeatures(appId: string, patch: FeaturesPatch, by?: string): Promise<void> {
    await this.requireApp(appId);
    await this.events.flush(); // what happened before the change is logged (or not) under the old settings
    await this.updateApp(appId, patch);
    this.onAppChanged(appId);
    const fields = Object.keys(patch);
    if (fields.length > 0) {
      this.events.record(appId, { type: 'ApiManagementFeaturesChanged', message: `Features changed: ${fields.join(', ')}.`, subject: appId, performedBy: by ?? UNKNOWN_USER });
    }
  }

  /** The app's own switches (private API), each change logged with who made it. */
  async setOwnFeatures(appId: string, input: z.output<typeof appFeaturesSchema>): Promise<void> {
    const performedBy = input.performedBy?.trim() || UNKNOWN_USER;
    const patch: Pick<FeaturesPatch, 'isMagicLinksEnabled' | 'isGenerateSignInTokenEndpointEnabled' | 'eventLoggingRetentionPeriod'> = {};
    const changes: AppEvent[] = [];
    if (input.enableMagicLinks != null) {
      patch.isMagicLinksEnabled = input.enableMagicLinks;
      const state = input.enableMagicLinks ? 'Enabled' : 'Disabled';
      changes.push({ type: `AdminMagicLinks${state}`, message: `Magic links were ${state.toLowerCase()}.`, subject: appId, performedBy });
    }
    if (input.enableManuallyGeneratedAuthenticationTokens != null) {
      patch.isGenerateSignInTokenEndpointEnabled = input.enableManuallyGeneratedAuthenticationTokens;
      const state = input.enableManuallyGeneratedAuthenticationTokens ? 'Enabled' : 'Disabled';
      changes.push({ type: `AdminGenerateSignInTokenEndpoint${state}`, message: `The generate-token endpoint was ${state.toLowerCase()}.`, subject: appId, performedBy });
    }
    if (input.eventLoggingRetentionPeriod != null) {
      patch.eventLoggingRetentionPeriod = input.eventLoggingRetentionPeriod;
      changes.push({ type: 'AdminEventLoggingRetentionChanged', message: `Events are now kept for ${input.eventLoggingRetentionPeriod} days.`, subject: appId, performedBy });
    }
    await this.events.flush(); // what happened before the change is logged (or not) under the old settings
    await this.updateApp(appId, patch);
    this.onAppChanged(appId);
    for (const change of changes) this.events.record(appId, change);
  }

  async listKeys(appId: string) {
    await this.requireApp(appId);
    // Oldest first, in one order on both databases.
    const keys = await this.keys.list(appId);
    return keys.map((key) => ({
      id: key.id,
      createdAt: key.createdAt.toISOString(),
      // Secrets are never stored, so they can only be shown masked.
      apiKey: key.publicValue ?? `${appId}:secret:${'*'.repeat(28)}${key.id}`,
      // The reference's enum value (1 public, 2 secret), plus a readable name.
      type: key.kind === 'public' ? 1 : 2,
      kind: key.kind,
      scopes: [...key.scopes].sort(),
      isLocked: key.isLocked,
      lastLockedAt: key.lastLockedAt?.toISOString() ?? null,
      lastUnlockedAt: key.lastUnlockedAt?.toISOString() ?? null,
    }));
  }

  /** `by`: who created it, for the event log (default: the reference's `Unknown User`). */
  async createKey(appId: string, kind: KeyKind, scopes: Scope[], by?: string): Promise<string> {
    await this.requireApp(appId);
    const allowed: readonly Scope[] = kind === 'public' ? PUBLIC_SCOPES : SECRET_SCOPES;
    if (scopes.length === 0) throw new ApiError('create_api_key_scopes_required');
    if (scopes.some((s) => !allowed.includes(s))) {
      const message = `${kind} keys take the scopes ${allowed.join(', ')}.`;
      throw new ApiError('validation_failed', { detail: message, extras: { errors: { scopes: [message] } } });
    }
    // A concurrent request may take the same four-character id between our read and our insert.
    for (let attempt = 1; ; attempt++) {
      const [value] = generateKeys(appId, kind, 1, await this.keys.ids(appId));
      if (await this.keys.create(appId, keyRow(kind, value, [...new Set(scopes)]))) {
        const keyId = value.slice(-4);
        this.events.record(appId, { type: 'AdminApiKeyCreated', message: `A ${kind} key was created.`, subject: keyId, performedBy: by ?? UNKNOWN_USER, apiKeyId: keyId });
        return value;
      }
      if (attempt === KEY_ID_ATTEMPTS) throw new Error(`no unused key id for the app '${appId}' after ${KEY_ID_ATTEMPTS} tries`);
    }
  }

  /** `by`: who locked or unlocked it, for the event log (default: the reference's `Unknown User`). */
  async setKeyLocked(appId: string, keyId: string, locked: boolean, by?: string): Promise<void> {
    assertKeyAddress(appId, keyId);
    if (!(await this.keys.setLocked(appId, keyId, locked, new Date()))) throw new ApiError('api_key_not_found');
    this.onAppChanged(appId);
    const verb = locked ? 'Locked' : 'Unlocked';
    this.events.record(appId, { type: `AdminApiKey${verb}`, message: `An API key was ${verb.toLowerCase()}.`, subject: keyId, performedBy: by ?? UNKNOWN_USER, apiKeyId: keyId });
  }

  /** `by`: who deleted it, for the event log (default: the reference's `Unknown User`). */
  async deleteKey(appId: string, keyId: string, by?: string): Promise<void> {
    assertKeyAddress(appId, keyId);
    if (!(await this.keys.delete(appId, keyId))) throw new ApiError('api_key_not_found');
    this.onAppChanged(appId);
    this.events.record(appId, { type: 'AdminApiKeyDeleted', message: 'An API key was deleted.', subject: keyId, performedBy: by ?? UNKNOWN_USER, apiKeyId: keyId });
  }

  /**
   * A frozen app's keys all authenticate as invalid until it is unfrozen; each key keeps its own
   * lock state. `by`: who froze or unfroze it, for the event log (default: the reference's `System`).
   */
  async setFrozen(appId: string, frozen: boolean, by?: string): Promise<void> {
    await this.requireApp(appId);
    await this.updateApp(appId, { frozen });
    this.onAppChanged(appId);
    const verb = frozen ? 'Frozen' : 'Unfrozen';
    this.events.record(appId, { type: `ApiManagementApp${verb}`, message: `The app's keys were ${frozen ? 'frozen' : 'unfrozen'}.`, subject: appId, performedBy: by ?? SYSTEM });
  }

  /**
   * Removes the app and, through the foreign keys' cascades, every row it owns, in one statement;
   * a request still writing for the app afterwards is refused by those keys. The app's event log
   * goes with it, so the deletion is not recorded there: `by` (who deleted it) is named in the
   * process log instead, as the deletion sweep names what it deletes.
   */
  async delete(appId: string, by?: string) {
    const app = await this.requireApp(appId);
    // What the app recorded goes with it, rather than waiting in the buffer for an app re-created under its id.
    await this.events.flush();
    if (!(await this.apps.delete(appId))) throw appNotFound(appId); // a concurrent delete won
    this.onAppChanged(appId);
    this.logger?.info({ appId, performedBy: by ?? UNKNOWN_USER }, 'app deleted');
    return { message: `The app '${appId}' was deleted.`, isDeleted: true, deleteAt: new Date().toISOString(), adminEmails: [app.adminEmail] };
  }
}
