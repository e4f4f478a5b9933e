import { generateKeyPairSync, type KeyObject } from 'node:crypto';
import { encodeCbor } from '../../../test/support/cbor';
import { createCredential, type Algorithm } from '../../../test/support/softwareAuthenticator';
import { isUsablePublicKey } from './publicKey';

type CoseKey = Map<number, number | Uint8Array>;

const bytes = (b64url: string | undefined) => Buffer.from(b64url ?? '', 'base64url');

/** The COSE key the software authenticator publishes for a new credential. */
function authenticatorKey(alg: Algorithm, options: { offCurvePublicKey?: boolean; rsaBits?: number } = {}): Buffer {
  return createCredential({ challenge: 'c', rpId: 'example.com', origin: 'https://example.com', userHandle: 'dQ', alg, ...options }).credential.cosePublicKey;
}

/** A COSE EC2 key (kty 2) of a node:crypto key, with `crv` as given. */
function ec2Key(publicKey: KeyObject, crv: number, alg: number): CoseKey {
  const jwk = publicKey.export({ format: 'jwk' });
  return new Map<number, number | Uint8Array>([
    [1, 2],
    [3, alg],
    [-1, crv],
    [-2, bytes(jwk.x)],
    [-3, bytes(jwk.y)],
  ]);
}

/** A COSE RSA key (kty 3) of a node:crypto key. */
function rsaKey(publicKey: KeyObject): CoseKey {
  const jwk = publicKey.export({ format: 'jwk' });
  return new Map<number, number | Uint8Array>([
    [1, 3],
    [3, -257],
    [-1, bytes(jwk.n)],
    [-2, bytes(jwk.e)],
  ]);
}

/** `key` without the parameter `label`. */
function without(key: CoseKey, label: number): CoseKey {
  key.delete(label);
  return key;
}

const p256 = generateKeyPairSync('ec', { namedCurve: 'P-256' }).publicKey;
const p384 = generateKeyPairSync('ec', { namedCurve: 'P-384' }).publicKey;
const p521 = generateKeyPairSync('ec', { namedCurve: 'P-521' }).publicKey;
const rsa2048 = generateKeyPairSync('rsa', { modulusLength: 2048 }).publicKey;

describe('isUsablePublicKey', () => {
  it.each<[string, () => Uint8Array]>([
    ['an ES256 key of an authenticator', () => authenticatorKey('ES256')],
    ['an EdDSA (Ed25519) key of an authenticator', () => authenticatorKey('EdDSA')],
    ['an RS256 key of 2048 bits of an authenticator', () => authenticatorKey('RS256')],
    ['a P-384 key (ES384)', () => encodeCbor(ec2Key(p384, 2, -35))],
    ['a P-521 key (ES512)', () => encodeCbor(ec2Key(p521, 3, -36))],
    ['a 2048-bit RSA modulus written with a leading zero byte', () => encodeCbor(rsaKey(rsa2048).set(-1, Buffer.concat([Buffer.alloc(1), bytes(rsa2048.export({ format: 'jwk' }).n)])))],
  ])('accepts %s', (_label, key) => {
    expect(isUsablePublicKey(key())).toBe(true);
  });

  it.each<[string, () => Uint8Array]>([
    ['an ES256 key whose point is not on P-256', () => authenticatorKey('ES256', { offCurvePublicKey: true })],
    ['a P-384 point labelled as P-256', () => encodeCbor(ec2Key(p384, 1, -7))],
    ['a P-256 point labelled as P-384', () => encodeCbor(ec2Key(p256, 2, -35))],
    ['an EC2 key on a curve it does not know', () => encodeCbor(ec2Key(p256, 8, -7))],
    ['an EC2 key without its y coordinate', () => encodeCbor(without(ec2Key(p256, 1, -7), -3))],
    ['an RSA key of 1024 bits', () => authenticatorKey('RS256', { rsaBits: 1024 })],
    ['an RSA key of 2047 bits, one short of the minimum', () => encodeCbor(rsaKey(generateKeyPairSync('rsa', { modulusLength: 2047 }).publicKey))],
    ['an RSA key without its exponent', () => encodeCbor(without(rsaKey(rsa2048), -2))],
    ['an OKP key on Ed448 (crv 7)', () => encodeCbor(new Map<number, number | Uint8Array>([[1, 1], [3, -8], [-1, 7], [-2, Buffer.alloc(57, 1)]]))],
    ['an Ed25519 key of 31 bytes', () => encodeCbor(new Map<number, number | Uint8Array>([[1, 1], [3, -8], [-1, 6], [-2, Buffer.alloc(31, 1)]]))],
    ['a symmetric key (kty 4)', () => encodeCbor(new Map<number, number | Uint8Array>([[1, 4], [3, 5], [-1, Buffer.alloc(32, 1)]]))],
    ['a key without kty', () => encodeCbor(new Map<number, number | Uint8Array>([[3, -7], [-1, 1]]))],
    ['bytes that are not CBOR', () => Buffer.from('not a key')],
    ['no bytes at all', () => new Uint8Array(0)],
  ])('refuses %s, without throwing', (_label, key) => {
    expect(isUsablePublicKey(key())).toBe(false);
  });
});
