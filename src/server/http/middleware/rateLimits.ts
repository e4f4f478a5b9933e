import type { Request, RequestHandler, Response } from 'express';
import { ipKeyGenerator, type ClientRateLimitInfo, type Options, type Store } from 'express-rate-limit';
import type { Logger } from 'pino';
import type { LimitName, RateLimits } from '../../core/config';
import type { RedisConnection } from '../../redis/connection';
import { parseKey } from '../../../shared/apiKeys';
import { isPublicPath } from './cors';
import { endpointSet } from '../routing/endpointSet';
import { ApiError } from '../../core/apiError';
import { limitStore } from './rateLimitStores';

/** The endpoints a backend calls with its ApiSecret that cost the most or send mail. */
const isPrivateLimitedPath = endpointSet(['/signin/verify', '/signin/generate-token', '/magic-links/send']);
/** The endpoints that write a webhook delivery on request (each an outbox row kept 30 days). */
const isWebhookSendPath = endpointSet(['/webhooks/test', '/webhooks/redeliver']);


export interface RateLimitOptions {
  limits: RateLimits;
  redis: RedisConnection | undefined;
  redisKeyPrefix: string;
  logger: Logger;
  /** TRUST_PROXY: unless it is false, the client address is Express's `req.ip`. */
  trustProxy: unknown;
  /** Told of every refusal (metrics). */
  onRefused?: (limit: LimitName) => void;
}

const SCOPES: Record<LimitName, string> = {
  public_ip: 'from this address',
  public_app: 'for this app',
  private_ip: 'from this address',
  private_app: 'for this app',
  webhook_sends_app: 'to webhooks/test and webhooks/redeliver for this app',
  auth_failures_ip: 'with a wrong ApiSecret from this address',
  auth_failures_app: 'with a wrong ApiSecret for this app',
  management_failures_ip: 'with a wrong ManagementKey from this address',
};

/** What a request is counted by: its client address, or the app its key header claims. */
type KeyOf = 'ip' | 'apikey' | 'apisecret';

interface Limit {
  name: LimitName;
  limit: number;
  keyOf: KeyOf;
  store: Store;
}

/** The key headers whose failures are counted. */
export type CountedKeyHeader = 'ApiSecret' | 'ManagementKey';

interface Counted {
  limit: Limit;
  /** This request's hits in the window, itself included. */
  hits: number;
  resetTime: Date | undefined;
}

function header(req: Request, name: string): string | undefined {
  const value = req.headers[name];
  return typeof value === 'string' ? value.trim() : undefined;
}

/**
 * The client address as Express sees it under TRUST_PROXY (IPv6 clients count per /56), or the
 * app a key header claims (not yet authenticated). Without a trusted proxy that is the socket's
 * address, which `req.ip` would find only after parsing X-Forwarded-For.
 */
function keyFor(req: Request, keyOf: KeyOf, trustsProxy: boolean): string | undefined {
  if (keyOf === 'ip') return clientAddressKey(req, trustsProxy);
  const value = header(req, keyOf);
  return value === undefined ? undefined : parseKey(value)?.appId;
}

/** The client address a request is counted (and its failed keys recorded) under. */
export function clientAddressKey(req: Request, trustsProxy: boolean): string {
  return ipKeyGenerator((trustsProxy ? req.ip : req.socket.remoteAddress) ?? 'unknown');
}

const NONE: Limit[] = [];
/** The address's limits, then the app's: the order they are judged in. */
const PER_ADDRESS_FIRST = [true, false] as const;
/** res.locals: the failure limits read for each key header, to count if its key is refused. */
const FAILURE_KEYS = 'rateLimitFailureKeys';
/** res.locals: the app's endpoint limit, to count once the key authenticated. */
const APP_BUDGET = 'rateLimitAppBudget';

type FailureKeys = Partial<Record<CountedKeyHeader, [Limit, string][]>>;

/**
 * Counts a refused key against the failure limits this request passed for that header (its
 * address's, and for an ApiSecret its claimed app's). Awaited before the refusal is answered, so
 * that the client's next request, on any replica, already sees it.
 */
export async function countAuthFailure(res: Response, keyHeader: CountedKeyHeader): Promise<void> {
  const counted = (res.locals[FAILURE_KEYS] as FailureKeys | undefined)?.[keyHeader];
  if (!counted) return;
  await Promise.all(counted.map(([limit, key]) => Promise.resolve(limit.store.increment(key)).catch(() => undefined)));
}

/**
 * Spends one of the app's requests, now that its key authenticated (only requests that belong to
 * the app spend its budget). Sent without waiting for the answer: the request was already checked
 * against the count read with its address's counters (one round trip), so this costs the hot path
 * no second one; the next request reads it.
 */
export function countAuthenticated(res: Response, appId: string): void {
  const budget = res.locals[APP_BUDGET] as Limit | undefined;
  if (budget) Promise.resolve(budget.store.increment(appId)).catch(() => undefined);
}

/**
 * Per client IP and per app limits on the public ceremony endpoints, on verify, generate-token
 * and magic-links/send, per app on webhooks/test and webhooks/redeliver, and on failed ApiSecret and ManagementKey authentications (counted per IP,
 * and wrong secrets also per claimed app; over the limit, a request is refused before its key is
 * checked). Counters live in Redis when REDIS_URL is set, so every replica enforces the same
 * limits; if Redis is unreachable the requests are served unlimited (the connection logs the
 * outage once).
 *
 * Only requests that belong to an app spend its budgets: the per-app endpoint limit is read before
 * the key is checked and counted once it authenticated; a request refused by a per-address limit
 * is refused before any per-app limit is looked at; junk keys count against the address's limits
 * and the failure limits only.
 *
 * express-rate-limit's stores keep the counters; its middleware is not used, because a request
 * passes up to five limits and five middleware passes cost a fifth of a register/token. Here a
 * request's limits are looked up once and counted together (one Redis round trip).
 */
export function rateLimits(options: RateLimitOptions): RequestHandler {
  const { limits, redis, redisKeyPrefix, logger, onRefused } = options;
  const trustsProxy = options.trustProxy !== false;
  if (!limits.enabled) return (_req, _res, next) => next();

  const windowSeconds = Math.round(limits.windowMs / 1000);
  // Store failures are expected during a Redis outage, which the connection reports once; the
  // stores' own misconfiguration checks (ERR_ERL_*) are worth a warning.
  const misconfiguration = (error: unknown) => {
    const code = (error as { code?: unknown } | undefined)?.code;
    if (typeof code === 'string' && code.startsWith('ERR_ERL_')) logger.warn({ code }, 'rate limiter misconfigured');
  };
  const storeOptions = { windowMs: limits.windowMs } as Options;
  const limitOf = (name: LimitName, limit: number, keyOf: KeyOf): Limit | undefined => {
    if (limit <= 0) return undefined;
    const store = limitStore(name, redis, redisKeyPrefix);
    Promise.resolve(store.init?.(storeOptions)).catch(misconfiguration);
    return { name, limit, keyOf, store };
  };
  const present = (...found: (Limit | undefined)[]): Limit[] => found.filter((l): l is Limit => l !== undefined);
  // Failure limits are only read before the key is checked (as if this request were one more
  // failure); countAuthFailure adds one. Per address first: a guesser learns nothing more.
  const failureLimits: Record<CountedKeyHeader, Limit[]> = {
    ApiSecret: present(limitOf('auth_failures_ip', limits.authFailuresPerIp, 'ip'), limitOf('auth_failures_app', limits.authFailuresPerApp, 'apisecret')),
    ManagementKey: present(limitOf('management_failures_ip', limits.managementFailuresPerIp, 'ip')),
  };
  /** An endpoint's two limits: the address's (counted at once), the app's (read now, counted once the key authenticated). */
  const endpointLimits = (perAddress: Limit | undefined, perApp: Limit | undefined) => ({ perAddress: present(perAddress), perApp: present(perApp) });
  const publicLimits = endpointLimits(limitOf('public_ip', limits.publicPerIp, 'ip'), limitOf('public_app', limits.publicPerApp, 'apikey'));
  const privateLimits = endpointLimits(limitOf('private_ip', limits.privatePerIp, 'ip'), limitOf('private_app', limits.privatePerApp, 'apisecret'));
  const webhookSendLimits = endpointLimits(undefined, limitOf('webhook_sends_app', limits.webhookSendsPerApp, 'apisecret'));
  const noEndpoint = { perAddress: NONE, perApp: NONE };

  const secondsUntil = (reset: Date | undefined) => Math.max(1, Math.ceil(((reset?.getTime() ?? Date.now() + limits.windowMs) - Date.now()) / 1000));
  /** The draft-7 headers (RateLimit, RateLimit-Policy) of one limit. */
  const announce = (res: Response, limit: number, remaining: number, reset: Date | undefined) => {
    res.setHeader('RateLimit-Policy', `${limit};w=${windowSeconds}`);
    res.setHeader('RateLimit', `limit=${limit}, remaining=${remaining}, reset=${secondsUntil(reset)}`);
  };

  /**
   * The request's count under one limit: counted now, or (`peek`) read as if this request were one
   * more. Undefined when the store failed (the request is then served).
   */
  const count = async (limit: Limit, key: string, peek: boolean): Promise<Counted | undefined> => {
    try {
      if (!peek) {
        const info = await limit.store.increment(key);
        return { limit, hits: info.totalHits, resetTime: info.resetTime };
      }
      const info: ClientRateLimitInfo | undefined = await limit.store.get!(key);
      const previous = info && Number.isFinite(info.totalHits) ? info.totalHits : 0;
      return { limit, hits: previous + 1, resetTime: previous > 0 ? info?.resetTime : undefined };
    } catch {
      return undefined;
    }
  };

  type Endpoint = typeof noEndpoint;
  type Failures = [CountedKeyHeader, Limit[]][];
  // The failure limits a request passes, by the key headers it carries (built once, not per request).
  const failuresOf = { none: [] as Failures, secret: [['ApiSecret', failureLimits.ApiSecret]] as Failures, management: [['ManagementKey', failureLimits.ManagementKey]] as Failures };
  const failuresOfBoth: Failures = [...failuresOf.secret, ...failuresOf.management];

  const check = async (req: Request, res: Response, failures: Failures, endpoint: Endpoint): Promise<void> => {
    const keys = new Map<KeyOf, string | undefined>();
    const keyOf = (limit: Limit) => {
      if (!keys.has(limit.keyOf)) keys.set(limit.keyOf, keyFor(req, limit.keyOf, trustsProxy));
      return keys.get(limit.keyOf);
    };
    // Everything is asked at once (one Redis round trip), in the order it is judged: the address's
    // failure and endpoint limits, then the app's.
    const asked: Promise<Counted | undefined>[] = [];
    const endpoints: boolean[] = [];
    const failureKeys: FailureKeys = {};
    let appBudget: Limit | undefined;
    for (const perAddress of PER_ADDRESS_FIRST) {
      for (const [keyHeader, list] of failures) {
        for (const limit of list) {
          const key = (limit.keyOf === 'ip') === perAddress ? keyOf(limit) : undefined;
          if (key === undefined) continue;
          (failureKeys[keyHeader] ??= []).push([limit, key]);
          asked.push(count(limit, key, true));
          endpoints.push(false);
        }
      }
      for (const limit of perAddress ? endpoint.perAddress : endpoint.perApp) {
        const key = keyOf(limit);
        if (key === undefined) continue;
        if (!perAddress) appBudget = limit;
        asked.push(count(limit, key, !perAddress));
        endpoints.push(true);
      }
    }
    const counted = await Promise.all(asked);

    const refusing = counted.find((c) => c !== undefined && c.hits > c.limit.limit);
    if (refusing) {
      const { name, limit } = refusing.limit;
      res.setHeader('Retry-After', String(secondsUntil(refusing.resetTime)));
      announce(res, limit, 0, refusing.resetTime);
      onRefused?.(name);
      throw new ApiError('rate_limited', { detail: `More than ${limit} requests in ${windowSeconds} s ${SCOPES[name]}. Try again after the time in Retry-After.` });
    }
    // Endpoint limits announce whichever has the fewest requests left.
    let tightest: { limit: number; remaining: number; resetTime?: Date } | undefined;
    for (let i = 0; i < counted.length; i++) {
      const c = counted[i];
      if (!endpoints[i] || c === undefined) continue;
      const remaining = Math.max(0, c.limit.limit - c.hits);
      if (!tightest || remaining < tightest.remaining) tightest = { limit: c.limit.limit, remaining, resetTime: c.resetTime };
    }
    if (tightest) announce(res, tightest.limit, tightest.remaining, tightest.resetTime);
    if (failures.length > 0) res.locals[FAILURE_KEYS] = failureKeys;
    if (appBudget) res.locals[APP_BUDGET] = appBudget;
  };

  return (req, res, next) => {
    const secret = header(req, 'apisecret') !== undefined;
    const management = header(req, 'managementkey') !== undefined;
    const failures = secret ? (management ? failuresOfBoth : failuresOf.secret) : management ? failuresOf.management : failuresOf.none;
    const endpoint = isPublicPath(req.path) ? publicLimits : isPrivateLimitedPath(req.path) ? privateLimits : isWebhookSendPath(req.path) ? webhookSendLimits : noEndpoint;
    // Most requests (health probes, the document) pass no limit at all.
    if (failures === failuresOf.none && endpoint === noEndpoint) {
      next();
      return;
    }
    check(req, res, failures, endpoint).then(() => next(), next);
  };
}
