import type { PasswordlessClient } from './client';
import { signSignUpClaim, type SignUpClaim } from './signUpLink';

/** The purpose of the single-use token a recovery link carries. */
export const RECOVERY_PURPOSE = 'recovery';

/** Where a link lands and how long it works. */
export interface LinkTarget {
  /** The host's configured public base (never a request's Host header), without a trailing slash. */
  base: string;
  /** The path of the middleware's route the link opens. */
  path: string;
  linkLifetimeSeconds: number;
}

/**
 * Mails the sign-up verification link: the signed sign-up claim and the service's magic-link token
 * (`$TOKEN`, proof that the mailbox was reached), to the verify-email route on the host's base.
 */
export async function mailSignUpLink(client: PasswordlessClient, apiSecret: string, target: LinkTarget, claim: SignUpClaim): Promise<void> {
  const signUp = signSignUpClaim(claim, apiSecret);
  await client.sendMagicLink({
    emailAddress: claim.email,
    urlTemplate: `${target.base}${target.path}?signup=${signUp}&token=$TOKEN`,
    userId: claim.userId,
    timeToLive: target.linkLifetimeSeconds,
  });
}

/**
 * Mails a recovery link to `email`, the address of `userId`. The link carries two tokens of the
 * service: the magic link's (`$TOKEN`, proving the mailbox was reached) and a generated sign-in
 * token of purpose `recovery`, which the service redeems once: so the link signs in once, although
 * magic-link tokens stay valid until they expire.
 */
export async function mailRecoveryLink(client: PasswordlessClient, target: LinkTarget, userId: string, email: string): Promise<void> {
  const { token: once } = await client.generateAuthenticationToken({ userId, timeToLive: target.linkLifetimeSeconds, purpose: RECOVERY_PURPOSE });
  await client.sendMagicLink({
    emailAddress: email,
    urlTemplate: `${target.base}${target.path}?recovery=${once}&token=$TOKEN`,
    userId,
    timeToLive: target.linkLifetimeSeconds,
  });
}

/**
 * Tells the owner of `email`, who has an account already, that someone (most likely they) tried to
 * sign up with it: a link to the host's page, which says so and offers to sign in. Nothing in it
 * signs in (the magic-link token it must carry is one the login route never accepts).
 */
export async function mailAccountExistsLink(client: PasswordlessClient, target: Omit<LinkTarget, 'path'> & { page: string }, userId: string, email: string): Promise<void> {
  await client.sendMagicLink({
    emailAddress: email,
    urlTemplate: `${target.base}${target.page}#passwordless-account-exists=1&token=$TOKEN`,
    userId,
    timeToLive: target.linkLifetimeSeconds,
  });
}
