import { createPublicKey, type JsonWebKey } from 'node:crypto';
import { decodeCredentialPublicKey } from '@simplewebauthn/server/helpers';

// COSE key parameters (RFC 9053): kty 1, crv/n -1, x/e -2, y -3.
const KTY = 1;
const EC2_CURVES: Record<number, string> = { 1: 'P-256', 2: 'P-384', 3: 'P-521' };
const MIN_RSA_BITS = 2048;

/** The bits of an unsigned big-endian integer, leading zeros left out. */
function bitLength(bytes: Uint8Array): number {
  const first = bytes.findIndex((byte) => byte !== 0);
  return first < 0 ? 0 : (bytes.length - first - 1) * 8 + (32 - Math.clz32(bytes[first]));
}

const b64url = (value: unknown) => (value instanceof Uint8Array ? Buffer.from(value).toString('base64url') : undefined);

function toJwk(coseKey: Uint8Array): JsonWebKey | undefined {
  const key = decodeCredentialPublicKey(new Uint8Array(coseKey)) as unknown as Map<number, unknown>;
  switch (key.get(KTY)) {
    case 2:
      return { kty: 'EC', crv: EC2_CURVES[key.get(-1) as number], x: b64url(key.get(-2)), y: b64url(key.get(-3)) };
    case 1:
      return key.get(-1) === 6 ? { kty: 'OKP', crv: 'Ed25519', x: b64url(key.get(-2)) } : undefined;
    case 3: {
      const modulus = key.get(-1);
      const bits = modulus instanceof Uint8Array ? bitLength(modulus) : 0;
      return bits >= MIN_RSA_BITS ? { kty: 'RSA', n: b64url(modulus), e: b64url(key.get(-2)) } : undefined;
    }
    default:
      return undefined;
  }
}

/**
 * Whether a credential's COSE public key can ever verify a signature: a point on its curve, an
 * Ed25519 key of the right size, or an RSA modulus of at least 2048 bits. With attestation
 * `none`, nothing else would notice a broken key before every sign-in failed.
 */
export function isUsablePublicKey(coseKey: Uint8Array): boolean {
  try {
    const jwk = toJwk(coseKey);
    if (!jwk) return false;
    createPublicKey({ key: jwk, format: 'jwk' });
    return true;
  } catch {
    return false;
  }
}
