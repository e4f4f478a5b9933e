import { PasswordlessApiError } from './errors';
import { registerRequest } from './registerRequest';
import type { RouteContext } from './routes/context';
import type { LocalUser } from './userStore';

/**
 * A token for another passkey of a signed-in user lives at most this long (`Register__Expiration`
 * when that is shorter): its page uses it at once, and the middleware looks for its passkey when
 * it expires (newPasskeys.ts), which a token living for days would put off as long.
 */
export const ACCOUNT_TOKEN_MAX_SECONDS = 600;

export interface AccountTokenRequest<U extends LocalUser> {
  user: U;
  userId: string;
  /** The new passkey's display name; default the user's. */
  displayName?: string | null;
  /** An upgrade token (the browser may begin it as a conditional create). */
  upgrade?: boolean;
  /** A password proof the service spends on this token, once (see passwordSignIn.ts). */
  proofId?: string;
}

/**
 * A registration token for another passkey of the signed-in user, with the aliases left as they
 * are, once the route has checked the user's proof. The user's passkeys are listed first, so that
 * whatever passkey the token makes is known as new and the host hears of it whether or not the
 * browser reports it. Resolves undefined when the service refused `proofId` as spent (a racing
 * request with the same proof got the token).
 */
export async function accountRegisterToken<U extends LocalUser>(ctx: RouteContext<U>, request: AccountTokenRequest<U>): Promise<string | undefined> {
  const { user, userId } = request;
  const username = user.username || user.email || userId;
  const known = (await ctx.client.listCredentials(userId)).map((credential) => credential.descriptor.id);
  // Real time, as the service reads the expiry (the test clock `now` is the middleware's rules').
  const issuedAt = Date.now();
  const expirationSeconds = Math.min(ctx.settings.register.expirationSeconds, ACCOUNT_TOKEN_MAX_SECONDS);
  const options = registerRequest({ ...ctx.settings.register, expirationSeconds }, { userId, username, displayName: request.displayName || user.displayName || username, aliases: [] }, issuedAt);
  let token: string;
  try {
    ({ token } = await ctx.client.createRegisterToken({ ...options, ...(request.upgrade ? { upgrade: true } : {}), ...(request.proofId === undefined ? {} : { proofId: request.proofId }) }));
  } catch (error) {
    if (request.proofId !== undefined && error instanceof PasswordlessApiError && error.errorCode === 'proof_already_used') return undefined;
    throw error;
  }
  ctx.newPasskeys.watch(userId, known, issuedAt + expirationSeconds * 1000);
  return token;
}
