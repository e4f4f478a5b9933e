// A software WebAuthn authenticator for the benchmark: P-256 keys from node:crypto, hand-built
// authenticatorData and clientDataJSON, `fmt: "none"` CBOR for registration. The same wire format
// as test/support/softwareAuthenticator.ts (what the published browser client posts), in plain JS.
import { createHash, createPrivateKey, generateKeyPairSync, randomBytes, sign } from 'node:crypto';

const FLAG_UP = 0x01;
const FLAG_UV = 0x04;
const FLAG_AT = 0x40;

const b64url = (bytes) => Buffer.from(bytes).toString('base64url');
const sha256 = (data) => createHash('sha256').update(data).digest();

/** Just the CBOR this needs: unsigned/negative ints, text, bytes and maps. */
function cbor(value) {
  const head = (major, n) => {
    if (n < 24) return Buffer.from([(major << 5) | n]);
    if (n < 0x100) return Buffer.from([(major << 5) | 24, n]);
    const b = Buffer.alloc(3);
    b[0] = (major << 5) | 25;
    b.writeUInt16BE(n, 1);
    return b;
  };
  if (typeof value === 'number') return value >= 0 ? head(0, value) : head(1, -1 - value);
  if (typeof value === 'string') return Buffer.concat([head(3, Buffer.byteLength(value)), Buffer.from(value)]);
  if (value instanceof Uint8Array) return Buffer.concat([head(2, value.length), value]);
  const parts = [head(5, value.size)];
  for (const [k, v] of value) parts.push(cbor(k), cbor(v));
  return Buffer.concat(parts);
}

function coseKey(publicKey) {
  const jwk = publicKey.export({ format: 'jwk' });
  return cbor(new Map([[1, 2], [3, -7], [-1, 1], [-2, Buffer.from(jwk.x, 'base64url')], [-3, Buffer.from(jwk.y, 'base64url')]]));
}

function authenticatorData(rpId, flags, counter, attested) {
  const count = Buffer.alloc(4);
  count.writeUInt32BE(counter >>> 0);
  return Buffer.concat([sha256(rpId), Buffer.from([flags]), count, ...(attested ? [attested] : [])]);
}

const clientData = (type, challenge, origin) => Buffer.from(JSON.stringify({ type, challenge, origin, crossOrigin: false }));

/** A new P-256 key pair as a credential: what the seed stores and what the load generator signs with. */
export function newCredential(userId) {
  const { privateKey, publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  return {
    descriptorId: b64url(randomBytes(32)),
    userId,
    userHandle: b64url(Buffer.from(userId, 'utf8')),
    publicKey: b64url(coseKey(publicKey)),
    privateKeyPem: privateKey.export({ format: 'pem', type: 'pkcs8' }),
  };
}

/** A credential loaded for signing (the private key parsed once). */
export const signerOf = (credential) => ({ ...credential, key: createPrivateKey(credential.privateKeyPem) });

/**
 * An assertion for `/signin/complete`. The counter stays 0, as synced passkeys (iCloud Keychain,
 * Google Password Manager) report it, so any number of connections can share a credential.
 */
export function assertion(signer, { challenge, rpId, origin }) {
  const authData = authenticatorData(rpId, FLAG_UP | FLAG_UV, 0);
  const clientDataJson = clientData('webauthn.get', challenge, origin);
  const signature = sign('sha256', Buffer.concat([authData, sha256(clientDataJson)]), signer.key);
  return {
    id: signer.descriptorId,
    rawId: signer.descriptorId,
    type: 'public-key',
    clientExtensionResults: {},
    response: { authenticatorData: b64url(authData), clientDataJson: b64url(clientDataJson), signature: b64url(signature) },
  };
}

/** An attestation (`fmt: "none"`) for `/register/complete`, with a fresh key pair. */
export function attestation({ challenge, rpId, origin }) {
  const { publicKey } = generateKeyPairSync('ec', { namedCurve: 'P-256' });
  const id = randomBytes(32);
  const idLength = Buffer.alloc(2);
  idLength.writeUInt16BE(id.length);
  const attested = Buffer.concat([Buffer.alloc(16), idLength, id, coseKey(publicKey)]);
  const authData = authenticatorData(rpId, FLAG_UP | FLAG_UV | FLAG_AT, 0, attested);
  const attestationObject = cbor(new Map([['fmt', 'none'], ['attStmt', new Map()], ['authData', authData]]));
  return {
    id: b64url(id),
    rawId: b64url(id),
    type: 'public-key',
    clientExtensionResults: { credProps: { rk: true } },
    response: { AttestationObject: b64url(attestationObject), clientDataJson: b64url(clientData('webauthn.create', challenge, origin)) },
  };
}
