import type { VerifiedUser } from './apiTypes';

/**
 * The credential id of a verified token as passkey lists name it (base64url): the service's
 * verification result carries it in standard base64, as the reference's does.
 */
export function credentialIdOf(verified: Pick<VerifiedUser, 'credentialId'>): string | undefined {
  return verified.credentialId === null ? undefined : Buffer.from(verified.credentialId, 'base64').toString('base64url');
}
