import { Router, type Request, type RequestHandler, type Response } from 'express';
import { rateLimit, ipKeyGenerator, type Store } from 'express-rate-limit';
import type { Logger } from 'pino';
import type { RateLimits } from '../config';
import type { RedisConnection } from '../redis/connection';
import { parseKey } from '../../shared/apiKeys';
import { PUBLIC_PATHS, publicCors } from './cors';
import { ApiError } from './problem';
import { FailureStore, limitStore } from './rateLimitStores';

/** The endpoints a backend calls with its ApiSecret that cost the most or send mail. */
const PRIVATE_PATHS = ['/signin/verify', '/signin/generate-token', '/magic-links/send'];
/** Each generation of the API, at `/` and under `/api`. */
const PREFIXES = ['', '/api', '/v3', '/api/v3'];
const everywhere = (paths: string[]) => PREFIXES.flatMap((prefix) => paths.map((path) => prefix + path));

export type LimitName = 'public_ip' | 'public_app' | 'private_ip' | 'private_app' | 'auth_failures_ip' | 'auth_failures_app';

export interface RateLimitOptions {
  limits: RateLimits;
  redis: RedisConnection | undefined;
  redisKeyPrefix: string;
  logger: Logger;
  /** Told of every refusal (metrics). */
  onRefused?: (limit: LimitName) => void;
}

function header(req: Request, name: string): string | undefined {
  const value = req.headers[name];
  return typeof value === 'string' ? value.trim() : undefined;
}

/** The client address as Express sees it under TRUST_PROXY; IPv6 clients count per /56. */
const byIp = (req: Request) => ipKeyGenerator(req.ip ?? 'unknown');

/** The app a key header claims (not yet authenticated: these limits run before the key is checked). */
const claimedApp = (name: 'apikey' | 'apisecret') => (req: Request) => {
  const value = header(req, name);
  return value === undefined ? undefined : parseKey(value)?.appId;
};

const SCOPES: Record<LimitName, string> = {
  public_ip: 'from this address',
  public_app: 'for this app',
  private_ip: 'from this address',
  private_app: 'for this app',
  auth_failures_ip: 'with a wrong ApiSecret from this address',
  auth_failures_app: 'with a wrong ApiSecret for this app',
};

/**
 * Per client IP and per app limits on the public ceremony endpoints, on verify, generate-token
 * and magic-links/send, and on failed ApiSecret authentications (counted per IP and per claimed
 * app; over the limit, a request is refused before its key is checked). Counters live in Redis
 * when REDIS_URL is set, so every replica enforces the same limits; if Redis is unreachable the
 * requests are served unlimited (the connection logs the outage once).
 */
export function rateLimits(options: RateLimitOptions): RequestHandler {
  const { limits, redis, redisKeyPrefix, logger, onRefused } = options;
  const router = Router();
  if (!limits.enabled) return router;
  // The library's own misconfiguration checks (ERR_ERL_*) are worth a warning; store failures are
  // expected during a Redis outage, which the connection reports once, so per request they are noise.
  const misconfiguration = (error: unknown) => {
    const code = (error as { code?: unknown } | undefined)?.code;
    if (typeof code === 'string' && code.startsWith('ERR_ERL_')) logger.warn({ code }, 'rate limiter misconfigured');
  };
  const quiet = { warn: misconfiguration, error: misconfiguration };

  const windowSeconds = Math.round(limits.windowMs / 1000);
  const infoOf = (req: Request, name: LimitName) => (req as unknown as Record<string, { limit: number; remaining: number; resetTime?: Date } | undefined>)[`rateLimit_${name}`];
  const secondsUntil = (reset: Date | undefined) => Math.max(1, Math.ceil(((reset?.getTime() ?? Date.now() + limits.windowMs) - Date.now()) / 1000));
  /** The draft-7 headers (RateLimit, RateLimit-Policy) of one limit. */
  const announce = (res: Response, limit: number, remaining: number, reset: Date | undefined) => {
    res.setHeader('RateLimit-Policy', `${limit};w=${windowSeconds}`);
    res.setHeader('RateLimit', `limit=${limit}, remaining=${remaining}, reset=${secondsUntil(reset)}`);
  };

  const limiter = (name: LimitName, limit: number, key: (req: Request) => string | undefined, store?: Store) =>
    rateLimit({
      windowMs: limits.windowMs,
      limit,
      store: store ?? limitStore(name, redis, redisKeyPrefix),
      // Headers are written below: a request passes several limits, and the client should see the tightest.
      standardHeaders: false,
      legacyHeaders: false,
      passOnStoreError: true,
      requestPropertyName: `rateLimit_${name}`,
      skip: (req) => key(req) === undefined,
      keyGenerator: (req) => key(req)!,
      logger: quiet,
      // Whether X-Forwarded-For is believed is TRUST_PROXY's decision, documented; no warnings about it.
      validate: { xForwardedForHeader: false, trustProxy: false, forwardedHeader: false, keyGeneratorIpFallback: false },
      handler: (req, res, next) => {
        const reset = infoOf(req, name)?.resetTime;
        res.setHeader('Retry-After', String(secondsUntil(reset)));
        announce(res, limit, 0, reset);
        onRefused?.(name);
        next(new ApiError('rate_limited', { detail: `More than ${limit} requests in ${windowSeconds} s ${SCOPES[name]}. Try again after the time in Retry-After.` }));
      },
    });

  /** Endpoint limits: the headers of whichever has the fewest requests left. */
  const endpointLimits = (paths: string[], limited: [LimitName, number, (req: Request) => string | undefined][]) => {
    const active = limited.filter(([, limit]) => limit > 0);
    if (active.length === 0) return;
    for (const [name, limit, key] of active) router.use(paths, limiter(name, limit, key));
    router.use(paths, (req, res, next) => {
      let tightest: { limit: number; remaining: number; resetTime?: Date } | undefined;
      for (const [name] of active) {
        const info = infoOf(req, name);
        if (info && (!tightest || info.remaining < tightest.remaining)) tightest = info;
      }
      if (tightest) announce(res, tightest.limit, tightest.remaining, tightest.resetTime);
      next();
    });
  };

  // Failed ApiSecret authentications, on every route that takes one.
  const hasSecret = (req: Request) => header(req, 'apisecret') !== undefined;
  const failureLimit = (name: LimitName, limit: number, key: (req: Request) => string | undefined) => {
    if (limit <= 0) return;
    const store = new FailureStore(limitStore(name, redis, redisKeyPrefix));
    const property = `rateLimit_${name}`;
    router.use(limiter(name, limit, (req) => (hasSecret(req) ? key(req) : undefined), store));
    router.use((req, res, next) => {
      const counted = (req as unknown as Record<string, { key: string } | undefined>)[property];
      if (counted) {
        res.once('finish', () => {
          if (res.statusCode === 401) store.count(counted.key).catch(() => undefined);
        });
      }
      next();
    });
  };
  failureLimit('auth_failures_ip', limits.authFailuresPerIp, byIp);
  failureLimit('auth_failures_app', limits.authFailuresPerApp, claimedApp('apisecret'));

  // The older generation answers its browser preflights inside its own router: answer them here, and put CORS on a refusal.
  router.use(everywhere(PUBLIC_PATHS), publicCors);
  endpointLimits(everywhere(PUBLIC_PATHS), [
    ['public_ip', limits.publicPerIp, byIp],
    ['public_app', limits.publicPerApp, claimedApp('apikey')],
  ]);
  endpointLimits(everywhere(PRIVATE_PATHS), [
    ['private_ip', limits.privatePerIp, byIp],
    ['private_app', limits.privatePerApp, claimedApp('apisecret')],
  ]);

  // Most requests carry no ApiSecret and go to no limited endpoint (health probes, the document,
  // the management API): they pass without being matched against each of the router's layers.
  // Express matches case-insensitively, and a `use` path also matches below itself.
  const limitedPaths = everywhere([...PUBLIC_PATHS, ...PRIVATE_PATHS]).map((path) => path.toLowerCase());
  const isLimited = (path: string) => {
    const lower = path.toLowerCase();
    return limitedPaths.some((limited) => lower === limited || lower.startsWith(`${limited}/`));
  };
  return (req, res, next) => (hasSecret(req) || isLimited(req.path) ? router(req, res, next) : next());
}
