import { timeOrderedUuid } from '../../core/timeOrderedUuid';
import { z } from 'zod';
import { payloadTime, tokenPayload } from './tokenService';
import { base64UrlToBase64 } from '../../webauthn/encoding';
import { VERIFY_TOKEN_TYPES } from '../../../shared/tokens';

/** What a `verify_` token carries; `/signin/verify` turns it into the verification result. */
export const verifyTokenPayloadSchema = tokenPayload({
  /** Recorded when a single-use token is redeemed. */
  tokenId: z.uuid(),
  type: z.enum(VERIFY_TOKEN_TYPES),
  userId: z.string(),
  /** Issued at, epoch ms. */
  iat: payloadTime(),
  rpId: z.string().nullable(),
  origin: z.string().nullable(),
  device: z.string().nullable(),
  country: z.string().nullable(),
  nickname: z.string().nullable(),
  /** base64url */
  credentialId: z.string().nullable(),
  purpose: z.string().nullable(),
  backupEligible: z.boolean().nullable(),
  backupState: z.boolean().nullable(),
});
export type VerifyTokenPayload = z.output<typeof verifyTokenPayloadSchema>;

export function newVerifyPayload(
  fields: Omit<VerifyTokenPayload, 'tokenId' | 'iat' | 'exp'> & { ttlSeconds: number },
  now = Date.now(),
): VerifyTokenPayload {
  const { ttlSeconds, ...rest } = fields;
  return { ...rest, tokenId: timeOrderedUuid(now), iat: now, exp: now + ttlSeconds * 1000 };
}

/** The spec's verification result plus `rpId`, `credentialId` (standard base64), `purpose` and backup flags. */
export function verificationResult(p: VerifyTokenPayload) {
  return {
    success: true,
    userId: p.userId,
    timestamp: new Date(p.iat).toISOString(),
    rpid: p.rpId,
    rpId: p.rpId,
    origin: p.origin,
    device: p.device,
    country: p.country,
    nickname: p.nickname,
    credentialId: p.credentialId === null ? null : base64UrlToBase64(p.credentialId),
    expiresAt: new Date(p.exp).toISOString(),
    tokenId: p.tokenId,
    type: p.type,
    purpose: p.purpose,
    backupEligible: p.backupEligible,
    backupState: p.backupState,
  };
}
