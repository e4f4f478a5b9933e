import { randomUUID } from 'node:crypto';
import type { TokenEnvelope } from './tokens';
import { base64UrlToBase64 } from '../webauthn/encoding';

export type VerifyTokenType = 'passkey_register' | 'passkey_signin' | 'generated_signin' | 'magic_link';

/** What a `verify_` token carries; `/signin/verify` turns it into the verification result. */
export interface VerifyTokenPayload extends TokenEnvelope {
  tokenId: string;
  type: VerifyTokenType;
  userId: string;
  /** Issued at, epoch ms. */
  iat: number;
  rpId: string | null;
  origin: string | null;
  device: string | null;
  country: string | null;
  nickname: string | null;
  /** base64url */
  credentialId: string | null;
  purpose: string | null;
  backupEligible: boolean | null;
  backupState: boolean | null;
}

export function newVerifyPayload(
  fields: Omit<VerifyTokenPayload, 'tokenId' | 'iat' | 'exp'> & { ttlSeconds: number },
  now = Date.now(),
): VerifyTokenPayload {
  const { ttlSeconds, ...rest } = fields;
  return { ...rest, tokenId: randomUUID(), iat: now, exp: now + ttlSeconds * 1000 };
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
