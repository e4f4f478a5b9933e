import { createHash } from 'node:crypto';
import { ApiError } from '../../core/apiError';
import type { RedemptionRepository } from '../../store/repositories';

// A register_ token registers one passkey. It is redeemed in the unit that stores the passkey
// (NewRegistration.redeemedToken), so a registration that fails verification does not use it up
// and the browser client's retry with the same token works, through the RedeemedToken rows verify
// tokens are redeemed with.
// register/begin refuses a token already redeemed, before the browser is asked to make a passkey
// that could not be stored.

/**
 * The id a register_ token is redeemed under: a digest of its MAC, which is unique to the token
 * (tokens issued before this existed included) and which only this service can make. Only for a
 * token that `TokenService.open` accepted.
 */
export function registerTokenIdOf(token: string): string {
  return `register:${createHash('sha256').update(token.slice(token.lastIndexOf('.') + 1)).digest('base64url')}`;
}

export const registerTokenAlreadyUsed = () =>
  new ApiError('token_already_used', {
    title: 'This registration token was already used. A registration token registers one passkey.',
    detail: 'Ask your backend for a new registration token (POST /register/token).',
  });

/** Refuses a register_ token that already registered a passkey: one primary-key read. */
export async function assertRegisterTokenUnused(redemptions: RedemptionRepository, appId: string, tokenId: string): Promise<void> {
  if (await redemptions.isRedeemed(appId, tokenId)) throw registerTokenAlreadyUsed();
}
