import type { RequestHandler } from 'express';
import { rateLimit, type Store } from 'express-rate-limit';
import { HostProblem } from './errorCodes';

/** How much one client address may ask of the middleware's routes in one window. */
export interface ThrottleSettings {
  /** The window, in milliseconds. Default one minute. */
  windowMs: number;
  /** Sign-up and email verification: each makes a registration token or sends a mail. Default 5. */
  signUp: number;
  /** Sign-in (each login costs a token check at the service). Default 20. */
  signIn: number;
  /** The signed-in user's own routes (passkeys, step-up; sign-out is never throttled). Default 30. */
  account: number;
  /** Recovery requests and confirmations. Default 5. */
  recover: number;
  /**
   * At most one verification and one recovery mail to an email address in this many seconds,
   * whoever asks: repeats are absorbed silently (the route still answers 202), so that nobody can
   * flood a mailbox or make its owner's own request fail. Default 300; 0 turns it off.
   */
  secondsBetweenMailsPerAddress: number;
  /**
   * Where the counts are kept: express-rate-limit's memory store by default (one host process);
   * a shared store (e.g. rate-limit-redis) when the host runs several processes.
   */
  store?: () => Store;
}

export const DEFAULT_THROTTLE: ThrottleSettings = { windowMs: 60_000, signUp: 5, signIn: 20, account: 30, recover: 5, secondsBetweenMailsPerAddress: 300 };

export type ThrottleGroup = 'signUp' | 'signIn' | 'account' | 'recover';

function limiter(name: string, windowMs: number, limit: number, settings: ThrottleSettings): RequestHandler {
  return rateLimit({
    windowMs,
    limit,
    standardHeaders: 'draft-8',
    legacyHeaders: false,
    identifier: name,
    // Each limiter counts in a store of its own: a shared store keeps them apart by prefix.
    ...(settings.store ? { store: settings.store() } : {}),
    handler: (_req, _res, next) => {
      next(new HostProblem('rate_limited', `Too many requests from this address; try again after the time in Retry-After.`));
    },
  });
}

/**
 * Per client address (Express's `req.ip`, so the host's `trust proxy` decides who the client is;
 * IPv6 counts per /56), one limiter for each group of routes. Refusals are 429 problems with
 * Retry-After, before the route costs the service anything.
 */
export function throttles(settings: ThrottleSettings): Record<ThrottleGroup, RequestHandler> {
  return {
    signUp: limiter('passwordless-sign-up', settings.windowMs, settings.signUp, settings),
    signIn: limiter('passwordless-sign-in', settings.windowMs, settings.signIn, settings),
    account: limiter('passwordless-account', settings.windowMs, settings.account, settings),
    recover: limiter('passwordless-recover', settings.windowMs, settings.recover, settings),
  };
}
