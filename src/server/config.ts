import { z } from 'zod';
import { parseTimeSpan } from '../shared/timeSpan';

/** The service's settings, read once from the environment (DESIGN.md, "Configuration"). */
export interface Config {
  port: number;
  host: string;
  databaseUrl: string;
  managementKey: string | undefined;
  publicUrl: string;
  smtpUrl: string | undefined;
  mailFrom: string;
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
}

export class ConfigError extends Error {}

const optional = <T extends z.ZodType>(schema: T) =>
  z.preprocess((v) => (v === '' ? undefined : v), schema.optional());

const booleanFlag = z
  .enum(['true', 'false', '1', '0', 'yes', 'no'], { message: 'must be true or false' })
  .transform((v) => v === 'true' || v === '1' || v === 'yes');

const schema = z.object({
  PORT: optional(z.string().regex(/^\d+$/, 'must be a whole number')).transform((v) => (v === undefined ? 7001 : Number(v))).pipe(
    z.number().int().min(1, 'must be between 1 and 65535').max(65535, 'must be between 1 and 65535'),
  ),
  HOST: optional(z.string()).transform((v) => v ?? '127.0.0.1'),
  DATABASE_URL: optional(
    z.string().refine((v) => /^file:.+/.test(v) || /^postgres(ql)?:\/\/.+/.test(v), 'must be file:<path> or a postgres:// / postgresql:// URL'),
  ).transform((v) => v ?? 'file:./data/passwordless.db'),
  MANAGEMENT_KEY: optional(z.string().min(16, 'must be at least 16 characters long')),
  PUBLIC_URL: optional(z.url({ protocol: /^https?$/, message: 'must be an http:// or https:// URL' })),
  SMTP_URL: optional(z.string().regex(/^smtps?:\/\/[^/]+/, 'must be smtp://user:pass@host:port or smtps://...')),
  MAIL_FROM: optional(z.string().regex(/^[^@\s]+@[^@\s]+$/, 'must be an email address')),
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
});

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
  return {
    port: v.PORT,
    host: v.HOST,
    databaseUrl: v.DATABASE_URL,
    managementKey: v.MANAGEMENT_KEY,
    publicUrl: (v.PUBLIC_URL ?? `http://localhost:${v.PORT}`).replace(/\/+$/, ''),
    smtpUrl: v.SMTP_URL,
    mailFrom: v.MAIL_FROM ?? 'passwordless@localhost',
    mailFile: v.MAIL_FILE,
    redisUrl: v.REDIS_URL,
    magicLinkMonthlyQuota: v.MAGIC_LINK_MONTHLY_QUOTA,
    magicLinkNewAppPeriodSeconds: v.MAGIC_LINK_NEW_APP_PERIOD,
    sdkCompatibleLists: v.SDK_COMPATIBLE_LISTS ?? false,
    logLevel: v.LOG_LEVEL ?? 'info',
    shutdownTimeoutMs: v.SHUTDOWN_TIMEOUT_MS,
  };
}
