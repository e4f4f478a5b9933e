import { convertCertBufferToPEM, decodeAttestationObject, validateCertificatePath } from '@simplewebauthn/server/helpers';
import type { MetadataEntry } from './verifyMetadataBlob';

/**
 * How far an attestation vouches for its authenticator, judged against the FIDO metadata:
 * - `verified`: its certificate chain reaches a root the metadata lists for its AAGUID;
 * - `unverifiable`: nothing to check (no certificate chain, as with `none` or self attestation,
 *   or no metadata entry for the AAGUID);
 * - `untrusted`: a chain was given for an authenticator the metadata knows, and it does not reach
 *   any of that authenticator's roots (`reason` says why).
 */
/** Longer chains are refused unread: real ones are a certificate and an intermediate or two, and building a path costs per certificate. */
export const MAX_CHAIN_LENGTH = 5;

export type AttestationTrust = { verdict: 'verified' } | { verdict: 'unverifiable' } | { verdict: 'untrusted'; reason: string };

/**
 * Checks the `x5c` chain of an attestation statement that SimpleWebAuthn has already verified
 * (its signature made by the chain's first certificate) against the metadata entry's roots.
 */
export async function attestationTrustOf(entry: MetadataEntry | undefined, attestationObject: Parameters<typeof decodeAttestationObject>[0]): Promise<AttestationTrust> {
  const x5c = decodeAttestationObject(attestationObject).get('attStmt').get('x5c');
  if (!x5c?.length || !entry) return { verdict: 'unverifiable' };
  if (x5c.length > MAX_CHAIN_LENGTH) return { verdict: 'untrusted', reason: `the certificate chain is longer than ${MAX_CHAIN_LENGTH} certificates` };
  if (entry.attestationRootCertificates.length === 0) return { verdict: 'untrusted', reason: 'the metadata lists no attestation root for this authenticator' };
  const chain = x5c.map((certificate) => convertCertBufferToPEM(certificate));
  const roots = entry.attestationRootCertificates.map((certificate) => convertCertBufferToPEM(certificate));
  // A single certificate that is itself one of the roots vouches for itself.
  if (chain.length === 1 && roots.includes(chain[0])) return { verdict: 'verified' };
  try {
    await validateCertificatePath(chain, roots);
    return { verdict: 'verified' };
  } catch (error) {
    return { verdict: 'untrusted', reason: (error as Error)?.message?.split('\n')[0] || 'the certificate chain could not be validated' };
  }
}
