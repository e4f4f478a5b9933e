import { X509Certificate } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { isIP } from 'node:net';
import { z } from 'zod';
import { parseTimeSpan } from '../../shared/timeSpan';
import { parseKeyEncryptionKey, type KeyEncryptionKey } from './parseKeyEncryptionKey';
import { parseMailbox, type Mailbox } from './parseMailbox';
import { NO_NETWORKS, parseNetworkList, type NetworkList } from './privateNetworks';
import { INCOMING_TRACE_TRUST_VALUES, type IncomingTraceTrust } from './telemetry/incomingTraceTrust';

/** The service's settings, read once from the environment (README, "Configuration"). */
export interface Config {
  port: number;
  host: string;
  databaseUrl: string;
  managementKey: string | undefined;
  /** MANAGEMENT_HOST/MANAGEMENT_PORT: the management API on a listener of its own (and not on the main one); undefined = on the main listener. */
  managementListener: { host: string; port: number } | undefined;
  publicUrl: string;
  smtpUrl: string | undefined;
  mailFrom: Mailbox;
  mailFile: string;
  redisUrl: string | undefined;
  /** Magic-link emails a new app may send in any 30 days. */
  magicLinkMonthlyQuota: number;
  /** Apps younger than this may send magic links only to their admin email (0 = no such rule). */
  magicLinkNewAppPeriodSeconds: number;
  /** Default of the per-app `sdkCompatibleLists` feature: lists as `{values: [...]}`. */
  sdkCompatibleLists: boolean;
  logLevel: 'fatal' | 'error' | 'warn' | 'info' | 'debug' | 'trace' | 'silent';
  /** On SIGTERM/SIGINT: how long in-flight requests may take, and then how long the final writes may take. */
  shutdownTimeoutMs: number;
  /** Express's `trust proxy`: whether (and which) X-Forwarded-For hops are believed for the client IP. */
  trustProxy: TrustProxy;
  /** TRUST_INCOMING_TRACE: whose `traceparent` a request may continue when tracing is on (default: secret-key holders only). */
  trustIncomingTrace: IncomingTraceTrust;
  rateLimits: RateLimits;
  /** Prefix of every key the service writes to Redis. */
  redisKeyPrefix: string;
  /** When set, GET /metrics requires `Authorization: Bearer <token>`. */
  metricsToken: string | undefined;
  /** How long a browser may take for a passkey ceremony (WebAuthn `timeout`); its challenge lives half as long again. */
  ceremonyTimeoutMs: number;
  /** AAGUID-to-name list that overrides the bundled one (the community list's JSON format). */
  aaguidNamesFile: string | undefined;
  /**
   * The FIDO metadata BLOB on disk: read at start and whenever it changes; with `mdsUrl`, also
   * where each verified download is kept. Unset with no `mdsUrl`: no metadata.
   */
  mdsBlobFile: string | undefined;
  /** Where to download the BLOB from (after its nextUpdate); unset: only the file. */
  mdsUrl: string | undefined;
  /** The operator's own metadata roots (PEM), trusted beside the bundled FIDO roots. */
  mdsTrustedRoots: string[];
  /**
   * TOKEN_KEY_ENCRYPTION_KEY (wraps new token keys; undefined = they are stored in plain text) and
   * TOKEN_KEY_ENCRYPTION_KEY_PREVIOUS (still opens what it wrapped, during a rotation).
   */
  tokenKeyEncryption: { current: KeyEncryptionKey | undefined; previous: KeyEncryptionKey[] };
  webhooks: WebhookDestinationPolicy;
  /**
   * WEBHOOK_WORKER (default true): whether this process sends the webhook outbox. API replicas may
   * turn it off and leave delivery to others (which then notice new deliveries at their next poll).
   */
  webhookWorker: boolean;
  webhookDelivery: WebhookDeliverySettings;
  /** The operator console at `/console` (docs/console.md). */
  console: ConsoleSettings;
}

/** CONSOLE and CONSOLE_IDLE_MINUTES. */
export interface ConsoleSettings {
  /**
   * CONSOLE=on|off; default on only when both PUBLIC_URL and HOST are this machine (development): a
   * console reached from elsewhere, directly or through a proxy on this machine, is opted into.
   */
  enabled: boolean;
  /** Signed out after this long without a request (CONSOLE_IDLE_MINUTES, default 30). */
  idleMs: number;
}

/** Whether a listener's host only accepts connections from this machine. */
export function isLoopbackHost(host: string): boolean {
  return host === 'localhost' || host === '::1' || host === '[::1]' || /^127(\.\d{1,3}){3}$/.test(host);
}

/** Whether a URL (PUBLIC_URL) names this machine: the service is reached only from here (development). */
export function isLoopbackUrl(url: string): boolean {
  return isLoopbackHost(new URL(url).hostname);
}

/** How the delivery worker sends (docs/operations.md, "Webhooks"). */
export interface WebhookDeliverySettings {
  /** WEBHOOK_TIMEOUT_SECONDS: how long one attempt may take, answer included (Standard Webhooks recommends 15 to 30 s). */
  timeoutMs: number;
  /** WEBHOOK_LEASE_SECONDS: how long a claim holds unless its worker renews it; a killed worker's deliveries go out again within it. */
  leaseMs: number;
  /** WEBHOOK_OUTBOX_QUOTA: pending deliveries an app may have; what would pass it is not queued. */
  outboxQuota: number;
}

/** Where webhooks may go (docs/security.md, "Webhook destinations"). */
export interface WebhookDestinationPolicy {
  /** WEBHOOK_ALLOW_INSECURE: plain http to a loopback address (development); otherwise https only. */
  allowInsecure: boolean;
  /** WEBHOOK_ALLOW_PRIVATE_NETWORKS: private, loopback and link-local networks webhooks may still reach. */
  allowPrivateNetworks: NetworkList;
}

/** false, true, a hop count, or a list of addresses, subnets and Express's names (loopback, linklocal, uniquelocal). */
export type TrustProxy = boolean | number | string[];

/** The rate limits by name: per client address, per app, for wrong secrets, and for wrong ManagementKeys. */
export type LimitName = 'public_ip' | 'public_app' | 'private_ip' | 'private_app' | 'webhook_sends_app' | 'auth_failures_ip' | 'auth_failures_app' | 'management_failures_ip';

/** Requests allowed per window; 0 turns that limit off. */

/** Requests allowed per window; 0 turns that limit off. */
export interface RateLimits {
  enabled: boolean;
  windowMs: number;
  publicPerIp: number;
  publicPerApp: number;
  privatePerIp: number;
  privatePerApp: number;
  /** webhooks/test and webhooks/redeliver per app: each writes an outbox row on request. */
  webhookSendsPerApp: number;
  authFailuresPerIp: number;
  authFailuresPerApp: number;
  managementFailuresPerIp: number;
}

export class ConfigError extends Error {}

const optional = <T extends z.ZodType>(schema: T) =>
  z.preprocess((v) => (v === '' ? undefined : v), schema.optional());

const booleanFlag = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'], { message: 'must be true or false' })
  .transform((v) => v === 'true' || v === '1' || v === 'yes');

const PROXY_NAMES = ['loopback', 'linklocal', 'uniquelocal'];

/** One entry of a TRUST_PROXY list: an IP address, an address/prefix subnet, or one of Express's names. */
function isProxyEntry(entry: string): boolean {
  if (PROXY_NAMES.includes(entry)) return true;
  const [address, prefix, ...rest] = entry.split('/');
  const version = isIP(address);
  if (version === 0 || rest.length > 0) return false;
  if (prefix === undefined) return true;
  return /^\d{1,3}$/.test(prefix) && Number(prefix) <= (version === 4 ? 32 : 128);
}

const trustProxy = z.string().transform((v, ctx): TrustProxy => {
  const text = v.trim().toLowerCase();
  if (['false', '0', 'no', 'off'].includes(text)) return false;
  if (['true', 'yes', 'on'].includes(text)) return true;
  if (/^\d{1,3}$/.test(text)) return Number(text);
  const entries = text.split(',').map((e) => e.trim());
  if (entries.every(isProxyEntry)) return entries;
  ctx.addIssue({ code: 'custom', message: 'must be true, false, a hop count, or a comma-separated list of addresses, subnets, loopback, linklocal, uniquelocal' });
  return z.NEVER;
});

/** At least 128 bits: 32 characters of `generate-key management`'s alphabet carry 192. */
export const MIN_MANAGEMENT_KEY_LENGTH = 32;

const keyEncryptionKey = z.string().transform((v, ctx) => {
  const key = parseKeyEncryptionKey(v);
  if (key) return key;
  ctx.addIssue({ code: 'custom', message: 'must be 32 random bytes, as 64 hex characters or base64 (npm run cli -- generate-key token-encryption prints one)' });
  return z.NEVER;
});

const portNumber = z.number().int().min(1, 'must be between 1 and 65535').max(65535, 'must be between 1 and 65535');
const portText = z.string().regex(/^\d+$/, 'must be a whole number');

/** A limit per window: a whole number, 0 = no limit. */
const limit = (fallback: number) =>
  optional(z.string().regex(/^\d{1,9}$/, 'must be a whole number (0 turns the limit off)')).transform((v) => (v === undefined ? fallback : Number(v)));

const schema = z.object({
  PORT: optional(portText).transform((v) => (v === undefined ? 7001 : Number(v))).pipe(portNumber),
  HOST: optional(z.string()).transform((v) => v ?? '127.0.0.1'),
  DATABASE_URL: optional(
    z.string().refine((v) => /^file:.+/.test(v) || /^postgres(ql)?:\/\/.+/.test(v), 'must be file:<path> or a postgres:// / postgresql:// URL'),
  ).transform((v) => v ?? 'file:./data/passwordless.db'),
  MANAGEMENT_KEY: optional(
    z.string().min(MIN_MANAGEMENT_KEY_LENGTH, `must be at least ${MIN_MANAGEMENT_KEY_LENGTH} characters long (npm run cli -- generate-key management prints one)`),
  ),
  MANAGEMENT_HOST: optional(z.string()),
  // 0: a port the system picks, named in the start-up log line (for tests).
  MANAGEMENT_PORT: optional(portText.transform(Number).pipe(z.number().int().min(0).max(65535, 'must be between 0 and 65535'))),
  PUBLIC_URL: optional(z.url({ protocol: /^https?$/, message: 'must be an http:// or https:// URL' })),
  SMTP_URL: optional(z.string().regex(/^smtps?:\/\/[^/]+/, 'must be smtp://user:pass@host:port or smtps://...')),
  MAIL_FROM: optional(z.string()).transform((v, ctx) => {
    if (v === undefined) return undefined;
    const mailbox = parseMailbox(v);
    if (mailbox) return mailbox;
    ctx.addIssue({ code: 'custom', message: "must be an email address, or a name and an address: 'Passkeys <noreply@example.com>'" });
    return z.NEVER;
  }),
  MAIL_FILE: optional(z.string()).transform((v) => v ?? './data/mail.md'),
  REDIS_URL: optional(z.string().regex(/^rediss?:\/\/.+/, 'must be a redis:// or rediss:// URL')),
  MAGIC_LINK_MONTHLY_QUOTA: optional(z.string().regex(/^\d{1,10}$/, 'must be a whole number'))
    .transform((v) => (v === undefined ? 1000 : Number(v)))
    .pipe(z.number().max(2_147_483_647, 'must be at most 2147483647')),
  MAGIC_LINK_NEW_APP_PERIOD: optional(z.string())
    .transform((v) => (v === undefined ? 86_400 : parseTimeSpan(v)))
    .pipe(z.number({ message: 'must be a duration hh:mm:ss or d.hh:mm:ss' })),
  SDK_COMPATIBLE_LISTS: optional(booleanFlag),
  SHUTDOWN_TIMEOUT_MS: optional(z.string().regex(/^\d{1,7}$/, 'must be a whole number of milliseconds'))
    .transform((v) => (v === undefined ? 10_000 : Number(v)))
    .pipe(z.number().max(600_000, 'must be at most 600000 (10 minutes)')),
  LOG_LEVEL: optional(z.enum(['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], { message: 'must be one of fatal, error, warn, info, debug, trace, silent' })),
  TRUST_PROXY: optional(trustProxy),
  TRUST_INCOMING_TRACE: optional(z.enum(INCOMING_TRACE_TRUST_VALUES as [IncomingTraceTrust, ...IncomingTraceTrust[]], { message: `must be one of ${INCOMING_TRACE_TRUST_VALUES.join(', ')}` })),
  RATE_LIMITS: optional(z.enum(['on', 'off'], { message: 'must be on or off' })),
  RATE_LIMIT_WINDOW_SECONDS: optional(z.string().regex(/^\d{1,7}$/, 'must be a whole number of seconds'))
    .transform((v) => (v === undefined ? 60 : Number(v)))
    .pipe(z.number().min(1, 'must be at least 1')),
  RATE_LIMIT_PUBLIC_PER_IP: limit(600),
  RATE_LIMIT_PUBLIC_PER_APP: limit(12_000),
  RATE_LIMIT_PRIVATE_PER_IP: limit(12_000),
  RATE_LIMIT_PRIVATE_PER_APP: limit(12_000),
  RATE_LIMIT_WEBHOOK_SENDS_PER_APP: limit(10),
  RATE_LIMIT_AUTH_FAILURES_PER_IP: limit(60),
  RATE_LIMIT_AUTH_FAILURES_PER_APP: limit(600),
  RATE_LIMIT_MANAGEMENT_FAILURES_PER_IP: limit(10),
  REDIS_KEY_PREFIX: optional(z.string().regex(/^[A-Za-z0-9:._-]{1,64}$/, 'must be 1 to 64 letters, digits or :._-')),
  METRICS_TOKEN: optional(z.string().min(16, 'must be at least 16 characters long')),
  CEREMONY_TIMEOUT_SECONDS: optional(z.string().regex(/^\d{1,4}$/, 'must be a whole number of seconds'))
    .transform((v) => (v === undefined ? 60 : Number(v)))
    .pipe(z.number().min(5, 'must be between 5 and 600').max(600, 'must be between 5 and 600')),
  AAGUID_NAMES_FILE: optional(z.string()),
  MDS_BLOB_FILE: optional(z.string()),
  MDS_URL: optional(z.url({ protocol: /^https?$/, message: 'must be an http:// or https:// URL' })),
  MDS_TRUSTED_ROOTS_FILE: optional(z.string().transform((path, ctx) => readTrustedRoots(path, ctx))),
  TOKEN_KEY_ENCRYPTION_KEY: optional(keyEncryptionKey),
  TOKEN_KEY_ENCRYPTION_KEY_PREVIOUS: optional(keyEncryptionKey),
  WEBHOOK_ALLOW_INSECURE: optional(booleanFlag),
  WEBHOOK_WORKER: optional(booleanFlag),
  WEBHOOK_TIMEOUT_SECONDS: optional(z.string().regex(/^\d{1,3}$/, 'must be a whole number of seconds'))
    .transform((v) => (v === undefined ? 15 : Number(v)))
    .pipe(z.number().min(1, 'must be between 1 and 120').max(120, 'must be between 1 and 120')),
  WEBHOOK_LEASE_SECONDS: optional(z.string().regex(/^\d{1,3}$/, 'must be a whole number of seconds'))
    .transform((v) => (v === undefined ? 15 : Number(v)))
    .pipe(z.number().min(5, 'must be between 5 and 600').max(600, 'must be between 5 and 600')),
  WEBHOOK_OUTBOX_QUOTA: optional(z.string().regex(/^\d{1,9}$/, 'must be a whole number'))
    .transform((v) => (v === undefined ? 100_000 : Number(v)))
    .pipe(z.number().min(1, 'must be at least 1')),
  CONSOLE: optional(z.enum(['on', 'off'], { message: 'must be on or off' })),
  CONSOLE_IDLE_MINUTES: optional(z.string().regex(/^\d{1,4}$/, 'must be a whole number of minutes'))
    .transform((v) => (v === undefined ? 30 : Number(v)))
    .pipe(z.number().min(1, 'must be between 1 and 1440').max(1440, 'must be between 1 and 1440')),
  WEBHOOK_ALLOW_PRIVATE_NETWORKS: optional(
    z.string().transform((v, ctx) => {
      const list = parseNetworkList(v);
      if (list) return list;
      ctx.addIssue({ code: 'custom', message: 'must be a comma-separated list of addresses and networks (address/prefix)' });
      return z.NEVER;
    }),
  ),
});

const PEM_CERTIFICATE = /-----BEGIN CERTIFICATE-----[\s\S]+?-----END CERTIFICATE-----/g;

/** The certificates of a PEM file, each one parsed, so that a bad file stops the start with its name. */
function readTrustedRoots(path: string, ctx: z.RefinementCtx): string[] {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    ctx.addIssue({ code: 'custom', message: `cannot be read (${(error as NodeJS.ErrnoException).code ?? 'error'})` });
    return z.NEVER;
  }
  const certificates = text.match(PEM_CERTIFICATE) ?? [];
  if (certificates.length === 0) {
    ctx.addIssue({ code: 'custom', message: 'holds no PEM certificate (-----BEGIN CERTIFICATE-----)' });
    return z.NEVER;
  }
  for (const [index, pem] of certificates.entries()) {
    try {
      new X509Certificate(pem);
    } catch {
      ctx.addIssue({ code: 'custom', message: `certificate ${index + 1} cannot be parsed` });
      return z.NEVER;
    }
  }
  return certificates;
}

/**
 * Validates the environment. A bad value throws a ConfigError whose message is one line naming
 * the variable and never echoing a secret's value.
 */
export function loadConfig(env: NodeJS.ProcessEnv = process.env): Config {
  const parsed = schema.safeParse(env);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const variable = String(issue.path[0] ?? 'environment');
    throw new ConfigError(`Invalid configuration: ${variable} ${issue.message}`);
  }
  const v = parsed.data;
  if (v.MANAGEMENT_HOST !== undefined && v.MANAGEMENT_PORT === undefined) throw new ConfigError('Invalid configuration: MANAGEMENT_HOST needs MANAGEMENT_PORT (the management listener\'s port)');
  if (v.MANAGEMENT_PORT !== undefined && v.MANAGEMENT_PORT === v.PORT) {
    throw new ConfigError('Invalid configuration: MANAGEMENT_PORT must differ from PORT (the management API gets a listener of its own)');
  }
  const publicUrl = (v.PUBLIC_URL ?? `http://localhost:${v.PORT}`).replace(/\/+$/, '');
  return {
    port: v.PORT,
    host: v.HOST,
    databaseUrl: v.DATABASE_URL,
    managementKey: v.MANAGEMENT_KEY,
    managementListener: v.MANAGEMENT_PORT === undefined ? undefined : { host: v.MANAGEMENT_HOST ?? '127.0.0.1', port: v.MANAGEMENT_PORT },
    publicUrl,
    smtpUrl: v.SMTP_URL,
    mailFrom: v.MAIL_FROM ?? { name: '', address: 'passwordless@localhost' },
    mailFile: v.MAIL_FILE,
    redisUrl: v.REDIS_URL,
    magicLinkMonthlyQuota: v.MAGIC_LINK_MONTHLY_QUOTA,
    magicLinkNewAppPeriodSeconds: v.MAGIC_LINK_NEW_APP_PERIOD,
    sdkCompatibleLists: v.SDK_COMPATIBLE_LISTS ?? false,
    logLevel: v.LOG_LEVEL ?? 'info',
    shutdownTimeoutMs: v.SHUTDOWN_TIMEOUT_MS,
    trustProxy: v.TRUST_PROXY ?? false,
    trustIncomingTrace: v.TRUST_INCOMING_TRACE ?? 'secret-key',
    rateLimits: {
      enabled: v.RATE_LIMITS !== 'off',
      windowMs: v.RATE_LIMIT_WINDOW_SECONDS * 1000,
      publicPerIp: v.RATE_LIMIT_PUBLIC_PER_IP,
      publicPerApp: v.RATE_LIMIT_PUBLIC_PER_APP,
      privatePerIp: v.RATE_LIMIT_PRIVATE_PER_IP,
      privatePerApp: v.RATE_LIMIT_PRIVATE_PER_APP,
      webhookSendsPerApp: v.RATE_LIMIT_WEBHOOK_SENDS_PER_APP,
      authFailuresPerIp: v.RATE_LIMIT_AUTH_FAILURES_PER_IP,
      authFailuresPerApp: v.RATE_LIMIT_AUTH_FAILURES_PER_APP,
      managementFailuresPerIp: v.RATE_LIMIT_MANAGEMENT_FAILURES_PER_IP,
    },
    redisKeyPrefix: v.REDIS_KEY_PREFIX ?? 'passwordless:',
    metricsToken: v.METRICS_TOKEN,
    ceremonyTimeoutMs: v.CEREMONY_TIMEOUT_SECONDS * 1000,
    aaguidNamesFile: v.AAGUID_NAMES_FILE,
    mdsBlobFile: v.MDS_BLOB_FILE ?? (v.MDS_URL ? './data/mds.jwt' : undefined),
    mdsUrl: v.MDS_URL,
    mdsTrustedRoots: v.MDS_TRUSTED_ROOTS_FILE ?? [],
    tokenKeyEncryption: { current: v.TOKEN_KEY_ENCRYPTION_KEY, previous: v.TOKEN_KEY_ENCRYPTION_KEY_PREVIOUS ? [v.TOKEN_KEY_ENCRYPTION_KEY_PREVIOUS] : [] },
    webhooks: { allowInsecure: v.WEBHOOK_ALLOW_INSECURE ?? false, allowPrivateNetworks: v.WEBHOOK_ALLOW_PRIVATE_NETWORKS ?? NO_NETWORKS },
    webhookWorker: v.WEBHOOK_WORKER ?? true,
    webhookDelivery: { timeoutMs: v.WEBHOOK_TIMEOUT_SECONDS * 1000, leaseMs: v.WEBHOOK_LEASE_SECONDS * 1000, outboxQuota: v.WEBHOOK_OUTBOX_QUOTA },
    // PUBLIC_URL alone would turn it on for HOST=0.0.0.0 with PUBLIC_URL unset (it defaults to localhost);
    // HOST alone, for the usual TLS set-up (a proxy on this machine forwarding a public name to 127.0.0.1).
    console: { enabled: v.CONSOLE === undefined ? isLoopbackHost(v.HOST) && isLoopbackUrl(publicUrl) : v.CONSOLE === 'on', idleMs: v.CONSOLE_IDLE_MINUTES * 60_000 },
  };
}
