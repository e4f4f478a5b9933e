import { parseKey, type KeyKind } from '../shared/apiKeys';
import { parseTimeSpan } from '../shared/timeSpan';
import { ATTESTATIONS, AUTHENTICATOR_TYPES, USER_VERIFICATIONS, type Attestation, type AuthenticatorType, type UserVerification } from '../shared/vocabulary';
import { DEFAULT_API_URL } from './client';
import { PasswordlessSettingsError } from './errors';

/**
 * The middleware's settings, as ASP.NET's Passwordless integration names them. Each comes from
 * the options object or, when not given there, from the environment: `Passwordless__ApiSecret`,
 * `Passwordless__Register__Expiration`, ... (`__` separates sections; names and enum values are
 * case-insensitive, as ASP.NET configuration reads them).
 */
export interface PasswordlessSettingsInput {
  apiKey?: string;
  apiSecret?: string;
  apiUrl?: string;
  signInScheme?: string;
  userIdClaimType?: string;
  /** The web origins the host's pages are served from, comma-separated; a token minted elsewhere is refused. */
  origins?: string | string[];
  /** The host's public base URL (`https://app.example.com`, a path prefix kept): every mailed link starts with it. Its origin is the default of `origins`. */
  publicUrl?: string;
  register?: {
    aliasHashing?: boolean | string;
    attestation?: string;
    authenticationType?: string;
    /** `hh:mm:ss` or `d.hh:mm:ss`. */
    expiration?: string;
    discoverable?: boolean | string;
    userVerification?: string;
    /** Ask new passkeys for the PRF extension (`prf.enabled` is then recorded and listed); default false. */
    prf?: boolean | string;
  };
}

export interface RegisterSettings {
  aliasHashing: boolean;
  attestation: Attestation;
  authenticatorType: AuthenticatorType;
  expirationSeconds: number;
  discoverable: boolean;
  userVerification: UserVerification;
  prf: boolean;
}

export interface PasswordlessSettings {
  readonly apiKey: string;
  /** Not enumerable: it stays out of JSON.stringify and console.log of the settings. */
  readonly apiSecret: string;
  readonly apiUrl: string;
  /** The app both keys belong to. */
  readonly appId: string;
  readonly signInScheme: string;
  readonly userIdClaimType: string | undefined;
  /**
   * Where sign-in tokens may come from (`Origins`, else the origin of `PublicUrl`); undefined when
   * neither is configured, which only development allows (see hostOrigins.ts).
   */
  readonly origins: readonly string[] | undefined;
  /** The base of every link the middleware mails (`PublicUrl`, else the first of `Origins`), without a trailing slash. */
  readonly publicUrl: string | undefined;
  readonly register: Readonly<RegisterSettings>;
}

export const DEFAULT_SIGN_IN_SCHEME = 'Identity.Application';
/** The service refuses registration tokens that live longer. */
const MAX_EXPIRATION_SECONDS = 30 * 86_400;

/** Canonical setting names, in the form ASP.NET configuration uses. */
const SETTINGS = [
  'ApiKey',
  'ApiSecret',
  'ApiUrl',
  'SignInScheme',
  'UserIdClaimType',
  'Origins',
  'PublicUrl',
  'Register__AliasHashing',
  'Register__Attestation',
  'Register__AuthenticationType',
  'Register__Expiration',
  'Register__Discoverable',
  'Register__UserVerification',
  'Register__Prf',
] as const;
type SettingName = (typeof SETTINGS)[number];

interface Given {
  value: unknown;
  /** How the user wrote it, for messages: `Passwordless__Register__Expiration` or `register.expiration`. */
  source: string;
}

const lower = (name: string) => name.toLowerCase();
const optionName = (setting: SettingName) =>
  setting
    .split('__')
    .map((part) => part[0].toLowerCase() + part.slice(1))
    .join('.');

/** Options first, then the environment; keys matched without regard to case. */
function collect(options: PasswordlessSettingsInput, env: NodeJS.ProcessEnv): Map<string, Given> {
  const found = new Map<string, Given>();
  for (const [key, value] of Object.entries(env)) {
    const match = /^passwordless__(.+)$/i.exec(key);
    if (match && value !== undefined && value !== '') found.set(lower(match[1]), { value, source: `Passwordless__${canonical(match[1])}` });
  }
  const flat: [string, unknown][] = [];
  for (const [key, value] of Object.entries(options as Record<string, unknown>)) {
    if (lower(key) === 'register' && value !== null && typeof value === 'object') {
      for (const [inner, innerValue] of Object.entries(value as Record<string, unknown>)) flat.push([`register__${inner}`, innerValue]);
    } else {
      flat.push([key, value]);
    }
  }
  for (const [key, value] of flat) {
    const setting = SETTINGS.find((s) => lower(s) === lower(key));
    if (setting && value !== undefined && value !== null && value !== '') found.set(lower(setting), { value, source: optionName(setting) });
  }
  return found;
}

function canonical(name: string): string {
  return SETTINGS.find((s) => lower(s) === lower(name)) ?? name;
}

function text(given: Given): string {
  if (typeof given.value !== 'string') throw new PasswordlessSettingsError(given.source, 'must be a string.');
  return given.value.trim();
}

function key(found: Map<string, Given>, setting: SettingName, kind: KeyKind) {
  const given = found.get(lower(setting));
  if (!given) throw new PasswordlessSettingsError(`Passwordless__${setting}`, `is required (or the ${optionName(setting)} option).`);
  // The value is never echoed: a secret pasted into the wrong setting must not end up in a log.
  const parsed = typeof given.value === 'string' ? parseKey(given.value.trim()) : undefined;
  if (!parsed || parsed.kind !== kind) throw new PasswordlessSettingsError(given.source, `must look like '<appId>:${kind}:<32 hex characters>'.`);
  return { value: given.value as string, appId: parsed.appId, source: given.source };
}

function oneOf<T extends string>(found: Map<string, Given>, setting: SettingName, allowed: readonly T[], fallback: T, aliases: Record<string, T> = {}): T {
  const given = found.get(lower(setting));
  if (!given) return fallback;
  const value = lower(text(given));
  const match = allowed.find((a) => a === value) ?? aliases[value];
  if (!match) throw new PasswordlessSettingsError(given.source, `must be one of ${allowed.join(', ')} (any case), not '${value.slice(0, 40)}'.`);
  return match;
}

function flag(found: Map<string, Given>, setting: SettingName, fallback: boolean): boolean {
  const given = found.get(lower(setting));
  if (!given) return fallback;
  if (typeof given.value === 'boolean') return given.value;
  const value = lower(text(given));
  if (value !== 'true' && value !== 'false') throw new PasswordlessSettingsError(given.source, `must be true or false, not '${value.slice(0, 40)}'.`);
  return value === 'true';
}

function apiUrl(found: Map<string, Given>): string {
  const given = found.get(lower('ApiUrl'));
  if (!given) return DEFAULT_API_URL;
  const value = text(given);
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    throw new PasswordlessSettingsError(given.source, 'must be an absolute http:// or https:// URL.');
  }
  if ((url.protocol !== 'http:' && url.protocol !== 'https:') || url.search || url.hash || url.username || url.password) {
    throw new PasswordlessSettingsError(given.source, 'must be an http:// or https:// URL without query, fragment or credentials.');
  }
  return url.toString().replace(/\/+$/, '');
}

function expiration(found: Map<string, Given>): number {
  const given = found.get(lower('Register__Expiration'));
  if (!given) return 120;
  const seconds = parseTimeSpan(text(given));
  if (seconds === undefined || seconds <= 0 || seconds > MAX_EXPIRATION_SECONDS) {
    throw new PasswordlessSettingsError(given.source, 'must be a positive duration of at most 30 days, written hh:mm:ss or d.hh:mm:ss.');
  }
  return seconds;
}

/** `https://host[:port]` values, comma-separated (or an array in the options), each a web origin and nothing more. */
function origins(found: Map<string, Given>): string[] | undefined {
  const given = found.get(lower('Origins'));
  if (!given) return undefined;
  const values = Array.isArray(given.value) ? given.value : typeof given.value === 'string' ? given.value.split(',') : undefined;
  if (!values) throw new PasswordlessSettingsError(given.source, 'must be a comma-separated list of origins.');
  const result: string[] = [];
  for (const raw of values) {
    const value = typeof raw === 'string' ? raw.trim() : '';
    let url: URL | undefined;
    try {
      url = new URL(value);
    } catch {
      url = undefined;
    }
    if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:') || url.origin !== value.replace(/\/$/, '')) {
      throw new PasswordlessSettingsError(given.source, `must list origins such as https://example.com (scheme, host and port only), not '${value.slice(0, 80)}'.`);
    }
    if (!result.includes(url.origin)) result.push(url.origin);
  }
  if (result.length === 0) throw new PasswordlessSettingsError(given.source, 'must name at least one origin.');
  return result;
}

/** An absolute http(s) URL without query, fragment or credentials, without its trailing slash. */
function publicUrl(found: Map<string, Given>): string | undefined {
  const given = found.get(lower('PublicUrl'));
  if (!given) return undefined;
  const value = text(given);
  let url: URL | undefined;
  try {
    url = new URL(value);
  } catch {
    url = undefined;
  }
  if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:') || url.search || url.hash || url.username || url.password) {
    throw new PasswordlessSettingsError(given.source, `must be the site's public address, such as https://app.example.com (an http or https URL without query, fragment or credentials), not '${value.slice(0, 80)}'.`);
  }
  return url.toString().replace(/\/+$/, '');
}

/** The configured origins and link base: `Origins` and `PublicUrl`, each the other's default; the link base's origin must be one of the origins. */
function siteAddress(found: Map<string, Given>): { origins: string[] | undefined; publicUrl: string | undefined } {
  const listed = origins(found);
  const base = publicUrl(found);
  if (base !== undefined && listed !== undefined && !listed.includes(new URL(base).origin)) {
    throw new PasswordlessSettingsError(found.get(lower('PublicUrl'))!.source, `is on ${new URL(base).origin}, which is not one of the Origins: the links it starts would open pages whose sign-ins are refused.`);
  }
  return { origins: listed ?? (base === undefined ? undefined : [new URL(base).origin]), publicUrl: base ?? listed?.[0] };
}

function optionalName(found: Map<string, Given>, setting: SettingName): string | undefined {
  const given = found.get(lower(setting));
  return given === undefined ? undefined : text(given) || undefined;
}

/**
 * Reads and checks every setting. Throws a {@link PasswordlessSettingsError} naming the first bad
 * setting: a missing or malformed key, keys of two different apps, or an invalid value.
 */
export function resolveSettings(options: PasswordlessSettingsInput = {}, env: NodeJS.ProcessEnv = process.env): PasswordlessSettings {
  const found = collect(options, env);
  const secret = key(found, 'ApiSecret', 'secret');
  const publicKey = key(found, 'ApiKey', 'public');
  if (publicKey.appId !== secret.appId) {
    throw new PasswordlessSettingsError(publicKey.source, `belongs to the app '${publicKey.appId}' but ${secret.source} to '${secret.appId}': both must be keys of one app.`);
  }
  const register: RegisterSettings = {
    aliasHashing: flag(found, 'Register__AliasHashing', true),
    attestation: oneOf(found, 'Register__Attestation', ATTESTATIONS, 'none'),
    authenticatorType: oneOf(found, 'Register__AuthenticationType', AUTHENTICATOR_TYPES, 'any', { crossplatform: 'cross-platform' }),
    expirationSeconds: expiration(found),
    discoverable: flag(found, 'Register__Discoverable', true),
    userVerification: oneOf(found, 'Register__UserVerification', [...USER_VERIFICATIONS].sort(), 'preferred'),
    prf: flag(found, 'Register__Prf', false),
  };
  const site = siteAddress(found);
  const settings = {
    apiKey: publicKey.value.trim(),
    apiUrl: apiUrl(found),
    appId: secret.appId,
    signInScheme: optionalName(found, 'SignInScheme') ?? DEFAULT_SIGN_IN_SCHEME,
    userIdClaimType: optionalName(found, 'UserIdClaimType'),
    origins: site.origins && Object.freeze(site.origins),
    publicUrl: site.publicUrl,
    register: Object.freeze(register),
  };
  Object.defineProperty(settings, 'apiSecret', { value: secret.value.trim(), enumerable: false });
  return Object.freeze(settings) as PasswordlessSettings;
}
