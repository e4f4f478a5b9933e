import type { Request } from 'express';
import type { VerifiedUser } from './apiTypes';
import type { PasswordlessClient } from './client';
import { HostProblem } from './errorCodes';
import { dropSignUp, pendingSignUpFor } from './pendingSignUp';
import type { HostLogger } from './routes/context';
import { UserExistsError, type LocalUser, type UserStore } from './userStore';

export interface SignUpCompletionContext<U extends LocalUser> {
  users: UserStore<U>;
  client: PasswordlessClient;
  /** The local user whose service userId this is, if any. */
  findUser(userId: string): Promise<U | null | undefined>;
  userIdOf(user: unknown): string | undefined;
  emailAsAlias: boolean;
  aliasHashing: boolean;
  logger: HostLogger;
  now(): number;
}

/**
 * Turns the session's pending sign-up into a user, now that a `passkey_register` token proves its
 * passkey exists: the user is created with the userId the passkey was registered under, then its
 * aliases (the email address) are set. Whatever fails on the way is undone, the new passkey
 * included, so that no credential is left for a user that does not exist and nothing half-made
 * stays in the user store. Throws a HostProblem for what the visitor can act on.
 */
export async function completeSignUp<U extends LocalUser>(ctx: SignUpCompletionContext<U>, req: Request, verified: VerifiedUser): Promise<U> {
  const pending = pendingSignUpFor(req, verified.userId, ctx.now());
  if (!pending) throw new HostProblem('token_not_accepted', 'No sign-up for this passkey is pending in this session: it expired, or was started elsewhere.');
  const removePasskey = () => deleteCredentialQuietly(ctx, verified, 'a passkey whose sign-up did not complete');
  if (await ctx.findUser(pending.userId)) {
    // The sign-up was completed already (e.g. its verification link used twice): this second
    // passkey was not made by the user who completed it.
    dropSignUp(req);
    await removePasskey();
    throw new HostProblem('token_not_accepted', 'This sign-up was completed already.');
  }
  let user: U;
  try {
    user = await ctx.users.create({ userId: pending.userId, email: pending.email, username: pending.username, displayName: pending.displayName });
  } catch (error) {
    if (!(error instanceof UserExistsError)) throw error;
    dropSignUp(req);
    await removePasskey();
    throw new HostProblem('user_exists', 'The email address was taken while the passkey was made; that passkey was removed again.');
  }
  try {
    if (ctx.userIdOf(user) !== pending.userId) throw new Error('The user store created a user without the userId it was given (NewUser.userId): see UserIdClaimType.');
    const aliases = [...new Set([...(ctx.emailAsAlias ? [pending.email] : []), ...pending.aliases])];
    if (aliases.length > 0) await ctx.client.setAliases({ userId: pending.userId, aliases, hashing: ctx.aliasHashing });
  } catch (error) {
    await removeUserQuietly(ctx, user, error);
    await removePasskey();
    dropSignUp(req);
    throw error;
  }
  dropSignUp(req);
  return user;
}

async function deleteCredentialQuietly<U extends LocalUser>(ctx: SignUpCompletionContext<U>, verified: VerifiedUser, what: string): Promise<void> {
  if (verified.credentialId === null) return;
  try {
    await ctx.client.deleteCredential(verified.credentialId);
  } catch (error) {
    ctx.logger.error({ err: { name: (error as Error)?.name, message: (error as Error)?.message }, userId: verified.userId }, `passwordless: could not delete ${what}`);
  }
}

async function removeUserQuietly<U extends LocalUser>(ctx: SignUpCompletionContext<U>, user: U, cause: unknown): Promise<void> {
  try {
    await ctx.users.remove(user.id);
  } catch (removal) {
    ctx.logger.error({ err: removal, cause: (cause as Error)?.message, userId: user.id }, 'passwordless: could not remove a user whose sign-up failed');
  }
}
