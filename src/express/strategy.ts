import type { Request } from 'express';
import { Strategy as CustomStrategy } from 'passport-custom';
import type { ProblemBody } from '../shared/problem';
import { TOKEN_PREFIXES, type VerifyTokenType } from '../shared/tokens';
import type { VerifiedUser } from './apiTypes';
import type { PasswordlessClient } from './client';
import { PasswordlessApiError } from './errors';
import { HostProblem } from './errorCodes';

/** Finds the local user a verified token belongs to; a falsy answer fails the sign-in (401). */
export type AccountLookup<U> = (verified: VerifiedUser, req: Request) => Promise<U | null | undefined | false>;

export interface PasswordlessStrategyOptions {
  client: PasswordlessClient;
  /** The name passport knows the strategy by (`SignInScheme`). Default `Identity.Application`. */
  name?: string;
  /**
   * Also accept `passkey_register` tokens, so that a sign-up ends signed in. Default true.
   * `passkey_signin` is always accepted.
   */
  signInAfterRegister?: boolean;
  /** Further token types to accept, e.g. `magic_link` for a host's own magic-link route. */
  alsoAccept?: VerifyTokenType[];
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

/**
 * A Passport strategy for passkey sign-in through the service: it reads `token` from the body,
 * verifies it with `/signin/verify`, requires `success` and an accepted token type, and leaves
 * finding the local user to `lookup`, as passport strategies do. Outcomes:
 * - success(user, {verified});
 * - fail({problem}) for anything the caller got wrong: no token, a refused token (the service's own
 *   problem, e.g. `expired_token`), a token type not accepted, an unknown user;
 * - error(err) when the service could not be asked (unreachable, or it refused our credentials).
 * Used by `passwordless()`'s login route, and with `passport.authenticate(name)` in a host's own
 * route (where passport answers every failure with 401).
 */
export class PasswordlessStrategy<U = unknown> extends CustomStrategy {
  constructor(options: PasswordlessStrategyOptions, lookup: AccountLookup<U>) {
    const accepted = new Set<VerifyTokenType>(['passkey_signin', ...(options.signInAfterRegister === false ? [] : ['passkey_register' as const]), ...(options.alsoAccept ?? [])]);
    super((req, done) => {
      signIn(options.client, accepted, lookup, req).then(
        (outcome) => ('user' in outcome ? done(null, outcome.user, outcome.info) : done(null, false, outcome.failure)),
        (error: unknown) => done(error),
      );
    });
    // passport.use(strategy) registers a strategy under its name; passport-custom's is fixed at 'custom'.
    Object.defineProperty(this, 'name', { value: options.name ?? 'Identity.Application' });
  }
}

type Outcome<U> = { user: U; info: PasswordlessSuccessInfo } | { failure: PasswordlessFailure };

async function signIn<U>(client: PasswordlessClient, accepted: Set<VerifyTokenType>, lookup: AccountLookup<U>, req: Request): Promise<Outcome<U>> {
  const token = (req.body as { token?: unknown } | undefined)?.token;
  if (typeof token !== 'string' || token.trim() === '') return { failure: failure(new HostProblem('missing_token').problem) };
  // Checked here so that a registration token pasted by mistake costs no round trip.
  if (!token.startsWith(TOKEN_PREFIXES.verify)) return { failure: failure(new HostProblem('invalid_token').problem) };
  let verified: VerifiedUser;
  try {
    verified = await client.verifyToken(token);
  } catch (error) {
    // A 4xx about the token is the caller's; a 401 means the service refused *our* ApiSecret.
    if (error instanceof PasswordlessApiError && error.status >= 400 && error.status < 500 && error.status !== 401) return { failure: failure(error.problem) };
    throw error;
  }
  if (verified.success !== true) return { failure: failure(new HostProblem('sign_in_failed').problem) };
  if (!accepted.has(verified.type)) {
    return { failure: failure(new HostProblem('token_not_accepted', `A ${verified.type} token cannot be used to sign in here.`).problem) };
  }
  const user = await lookup(verified, req);
  if (!user) return { failure: failure(new HostProblem('unknown_user').problem) };
  return { user, info: { verified } };
}
