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

/** How long a spent `proofId` stays refused: longer than any proof a host may still hold fresh (the middleware's are at most an hour old). */
export const SPENT_PROOF_RETENTION_MS = 24 * 3600_000;

/**
 * Spends the caller's proof `proofId` (register/token's extension): one insert into the redeemed
 * ids, whose primary key refuses a second, so of racing requests with one proof exactly one gets
 * past; the others are 409 `proof_already_used`. The id is namespaced apart from tokens' and sessions'.
 */
export async function spendProof(redemptions: RedemptionRepository, appId: string, proofId: string, now: number): Promise<void> {
  if (!(await redemptions.redeem(appId, `proof:${proofId}`, now + SPENT_PROOF_RETENTION_MS))) {
    throw new ApiError('proof_already_used', { detail: 'One proof of the user makes one registration token: the user must prove it is them again.' });
  }
}
