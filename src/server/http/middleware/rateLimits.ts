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
  auth_failures_ip: 'with a wrong ApiSecret from this address',
  auth_failures_app: 'with a wrong ApiSecret for this app',
};

/** What a request is counted by: its client address, or the app its key header claims. */
type KeyOf = 'ip' | 'apikey' | 'apisecret';

interface Limit {
  name: LimitName;
  limit: number;
  keyOf: KeyOf;
  store: Store;
}

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
  if (keyOf === 'ip') return ipKeyGenerator((trustsProxy ? req.ip : req.socket.remoteAddress) ?? 'unknown');
  const value = header(req, keyOf);
  return value === undefined ? undefined : parseKey(value)?.appId;
}

const NONE: Limit[] = [];
const FAILURE_KEYS = 'rateLimitFailureKeys';

/**
 * Counts a refused key against the failure limits this request passed (if it carried an
 * ApiSecret). Awaited before the refusal is answered, so that the client's next request, on any
 * replica, already sees it.
 */
export async function countAuthFailure(res: Response): Promise<void> {
  const counted = res.locals[FAILURE_KEYS] as [Limit, string][] | undefined;
  if (!counted) return;
  await Promise.all(counted.map(([limit, key]) => Promise.resolve(limit.store.increment(key)).catch(() => undefined)));
}

/**
 * Per client IP and per app limits on the public ceremony endpoints, on verify, generate-token
 * and magic-links/send, and on failed ApiSecret authentications (counted per IP and per claimed
 * app; over the limit, a request is refused before its key is checked). Counters live in Redis
 * when REDIS_URL is set, so every replica enforces the same limits; if Redis is unreachable the
 * requests are served unlimited (the connection logs the outage once).
 *
 * express-rate-limit's stores keep the counters; its middleware is not used, because a request
 * passes up to four limits and four middleware passes cost a fifth of a register/token. Here a
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
  const limitsOf = (...wanted: [LimitName, number, KeyOf][]): Limit[] =>
    wanted
      .filter(([, limit]) => limit > 0)
      .map(([name, limit, keyOf]) => {
        const store = limitStore(name, redis, redisKeyPrefix);
        Promise.resolve(store.init?.(storeOptions)).catch(misconfiguration);
        return { name, limit, keyOf, store };
      });
  // Only read before the key is checked (as if this request were one more failure); countAuthFailure adds one.
  const failureLimits = limitsOf(['auth_failures_ip', limits.authFailuresPerIp, 'ip'], ['auth_failures_app', limits.authFailuresPerApp, 'apisecret']);
  const publicLimits = limitsOf(['public_ip', limits.publicPerIp, 'ip'], ['public_app', limits.publicPerApp, 'apikey']);
  const privateLimits = limitsOf(['private_ip', limits.privatePerIp, 'ip'], ['private_app', limits.privatePerApp, 'apisecret']);

  const secondsUntil = (reset: Date | undefined) => Math.max(1, Math.ceil(((reset?.getTime() ?? Date.now() + limits.windowMs) - Date.now()) / 1000));
  /** The draft-7 headers (RateLimit, RateLimit-Policy) of one limit. */
  const announce = (res: Response, limit: number, remaining: number, reset: Date | undefined) => {
    res.setHeader('RateLimit-Policy', `${limit};w=${windowSeconds}`);
    res.setHeader('RateLimit', `limit=${limit}, remaining=${remaining}, reset=${secondsUntil(reset)}`);
  };

  /** The request's count under one limit; undefined when the store failed (the request is then served). */
  const count = async (limit: Limit, key: string, failures: boolean): Promise<Counted | undefined> => {
    try {
      if (!failures) {
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

  const check = async (req: Request, res: Response, failures: Limit[], endpoint: Limit[]): Promise<void> => {
    const keys = new Map<KeyOf, string | undefined>();
    const keyOf = (limit: Limit) => {
      if (!keys.has(limit.keyOf)) keys.set(limit.keyOf, keyFor(req, limit.keyOf, trustsProxy));
      return keys.get(limit.keyOf);
    };
    const pending: Promise<Counted | undefined>[] = [];
    const failureKeys: [Limit, string][] = [];
    for (const limit of failures) {
      const key = keyOf(limit);
      if (key === undefined) continue;
      failureKeys.push([limit, key]);
      pending.push(count(limit, key, true));
    }
    for (const limit of endpoint) {
      const key = keyOf(limit);
      if (key !== undefined) pending.push(count(limit, key, false));
    }
    const counted = await Promise.all(pending);

    // The first limit exceeded refuses (failures first: a guesser learns nothing more).
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
    for (const c of counted.slice(failureKeys.length)) {
      if (c === undefined) continue;
      const remaining = Math.max(0, c.limit.limit - c.hits);
      if (!tightest || remaining < tightest.remaining) tightest = { limit: c.limit.limit, remaining, resetTime: c.resetTime };
    }
    if (tightest) announce(res, tightest.limit, tightest.remaining, tightest.resetTime);
    if (failureKeys.length > 0) res.locals[FAILURE_KEYS] = failureKeys;
  };

  return (req, res, next) => {
    const failures = header(req, 'apisecret') !== undefined ? failureLimits : NONE;
    const endpoint = isPublicPath(req.path) ? publicLimits : isPrivateLimitedPath(req.path) ? privateLimits : NONE;
    // Most requests (health probes, the document, the management API) pass no limit at all.
    if (failures.length === 0 && endpoint.length === 0) {
      next();
      return;
    }
    check(req, res, failures, endpoint).then(() => next(), next);
  };
}
