import { createHmac, hkdfSync, randomBytes, randomInt, timingSafeEqual } from 'node:crypto';
import { z } from 'zod';
import { ApiError } from '../../core/apiError';
import { appDeletedMeanwhile } from '../../core/storeProblem';
import { TOKEN_PREFIXES } from '../../../shared/tokens';
import type { TokenKeyRepository } from '../../store/repositories';
import { AppIncarnations } from '../apps/incarnations';
import { NO_TOKEN_KEY_ENCRYPTION, storableKeyMaterial, unwrapKeyMaterial, type TokenKeyEncryption } from './tokenKeyWrapping';

/**
 * Opaque tokens: `<prefix><base64url(JSON payload)>.<keyId>.<base64url(HMAC-SHA256)>`.
 *
 * Each app has its own random token keys; the MAC key is derived from one of them with HKDF
 * (info names the app and its incarnation), so a token is bound to one creation of its app, and
 * the prefix is inside the MAC, so a token of one kind cannot pose as another. The payload
 * carries the incarnation too (`inc`), checked on opening. Apps made before incarnations have an
 * empty one: their tokens keep the original derivation and no `inc`, so tokens issued before an
 * upgrade verify after it. Keys rotate weekly; every key younger than
 * KEY_RETENTION_MS verifies. With TOKEN_KEY_ENCRYPTION_KEY set, keys are stored wrapped
 * (tokenKeyWrapping.ts), so a copy of the database alone cannot mint tokens. Payloads are signed,
 * not encrypted: they hold nothing the browser does not already know.
 */
/** The clients' kinds, plus `abort_`: the link in an account-deletion warning, which only this service reads. */
const PREFIX = { ...TOKEN_PREFIXES, abort: 'abort_' } as const;
export type TokenKind = keyof typeof PREFIX;

const DAY_MS = 24 * 3600 * 1000;
const ROTATE_AFTER_MS = 7 * DAY_MS;
/** The longest any token may live. */
export const MAX_TOKEN_LIFETIME_MS = 30 * DAY_MS;
/** A key signs for about a week, then must verify what it signed for as long as that may live. */
const KEY_RETENTION_MS = ROTATE_AFTER_MS + MAX_TOKEN_LIFETIME_MS + DAY_MS;
/** How long a replica trusts its cached key list before reading it again. */
const RELOAD_AFTER_MS = 60 * 1000;
/**
 * A new key verifies at once but signs only after this delay, by which time every replica has
 * reloaded its key list; so no replica ever sees a token signed with a key it does not know yet.
 */
const PUBLISH_DELAY_MS = 2 * RELOAD_AFTER_MS;

interface TokenKey {
  keyId: number;
  createdAt: number;
  macKey: Buffer;
}

interface AppTokenKeys {
  keys: TokenKey[];
  /** The app's decoy secret (App.decoyKey); undefined when the app does not exist or has none yet. */
  decoyKey: Buffer | undefined;
  /** Undefined when the app does not exist. */
  incarnation: string | undefined;
  loadedAt: number;
}

export interface TokenEnvelope {
  /** App the token was issued for. */
  app: string;
  /** Expiry, epoch milliseconds. */
  exp: number;
  /** The app's incarnation; set by `issue`, absent for apps made before incarnations. */
  inc?: string;
}

/** The largest epoch-millisecond value a Date can hold. */
const MAX_TIME_MS = 8.64e15;

/** Epoch milliseconds that make a valid Date. */
export const payloadTime = () => z.number().min(-MAX_TIME_MS).max(MAX_TIME_MS);

/** A payload string that may reach a query or a column: PostgreSQL refuses NUL in text. */
export const payloadText = () => z.string().refine((v) => !v.includes('\u0000'), 'must not contain NUL');

const envelopeShape = { app: z.string(), exp: payloadTime(), inc: z.string().optional() };

/** The schema of a token payload: the envelope plus the fields of one kind of token. */
export function tokenPayload<T extends z.ZodRawShape>(shape: T) {
  return z.object({ ...envelopeShape, ...shape });
}

/** The envelope alone, built once: a zod schema compiles its parser on first use. */
const envelopeSchema = tokenPayload({});

/**
 * What a correctly signed token whose payload has the wrong shape is answered with. Only this
 * service can sign, so it takes a bug or a leaked key; either way it is the caller's token that is
 * bad, never a reason for a 500.
 */
const MALFORMED: Record<TokenKind, { code: 'invalid_token' | 'invalid_session'; detail: string }> = {
  register: { code: 'invalid_token', detail: 'The register token does not carry a valid registration.' },
  session: { code: 'invalid_session', detail: 'The session does not carry a valid ceremony.' },
  verify: { code: 'invalid_token', detail: 'The verify token does not carry a valid result.' },
  abort: { code: 'invalid_token', detail: 'The link does not carry a valid cancellation.' },
};

function deriveMacKey(appId: string, incarnation: string, material: string): Buffer {
  const info = incarnation === '' ? `passwordless-token-v1:${appId}` : `passwordless-token-v2:${appId}:${incarnation}`;
  return Buffer.from(hkdfSync('sha256', Buffer.from(material, 'base64'), Buffer.alloc(0), info, 32));
}

function mac(key: Buffer, prefix: string, body: string): Buffer {
  return createHmac('sha256', key).update(prefix).update(body).digest();
}

export function humanizeSeconds(seconds: number): string {
  const units: [number, string][] = [
    [86400, 'day'],
    [3600, 'hour'],
    [60, 'minute'],
  ];
  for (const [size, name] of units) {
    if (seconds >= size * 2 || (seconds >= size && seconds % size === 0)) {
      const n = Math.floor(seconds / size);
      return `${n} ${name}${n === 1 ? '' : 's'}`;
    }
  }
  return `${seconds} second${seconds === 1 ? '' : 's'}`;
}

/** What a `TokenService` is built from. */
export interface TokenServiceDeps {
  tokenKeys: TokenKeyRepository;
  now?: () => number;
  incarnations?: AppIncarnations;
  /** TOKEN_KEY_ENCRYPTION_KEY(_PREVIOUS): new keys are stored wrapped; plain and wrapped rows are read. */
  encryption?: TokenKeyEncryption;
}

export class TokenService {
  private readonly keysByApp = new Map<string, AppTokenKeys>();

  private readonly tokenKeys: TokenKeyRepository;
  private readonly now: () => number;
  private readonly incarnations: AppIncarnations;
  private readonly encryption: TokenKeyEncryption;

  constructor(deps: TokenServiceDeps) {
    this.tokenKeys = deps.tokenKeys;
    this.now = deps.now ?? Date.now;
    this.incarnations = deps.incarnations ?? new AppIncarnations();
    this.encryption = deps.encryption ?? NO_TOKEN_KEY_ENCRYPTION;
  }

  private async load(appId: string): Promise<AppTokenKeys> {
    const app = await this.tokenKeys.keysOf(appId);
    const incarnation = app?.incarnation;
    if (incarnation !== undefined) this.incarnations.note(appId, incarnation);
    const keys: TokenKey[] = [];
    for (const row of app?.keys ?? []) {
      // A key wrapped with a key-encryption key this process lacks verifies nothing and signs nothing
      // (the service refuses to start in that state; see assertTokenKeysReadable).
      const material = unwrapKeyMaterial(row.keyMaterial, this.encryption, appId, row.keyId);
      if (material !== undefined) keys.push({ keyId: row.keyId, createdAt: row.createdAt.getTime(), macKey: deriveMacKey(appId, incarnation ?? '', material) });
    }
    const entry: AppTokenKeys = {
      keys,
      decoyKey: app?.decoyKey ? Buffer.from(app.decoyKey, 'hex') : undefined,
      incarnation,
      loadedAt: this.now(),
    };
    // An app that does not exist (yet) is not cached: it may be created a moment later.
    if (incarnation !== undefined) this.keysByApp.set(appId, entry);
    return entry;
  }

  /** Drops the cached keys of an app, e.g. once it is deleted, so that its id's next owner never verifies with them. */
  forget(appId: string): void {
    this.keysByApp.delete(appId);
  }

  /** Drops every cached key (after missed notifications, nothing cached can be trusted). */
  forgetAll(): void {
    this.keysByApp.clear();
  }

  /** Cached keys, unless they are old or of an incarnation a newer read has replaced. */
  private async keysOf(appId: string): Promise<AppTokenKeys> {
    const cached = this.keysByApp.get(appId);
    const current = cached?.incarnation === undefined || this.incarnations.isCurrent(appId, cached.incarnation);
    return cached && current && this.now() - cached.loadedAt < RELOAD_AFTER_MS ? cached : this.load(appId);
  }

  /**
   * The key to sign with: the newest one that has been published long enough, rotating when
   * the newest is a week old and pruning keys past retention. An app's very first key signs at
   * once (no token can exist that another replica would need an older key for).
   */
  private async signingKey(appId: string): Promise<{ key: TokenKey; incarnation: string }> {
    let entry = await this.keysOf(appId);
    if (!entry.keys[0] || this.now() - entry.keys[0].createdAt >= ROTATE_AFTER_MS) {
      entry = await this.load(appId); // another replica may have rotated already
      if (!entry.keys[0] || this.now() - entry.keys[0].createdAt >= ROTATE_AFTER_MS) entry = await this.rotate(appId);
    }
    const published = entry.keys.find((k) => this.now() - k.createdAt >= PUBLISH_DELAY_MS);
    const key = published ?? entry.keys[entry.keys.length - 1];
    // No key even after rotating: the app (and with it the key just made) was deleted meanwhile.
    if (!key || entry.incarnation === undefined) throw appDeletedMeanwhile();
    return { key, incarnation: entry.incarnation };
  }

  /**
   * The app's secret for decoy allow lists, cached with its token keys: signing the sign-in's
   * session reads the same entry, so a decoy costs no round trip a real answer does not make.
   * An app without one (made by a copy of an older database) gets one now.
   */
  async decoyKeyOf(appId: string): Promise<Buffer> {
    let entry = await this.keysOf(appId);
    if (entry.incarnation !== undefined && entry.decoyKey === undefined) {
      await this.tokenKeys.fillDecoyKey(appId, randomBytes(32).toString('hex'));
      entry = await this.load(appId);
    }
    if (entry.decoyKey === undefined) throw appDeletedMeanwhile();
    return entry.decoyKey;
  }

  private async rotate(appId: string): Promise<AppTokenKeys> {
    const keyId = randomInt(1, 2 ** 31 - 1);
    const keyMaterial = storableKeyMaterial(randomBytes(32).toString('base64'), this.encryption, appId, keyId);
    await this.tokenKeys.rotate(appId, { keyId, keyMaterial, createdAt: new Date(this.now()) }, new Date(this.now() - KEY_RETENTION_MS));
    return this.load(appId);
  }

  private async verificationKey(appId: string, keyId: number): Promise<{ key: TokenKey | undefined; incarnation: string | undefined }> {
    let entry = await this.keysOf(appId);
    let key = entry.keys.find((k) => k.keyId === keyId);
    if (!key && this.now() - entry.loadedAt >= 1000) {
      entry = await this.load(appId);
      key = entry.keys.find((k) => k.keyId === keyId);
    }
    return { key, incarnation: entry.incarnation };
  }

  async issue<T extends TokenEnvelope>(kind: TokenKind, payload: T): Promise<string> {
    const { key, incarnation } = await this.signingKey(payload.app);
    const body = Buffer.from(JSON.stringify(incarnation === '' ? payload : { ...payload, inc: incarnation })).toString('base64url');
    return `${PREFIX[kind]}${body}.${key.keyId}.${mac(key.macKey, PREFIX[kind], body).toString('base64url')}`;
  }

  /**
   * Checks prefix, structure, MAC, app, expiry and (given a schema) the payload's shape, in that
   * order, and returns the payload. Every failure is a 4xx problem: missing_token, invalid_token,
   * invalid_token_format, expired_token, or invalid_session for a malformed session.
   */
  async open<T extends TokenEnvelope>(kind: TokenKind, token: unknown, appId: string): Promise<T>;
  async open<S extends z.ZodType<TokenEnvelope>>(kind: TokenKind, token: unknown, appId: string, shape: S): Promise<z.output<S>>;
  async open(kind: TokenKind, token: unknown, appId: string, shape?: z.ZodType<TokenEnvelope>): Promise<TokenEnvelope> {
    const prefix = PREFIX[kind];
    if (typeof token !== 'string' || token.length === 0) {
      throw new ApiError('missing_token', { title: `This operation requires a token that starts with '${prefix}' to be passed.` });
    }
    if (token.slice(0, prefix.length).toLowerCase() !== prefix) {
      throw new ApiError('invalid_token', {
        title: `The token you sent was not correct. The token used for this endpoint should start with '${prefix}'. Make sure you are not sending the wrong value.`,
      });
    }
    const parts = token.slice(prefix.length).split('.');
    const [body, keyIdText, macText] = parts;
    if (parts.length !== 3 || !/^[A-Za-z0-9_-]+$/.test(body) || !/^\d{1,10}$/.test(keyIdText) || !/^[A-Za-z0-9_-]{43}$/.test(macText)) {
      throw new ApiError('invalid_token_format');
    }
    const { key, incarnation } = await this.verificationKey(appId, Number(keyIdText));
    const expected = key ? mac(key.macKey, prefix, body) : undefined;
    const given = Buffer.from(macText, 'base64url');
    if (!expected || expected.length !== given.length || !timingSafeEqual(expected, given)) {
      throw new ApiError('invalid_token', {
        title: 'The token you supplied was not valid. It could be that the token has expired or that it was not issued for this application.',
      });
    }
    let json: unknown;
    try {
      json = JSON.parse(Buffer.from(body, 'base64url').toString('utf8'));
    } catch {
      throw new ApiError('invalid_token_format');
    }
    // A payload that passes its kind's schema has passed the envelope's too: one parse, not two.
    // Only a payload that fails it is parsed as the envelope alone, to tell the failures apart.
    const payload = shape?.safeParse(json);
    const envelope = payload?.success ? payload : envelopeSchema.safeParse(json);
    if (!envelope.success || envelope.data.app !== appId || (envelope.data.inc ?? '') !== incarnation) throw new ApiError('invalid_token');
    const overdueMs = this.now() - envelope.data.exp;
    if (overdueMs > 0) {
      throw new ApiError('expired_token', { title: `The token expired ${humanizeSeconds(Math.max(1, Math.floor(overdueMs / 1000)))} ago.` });
    }
    if (!payload) return json as TokenEnvelope;
    if (!payload.success) throw new ApiError(MALFORMED[kind].code, { detail: MALFORMED[kind].detail });
    return payload.data;
  }
}
