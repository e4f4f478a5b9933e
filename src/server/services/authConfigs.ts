import { USER_VERIFICATIONS, type UserVerification } from '../../shared/vocabulary';
import { z } from 'zod';
import { parseTimeSpan } from '../../shared/timeSpan';
import { ApiError } from '../core/apiError';
import { MAX_NAME_LENGTH, MAX_PURPOSE_LENGTH, boundedString, ciEnum, ciObject, looseString } from '../core/validation';
import type { AuthConfigRepository, StoredAuthConfig } from '../store/repositories';
import { TtlCache } from '../core/ttlCache';
import { SYSTEM } from './events/eventTypes';
import type { EventLog } from './events/eventLog';
import { MAX_TOKEN_LIFETIME_MS } from './tokens/tokenService';
import { signinExtensionsSchema, type SigninExtensions } from '../webauthn/passkeyExtensions';


export interface ResolvedAuthConfig {
  purpose: string;
  userVerification: UserVerification;
  timeToLiveSeconds: number;
  /** The WebAuthn extensions its sign-ins ask for (ours). */
  extensions: SigninExtensions;
}

/** Built-in purposes, with the spec's values (sign-in 120 s preferred, step-up 180 s required). */
const PRESET_AUTH_CONFIGS: Record<string, ResolvedAuthConfig> = {
  'sign-in': { purpose: 'sign-in', userVerification: 'preferred', timeToLiveSeconds: 120, extensions: {} },
  'step-up': { purpose: 'step-up', userVerification: 'required', timeToLiveSeconds: 180, extensions: {} },
};
const isPreset = (purpose: string) => Object.hasOwn(PRESET_AUTH_CONFIGS, purpose);

const MAX_TTL_SECONDS = MAX_TOKEN_LIFETIME_MS / 1000;

const purposeField = () =>
  looseString().pipe(
    z
      .string()
      .min(1, 'is required')
      .max(MAX_PURPOSE_LENGTH, `must be at most ${MAX_PURPOSE_LENGTH} characters`)
      .regex(/^[A-Za-z0-9_-]+$/, 'may only contain A-Z, a-z, 0-9, - and _'),
  );

const performedByField = () => boundedString(MAX_NAME_LENGTH).pipe(z.string().min(1, 'is required'));

/** `hh:mm:ss` or `d.hh:mm:ss`, positive and at most 30 days (the longest a token may live); out come seconds. */
const timeToLiveField = () =>
  z.string({ message: 'must be a duration hh:mm:ss or d.hh:mm:ss' }).transform((text, ctx) => {
    const seconds = parseTimeSpan(text);
    if (seconds === undefined) ctx.addIssue({ code: 'custom', message: 'must be a duration hh:mm:ss or d.hh:mm:ss' });
    else if (seconds < 1 || seconds > MAX_TTL_SECONDS) ctx.addIssue({ code: 'custom', message: 'must be between 00:00:01 and 30.00:00:00' });
    return seconds ?? 0;
  });

export const addAuthConfigSchema = ciObject({
  purpose: purposeField(),
  timeToLive: timeToLiveField(),
  userVerificationRequirement: ciEnum(USER_VERIFICATIONS).optional(),
  /** Ours: the WebAuthn extensions its sign-ins ask the browser for (prf, largeBlob). */
  extensions: signinExtensionsSchema.optional(),
  performedBy: performedByField(),
});

/** Edits change the fields they are given. */
export const editAuthConfigSchema = ciObject({
  purpose: purposeField(),
  timeToLive: timeToLiveField().optional(),
  userVerificationRequirement: ciEnum(USER_VERIFICATIONS).optional(),
  /** Replaces the configuration's extensions (`{}`: none). */
  extensions: signinExtensionsSchema.optional(),
  performedBy: performedByField(),
});

export const deleteAuthConfigSchema = ciObject({ purpose: purposeField(), performedBy: performedByField() });

export const listAuthConfigsQuerySchema = ciObject({ purpose: z.string().optional() });

const iso = (date: Date | null) => (date ? date.toISOString() : null);

/** A stored `extensions` column; anything unreadable asks for nothing. */
function extensionsOf(json: string | undefined): SigninExtensions {
  try {
    const parsed = signinExtensionsSchema.safeParse(JSON.parse(json ?? '{}'));
    return parsed.success ? parsed.data : {};
  } catch {
    return {};
  }
}

function listItem(config: StoredAuthConfig) {
  return {
    purpose: config.purpose,
    timeToLive: config.timeToLiveSeconds,
    userVerificationRequirement: config.userVerificationRequirement,
    extensions: extensionsOf(config.extensions),
    createdBy: config.createdBy,
    createdOn: iso(config.createdOn),
    editedBy: config.editedBy,
    editedOn: iso(config.editedOn),
    lastUsedOn: iso(config.lastUsedOn),
  };
}

/** A built-in that was never saved: listed with the spec's values and no dates. */
function presetItem(purpose: string) {
  const preset = PRESET_AUTH_CONFIGS[purpose];
  return {
    purpose,
    timeToLive: preset.timeToLiveSeconds,
    userVerificationRequirement: preset.userVerification,
    extensions: preset.extensions,
    createdBy: SYSTEM,
    createdOn: null,
    editedBy: null,
    editedOn: null,
    lastUsedOn: null,
  };
}

const notFound = (purpose: string) => new ApiError('auth_config_not_found', { title: `The configuration ${purpose} does not exist.` });

/** What an `AuthConfigService` is built from. */
export interface AuthConfigServiceDeps {
  configs: AuthConfigRepository;
  events: EventLog;
  ttlMs?: number;
  now?: () => number;
}

/**
 * Authentication configurations (purposes) per app. Sign-ins resolve them from an in-process
 * cache (one read per app every `ttlMs`; a change in this process clears it at once), and their
 * last use is written in batches by `flushUsage`, so neither adds a round trip to a sign-in.
 */
export class AuthConfigService {
  private readonly cache: TtlCache<string, Map<string, ResolvedAuthConfig>>;
  private readonly used = new Map<string, { tenant: string; purpose: string; at: Date }>();

  private readonly configs: AuthConfigRepository;
  private readonly events: EventLog;
  private readonly now: () => number;

  constructor(deps: AuthConfigServiceDeps) {
    this.configs = deps.configs;
    this.events = deps.events;
    const ttlMs = deps.ttlMs ?? 5000;
    this.now = deps.now ?? Date.now;
    this.cache = new TtlCache({ ttlMs, maxEntries: 10_000, now: this.now });
  }

  /** The configuration a sign-in uses; no purpose means `sign-in`, an unknown one is a 400. */
  async resolve(appId: string, purpose: string | null | undefined): Promise<ResolvedAuthConfig> {
    const wanted = purpose && purpose.trim() ? purpose.trim() : 'sign-in';
    const config = (await this.configsOf(appId)).get(wanted) ?? (isPreset(wanted) ? PRESET_AUTH_CONFIGS[wanted] : undefined);
    if (!config) {
      throw new ApiError('unknown_purpose', { detail: `There is no authentication configuration '${wanted.slice(0, MAX_PURPOSE_LENGTH)}'; add it with POST /auth-configs/add.` });
    }
    return config;
  }

  private async configsOf(appId: string): Promise<Map<string, ResolvedAuthConfig>> {
    const hit = this.cache.get(appId);
    if (hit) return hit;
    const rows = await this.configs.rules(appId);
    const configs = new Map(
      rows.map((r) => [
        r.purpose,
        { purpose: r.purpose, userVerification: r.userVerificationRequirement as UserVerification, timeToLiveSeconds: r.timeToLiveSeconds, extensions: extensionsOf(r.extensions) },
      ]),
    );
    this.cache.set(appId, configs);
    return configs;
  }

  /** Notes a successful sign-in under `purpose`; written by the next `flushUsage`. Synchronous, no I/O. */
  markUsed(appId: string, purpose: string): void {
    const key = `${appId}\u0000${purpose}`;
    if (this.used.size >= 10_000 && !this.used.has(key)) return;
    this.used.set(key, { tenant: appId, purpose, at: new Date(this.now()) });
  }

  /** Writes the last-use times noted since the previous flush; a built-in used for the first time is saved. */
  async flushUsage(): Promise<void> {
    const entries = [...this.used.values()];
    this.used.clear();
    for (const { tenant, purpose, at } of entries) {
      if ((await this.configs.markUsed(tenant, purpose, at)) || !isPreset(purpose)) continue;
      const preset = PRESET_AUTH_CONFIGS[purpose];
      const saved = await this.configs.create(tenant, { purpose, userVerificationRequirement: preset.userVerification, timeToLiveSeconds: preset.timeToLiveSeconds, createdBy: SYSTEM, lastUsedOn: at });
      if (!saved) await this.configs.markUsed(tenant, purpose, at); // saved meanwhile by an edit
    }
  }

  /** Stored configurations and the built-ins, built-ins first; with `purpose`, that one or none. */
  async list(appId: string, purpose?: string) {
    await this.flushUsage();
    const rows = await this.configs.list(appId, purpose);
    const stored = new Map(rows.map((r) => [r.purpose, r]));
    const builtIns = Object.keys(PRESET_AUTH_CONFIGS).filter((p) => !purpose || p === purpose);
    return [
      ...builtIns.map((p) => (stored.has(p) ? listItem(stored.get(p)!) : presetItem(p))),
      ...rows.filter((r) => !isPreset(r.purpose)).map(listItem),
    ];
  }

  /** `by`, when given, is who added it (created by, and the event's performer) in place of the input's `performedBy`. */
  async add(appId: string, input: z.output<typeof addAuthConfigSchema>, by?: string): Promise<void> {
    const performedBy = by ?? input.performedBy;
    const exists = () => new ApiError('auth_config_already_exists', { title: `The configuration ${input.purpose} already exists.` });
    if (isPreset(input.purpose)) throw exists();
    const created = await this.configs.create(appId, {
      purpose: input.purpose,
      timeToLiveSeconds: input.timeToLive,
      userVerificationRequirement: input.userVerificationRequirement ?? 'preferred',
      extensions: JSON.stringify(input.extensions ?? {}),
      createdBy: performedBy,
      createdOn: new Date(this.now()),
    });
    if (!created) throw exists();
    this.changed(appId, 'ApiAuthenticationConfigurationCreated', input.purpose, performedBy, 'created');
  }

  /** `by`, when given, is who edited it (edited by, and the event's performer) in place of the input's `performedBy`. */
  async edit(appId: string, input: z.output<typeof editAuthConfigSchema>, by?: string): Promise<void> {
    const performedBy = by ?? input.performedBy;
    const now = new Date(this.now());
    const changes = {
      ...(input.timeToLive !== undefined ? { timeToLiveSeconds: input.timeToLive } : {}),
      ...(input.userVerificationRequirement !== undefined ? { userVerificationRequirement: input.userVerificationRequirement } : {}),
      ...(input.extensions !== undefined ? { extensions: JSON.stringify(input.extensions) } : {}),
      editedBy: performedBy,
      editedOn: now,
    };
    if (!(await this.configs.update(appId, input.purpose, changes))) {
      if (!isPreset(input.purpose)) throw notFound(input.purpose);
      const preset = PRESET_AUTH_CONFIGS[input.purpose];
      const config = { purpose: input.purpose, timeToLiveSeconds: preset.timeToLiveSeconds, userVerificationRequirement: preset.userVerification, createdBy: SYSTEM, createdOn: now, ...changes };
      // A built-in is saved on its first edit; a concurrent first edit or first use may have saved it already.
      await this.configs.upsert(appId, config, changes);
    }
    this.changed(appId, 'ApiAuthenticationConfigurationUpdated', input.purpose, performedBy, 'edited');
  }

  /** `by`, when given, is the event's performer in place of the input's `performedBy`. */
  async remove(appId: string, input: z.output<typeof deleteAuthConfigSchema>, by?: string): Promise<void> {
    if (isPreset(input.purpose)) throw new ApiError('auth_config_not_deletable', { title: `The ${input.purpose} configuration cannot be deleted.` });
    if (!(await this.configs.delete(appId, input.purpose))) throw notFound(input.purpose);
    this.changed(appId, 'ApiAuthenticationConfigurationDeleted', input.purpose, by ?? input.performedBy, 'deleted');
  }

  private changed(
    appId: string,
    type: 'ApiAuthenticationConfigurationCreated' | 'ApiAuthenticationConfigurationUpdated' | 'ApiAuthenticationConfigurationDeleted',
    purpose: string,
    performedBy: string,
    verb: string,
  ): void {
    this.cache.delete(appId);
    this.events.record(appId, { type, message: `The authentication configuration '${purpose}' was ${verb}.`, subject: purpose, performedBy });
  }
}
