import type { Request } from 'express';
import { Strategy as CustomStrategy } from 'passport-custom';
import { explainOriginRefusal, type OriginRefusalCause } from '../shared/explainOriginRefusal';
import type { ProblemBody } from '../shared/problem';
import type { VerifyTokenType } from '../shared/tokens';
import type { VerifiedUser } from './apiTypes';
import type { PasswordlessClient } from './client';
import { isServiceRefusal } from './errors';
import { HostProblem } from './errorCodes';
import { isVerifyTokenShaped } from './tokenShape';

/**
 * Finds the local user a verified token belongs to; a falsy answer fails the sign-in (401). It may
 * throw a HostProblem to fail with that problem instead (e.g. a sign-up that cannot complete).
 */
export type AccountLookup<U> = (verified: VerifiedUser, req: Request) => Promise<U | null | undefined | false>;

/** Why a verified token was not accepted, as the host's logger hears it (never the token itself). */
export interface TokenRefusal {
  reason: 'type' | 'purpose' | 'origin';
  type: VerifyTokenType;
  origin: string | null;
  purpose: string | null;
  /** For an origin refusal: the host's origins, the likely cause, and what to change (for the log only). */
  expectedOrigins?: readonly string[];
  cause?: OriginRefusalCause;
  hint?: string;
}

export interface PasswordlessStrategyOptions {
  client: PasswordlessClient;
  /** The name passport knows the strategy by (`SignInScheme`). Default `Identity.Application`. */
  name?: string;
  /**
   * The origins a browser-made token must have been made on (the host's own pages), from the
   * host's configuration. A token made by script on another origin under the same RP ID (a sibling
   * subdomain) is refused. Required: a request's Host header is the visitor's to choose, so it is
   * never the default.
   */
  expectedOrigins: readonly string[] | ((req: Request) => readonly string[]);
  /** The purposes a sign-in token may carry. Default `['sign-in']`: a `step-up` or custom-purpose token does not sign in. */
  purposes?: readonly string[];
  /**
   * Also accept `passkey_register` tokens, so that a sign-up ends signed in; `lookup` then decides
   * (the middleware completes the session's pending sign-up). Default true.
   */
  signInAfterRegister?: boolean;
  /** Further token types to accept, e.g. `magic_link` for a host's own magic-link route. */
  alsoAccept?: VerifyTokenType[];
  /** Hears of each token refused for its type, purpose or origin. */
  onRefused?: (refusal: TokenRefusal, req: Request) => void;
}

/** What `fail` carries: the problem to answer with (its `status` included). */
export interface PasswordlessFailure {
  problem: ProblemBody;
}

/** Passes `info` to passport's success: what the service verified. */
export interface PasswordlessSuccessInfo {
  verified: VerifiedUser;
}

const failure = (problem: ProblemBody): PasswordlessFailure => ({ problem });

/** Token types made by a passkey ceremony in a browser: they carry the origin it ran on. */
const CEREMONY_TYPES = new Set<VerifyTokenType>(['passkey_signin', 'passkey_register']);
/** Token types that carry the purpose of the sign-in they prove. */
const PURPOSED_TYPES = new Set<VerifyTokenType>(['passkey_signin', 'generated_signin']);

const REFUSED: Record<TokenRefusal['reason'], (refusal: TokenRefusal) => string> = {
  type: (r) => `A ${r.type} token cannot be used to sign in here.`,
  purpose: (r) => `A token for the purpose '${String(r.purpose).slice(0, 64)}' cannot be used to sign in here.`,
  origin: (r) => `The token was made on ${r.origin === null ? 'no origin' : `'${r.origin.slice(0, 200)}'`}, which is not one of this site's origins.`,
};

function refusalOf(verified: VerifiedUser, req: Request, accept: TokenAcceptance): TokenRefusal | undefined {
  const refuse = (reason: TokenRefusal['reason']): TokenRefusal => ({ reason, type: verified.type, origin: verified.origin, purpose: verified.purpose });
  if (!accept.types.has(verified.type)) return refuse('type');
  if (PURPOSED_TYPES.has(verified.type) && !accept.purposes.includes(verified.purpose ?? 'sign-in')) return refuse('purpose');
  if (CEREMONY_TYPES.has(verified.type)) {
    const expectedOrigins = accept.expectedOrigins(req);
    if (verified.origin === null || !expectedOrigins.includes(verified.origin)) {
      // How the request reached Express tells a proxy without `trust proxy` apart: read for the log, never used to decide.
      const request = { protocol: req.protocol, forwardedProto: req.get('x-forwarded-proto') };
      const { cause, hint } = explainOriginRefusal({ expected: expectedOrigins, received: verified.origin, request, setting: 'Passwordless__Origins' });
      return { ...refuse('origin'), expectedOrigins, cause, hint };
    }
  }
  return undefined;
}

/**
 * A Passport strategy for passkey sign-in through the service: it reads `token` from the body,
 * checks its shape, verifies it with `/signin/verify`, requires `success`, an accepted type and
 * purpose and one of the host's origins, and leaves finding the local user to `lookup`, as
 * passport strategies do. Outcomes:
 * - success(user, {verified});
 * - fail({problem}) for anything the caller got wrong: no token, a malformed or refused token (the
 *   service's own problem, e.g. `expired_token`), a token not accepted here, an unknown user;
 * - error(err) when the service could not be asked (unreachable, it refused our credentials, or
 *   it answered something that is not the service's own problem).
 * Used by `passwordless()`'s login route, and with `passport.authenticate(name)` in a host's own
 * route (where passport answers every failure with 401).
 */
export class PasswordlessStrategy<U = unknown> extends CustomStrategy {
  constructor(options: PasswordlessStrategyOptions, lookup: AccountLookup<U>) {
    const origins = options.expectedOrigins;
    if (typeof origins !== 'function' && (!Array.isArray(origins) || origins.length === 0)) {
      throw new TypeError("PasswordlessStrategy needs expectedOrigins: your pages' web origins, from configuration (never from a request's Host header).");
    }
    const accept: TokenAcceptance = {
      types: new Set<VerifyTokenType>(['passkey_signin', ...(options.signInAfterRegister === false ? [] : ['passkey_register' as const]), ...(options.alsoAccept ?? [])]),
      purposes: options.purposes ?? ['sign-in'],
      expectedOrigins: typeof origins === 'function' ? origins : () => origins,
      onRefused: options.onRefused,
    };
    super((req, done) => {
      signIn(options, accept, lookup, req).then(
        (outcome) => ('user' in outcome ? done(null, outcome.user, outcome.info) : done(null, false, outcome.failure)),
        (error: unknown) => done(error),
      );
    });
    // passport.use(strategy) registers a strategy under its name; passport-custom's is fixed at 'custom'.
    Object.defineProperty(this, 'name', { value: options.name ?? 'Identity.Application' });
  }
}

type Outcome<U> = { user: U; info: PasswordlessSuccessInfo } | { failure: PasswordlessFailure };

/** The rules a verified token is held to: its types, purposes and origins. */
export interface TokenAcceptance {
  types: ReadonlySet<VerifyTokenType>;
  purposes: readonly string[];
  expectedOrigins: (req: Request) => readonly string[];
  onRefused?: (refusal: TokenRefusal, req: Request) => void;
}

/**
 * Checks `token` as every route that takes a sign-in result does: its shape (junk costs no service
 * call), then `/signin/verify`, `success`, and the acceptance rules. Resolves with what the service
 * verified or the problem to fail with; rejects when the service could not be asked.
 */
export async function acceptedToken(client: PasswordlessClient, token: unknown, accept: TokenAcceptance, req: Request): Promise<{ verified: VerifiedUser } | { failure: PasswordlessFailure }> {
  if (typeof token !== 'string' || token.trim() === '') return { failure: failure(new HostProblem('missing_token').problem) };
  // Checked here so that a registration token pasted by mistake, or junk, costs no round trip.
  if (!isVerifyTokenShaped(token)) return { failure: failure(new HostProblem('invalid_token').problem) };
  let verified: VerifiedUser;
  try {
    verified = await client.verifyToken(token);
  } catch (error) {
    if (isServiceRefusal(error)) return { failure: failure(error.problem) };
    throw error;
  }
  if (verified.success !== true) return { failure: failure(new HostProblem('sign_in_failed').problem) };
  const refusal = refusalOf(verified, req, accept);
  if (refusal) {
    accept.onRefused?.(refusal, req);
    return { failure: failure(new HostProblem('token_not_accepted', REFUSED[refusal.reason](refusal)).problem) };
  }
  return { verified };
}

async function signIn<U>(options: PasswordlessStrategyOptions, accept: TokenAcceptance, lookup: AccountLookup<U>, req: Request): Promise<Outcome<U>> {
  const checked = await acceptedToken(options.client, (req.body as { token?: unknown } | undefined)?.token, accept, req);
  if ('failure' in checked) return checked;
  const { verified } = checked;
  let user: U | null | undefined | false;
  try {
    user = await lookup(verified, req);
  } catch (error) {
    if (error instanceof HostProblem) return { failure: failure(error.problem) };
    throw error;
  }
  if (!user) return { failure: failure(new HostProblem('unknown_user').problem) };
  return { user, info: { verified } };
}
