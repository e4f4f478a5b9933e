import type { Request, RequestHandler } from 'express';
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
  /** The signed-in user's own routes (passkeys, step-up, sign-out). Default 30. */
  account: number;
  /** Recovery requests and confirmations. Default 5. */
  recover: number;
  /** Verification and recovery mails to one email address per hour, whoever asks (each kind counted apart). Default 3. */
  mailsPerAddressPerHour: number;
  /**
   * Where the counts are kept: express-rate-limit's memory store by default (one host process);
   * a shared store (e.g. rate-limit-redis) when the host runs several processes.
   */
  store?: () => Store;
}

export const DEFAULT_THROTTLE: ThrottleSettings = { windowMs: 60_000, signUp: 5, signIn: 20, account: 30, recover: 5, mailsPerAddressPerHour: 3 };

export type ThrottleGroup = 'signUp' | 'signIn' | 'account' | 'recover';

const HOUR_MS = 3_600_000;

function limiter(name: string, windowMs: number, limit: number, settings: ThrottleSettings, keyGenerator?: (req: Request) => string): RequestHandler {
  return rateLimit({
    windowMs,
    limit,
    standardHeaders: 'draft-8',
    legacyHeaders: false,
    identifier: name,
    // Each limiter counts in a store of its own: a shared store keeps them apart by prefix.
    ...(settings.store ? { store: settings.store() } : {}),
    ...(keyGenerator ? { keyGenerator } : {}),
    handler: (_req, _res, next) => {
      next(new HostProblem('rate_limited', `Too many requests ${keyGenerator ? 'for this email address' : 'from this address'}; try again after the time in Retry-After.`));
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

/**
 * Verification mails per email address and hour, whoever asks: a flood of sign-ups for one
 * address from many client addresses still sends that address only a few mails. `emailOf` reads
 * the (already validated) address of the request.
 */
export function mailThrottle(settings: ThrottleSettings, kind: string, emailOf: (req: Request) => string): RequestHandler {
  return limiter(`passwordless-${kind}-mails`, HOUR_MS, settings.mailsPerAddressPerHour, settings, (req) => `email:${emailOf(req)}`);
}
