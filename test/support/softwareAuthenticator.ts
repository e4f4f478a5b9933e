import { createHash, createHmac, generateKeyPairSync, randomBytes, sign, type KeyObject } from 'node:crypto';
import { encodeCbor } from './cbor';

/**
 * A software WebAuthn authenticator built on node:crypto. It produces exactly the JSON that the
 * published browser client (`@passwordlessdev/passwordless-client` 1.2.4) posts to
 * `/register/complete` and `/signin/complete`: unpadded base64url, `AttestationObject` and
 * `clientDataJson` spelled as the client spells them, and no `userHandle` on sign-in.
 */
export type Algorithm = 'ES256' | 'RS256' | 'EdDSA';

const FLAG_UP = 0x01;
const FLAG_UV = 0x04;
const FLAG_BE = 0x08;
const FLAG_BS = 0x10;
const FLAG_AT = 0x40;

const COSE_ALG: Record<Algorithm, number> = { ES256: -7, RS256: -257, EdDSA: -8 };

const b64url = (bytes: Uint8Array | string) => Buffer.from(bytes).toString('base64url');
const sha256 = (data: Uint8Array | string) => createHash('sha256').update(data).digest();

export interface SoftCredential {
  id: Buffer;
  idB64: string;
  alg: Algorithm;
  privateKey: KeyObject;
  cosePublicKey: Buffer;
  userHandle: string;
  /** Next counter value to report; the test controls it to simulate clones. */
  counter: number;
  backupEligible: boolean;
  backupState: boolean;
  /** The PRF secret (the authenticator's hmac-secret of this credential); undefined: no PRF. */
  prfSecret?: Buffer;
  /** What its large blob holds, when it has one. */
  largeBlob?: Buffer;
}

/** The `extensions` of the ceremony's options, as `/register/begin` or `/signin/begin` answered them (base64url for bytes). */
export type ExtensionInputs = Record<string, any> | undefined;

/** A PRF output as a browser computes it: HMAC over SHA-256("WebAuthn PRF" || 0x00 || salt). */
export function prfOutput(secret: Buffer, saltB64url: string): string {
  const salt = Buffer.from(saltB64url, 'base64url');
  return createHmac('sha256', secret).update(sha256(Buffer.concat([Buffer.from('WebAuthn PRF'), Buffer.from([0]), salt]))).digest().toString('base64url');
}

/** The client extension results a browser with this authenticator reports for a registration. */
function registrationExtensionResults(inputs: ExtensionInputs, supportsPrf: boolean, supportsLargeBlob: boolean): Record<string, unknown> {
  const results: Record<string, unknown> = {};
  if (!inputs || inputs.credProps) results.credProps = { rk: true };
  if (inputs?.prf) results.prf = { enabled: supportsPrf };
  if (inputs?.largeBlob) results.largeBlob = { supported: supportsLargeBlob };
  return results;
}

/** The client extension results of an assertion: PRF outputs for this credential's salt, a large blob read. */
function assertionExtensionResults(credential: SoftCredential, inputs: ExtensionInputs): Record<string, unknown> {
  const results: Record<string, unknown> = {};
  const salt = inputs?.prf?.evalByCredential?.[credential.idB64]?.first ?? inputs?.prf?.eval?.first;
  if (salt && credential.prfSecret) results.prf = { results: { first: prfOutput(credential.prfSecret, salt) } };
  if (inputs?.largeBlob?.read && credential.largeBlob) results.largeBlob = { blob: credential.largeBlob.toString('base64url') };
  return results;
}

function coseKey(alg: Algorithm, publicKey: KeyObject, offCurve = false): Buffer {
  const jwk = publicKey.export({ format: 'jwk' });
  const key = new Map<number, number | Uint8Array>();
  if (alg === 'ES256') {
    const y = offCurve ? Buffer.alloc(32, 7) : Buffer.from(jwk.y!, 'base64url');
    key.set(1, 2).set(3, -7).set(-1, 1).set(-2, Buffer.from(jwk.x!, 'base64url')).set(-3, y);
  } else if (alg === 'RS256') {
    key.set(1, 3).set(3, -257).set(-1, Buffer.from(jwk.n!, 'base64url')).set(-2, Buffer.from(jwk.e!, 'base64url'));
  } else {
    key.set(1, 1).set(3, -8).set(-1, 6).set(-2, Buffer.from(jwk.x!, 'base64url'));
  }
  return encodeCbor(key);
}

function keyPair(alg: Algorithm, rsaBits = 2048) {
  if (alg === 'ES256') return generateKeyPairSync('ec', { namedCurve: 'P-256' });
  if (alg === 'RS256') return generateKeyPairSync('rsa', { modulusLength: rsaBits });
  return generateKeyPairSync('ed25519');
}

function signWith(alg: Algorithm, key: KeyObject, data: Buffer): Buffer {
  return alg === 'EdDSA' ? sign(null, data, key) : sign('sha256', data, key);
}

function authenticatorData(rpId: string, flags: number, counter: number, attested?: Buffer): Buffer {
  const count = Buffer.alloc(4);
  count.writeUInt32BE(counter >>> 0);
  return Buffer.concat([sha256(rpId), Buffer.from([flags]), count, ...(attested ? [attested] : [])]);
}

function clientData(type: string, challenge: string, origin: string): Buffer {
  return Buffer.from(JSON.stringify({ type, challenge, origin, crossOrigin: false }));
}

export interface CreateOptions {
  /** `data` from `/register/begin`. */
  challenge: string;
  rpId: string;
  origin: string;
  userHandle: string;
  alg?: Algorithm;
  userVerified?: boolean;
  userPresent?: boolean;
  backupEligible?: boolean;
  backupState?: boolean;
  counter?: number;
  fmt?: 'none' | 'packed';
  aaguid?: Buffer;
  credentialId?: Buffer;
  type?: string;
  transports?: string[];
  /** ES256 only: publish a public key whose point is not on P-256 (a broken authenticator). */
  offCurvePublicKey?: boolean;
  /** RS256 only: the modulus size. */
  rsaBits?: number;
  /**
   * `packed` full attestation: the statement is signed with this key (an ES256 key) and carries
   * these certificates (DER, the attestation certificate first) as `x5c`. Without it, `packed`
   * is self attestation.
   */
  attestation?: { privateKey: KeyObject; certificates: Buffer[] };
  /** The begin's `extensions`: answered in `clientExtensionResults` as a browser would (credProps, prf.enabled, largeBlob.supported). */
  extensionInputs?: ExtensionInputs;
  /** Whether the authenticator has PRF (hmac-secret); default true. */
  prf?: boolean;
  /** Whether it keeps large blobs; default false. */
  largeBlob?: boolean;
}

export function createCredential(options: CreateOptions): { credential: SoftCredential; response: Record<string, unknown> } {
  const alg = options.alg ?? 'ES256';
  const { privateKey, publicKey } = keyPair(alg, options.rsaBits);
  const id = options.credentialId ?? randomBytes(32);
  const cose = coseKey(alg, publicKey, options.offCurvePublicKey);
  const idLength = Buffer.alloc(2);
  idLength.writeUInt16BE(id.length);
  const attested = Buffer.concat([options.aaguid ?? Buffer.alloc(16), idLength, id, cose]);
  const be = options.backupEligible ?? false;
  const bs = options.backupState ?? false;
  const flags = (options.userPresent === false ? 0 : FLAG_UP) | (options.userVerified === false ? 0 : FLAG_UV) | (be ? FLAG_BE : 0) | (bs ? FLAG_BS : 0) | FLAG_AT;
  const counter = options.counter ?? 0;
  const authData = authenticatorData(options.rpId, flags, counter, attested);
  const clientDataJson = clientData(options.type ?? 'webauthn.create', options.challenge, options.origin);
  const fmt = options.fmt ?? 'none';
  const attStmt = new Map<string, number | Uint8Array | Uint8Array[]>();
  const signed = Buffer.concat([authData, sha256(clientDataJson)]);
  if (fmt === 'packed' && options.attestation) {
    attStmt.set('alg', COSE_ALG.ES256).set('sig', signWith('ES256', options.attestation.privateKey, signed)).set('x5c', options.attestation.certificates);
  } else if (fmt === 'packed') {
    attStmt.set('alg', COSE_ALG[alg]).set('sig', signWith(alg, privateKey, signed));
  }
  const attestationObject = encodeCbor(
    new Map<string, string | Uint8Array | Map<string, number | Uint8Array | Uint8Array[]>>([
      ['fmt', fmt],
      ['attStmt', attStmt],
      ['authData', authData],
    ]),
  );
  const credential: SoftCredential = {
    id,
    idB64: b64url(id),
    alg,
    privateKey,
    cosePublicKey: cose,
    userHandle: options.userHandle,
    counter: counter + 1,
    backupEligible: be,
    backupState: bs,
    ...(options.prf === false ? {} : { prfSecret: randomBytes(32) }),
    ...(options.largeBlob ? { largeBlob: randomBytes(24) } : {}),
  };
  const response = {
    id: credential.idB64,
    rawId: credential.idB64,
    type: 'public-key',
    clientExtensionResults: registrationExtensionResults(options.extensionInputs, options.prf !== false, options.largeBlob === true),
    response: {
      AttestationObject: b64url(attestationObject),
      clientDataJson: b64url(clientDataJson),
      ...(options.transports ? { transports: options.transports } : {}),
    },
  };
  return { credential, response };
}

export interface AssertOptions {
  /** `data` from `/signin/begin`. */
  challenge: string;
  rpId: string;
  origin: string;
  userVerified?: boolean;
  userPresent?: boolean;
  /** Overrides the credential's running counter for this one assertion. */
  counter?: number;
  backupEligible?: boolean;
  backupState?: boolean;
  type?: string;
  userHandle?: string;
  /** Sign with the wrong key, to produce a bad signature. */
  tamperSignature?: boolean;
  /** The begin's `extensions`: PRF outputs and a large blob read are answered as a browser reports them (which a careless client then posts). */
  extensionInputs?: ExtensionInputs;
}

/** An assertion; advances the credential's counter unless `counter` is given. */
export function getAssertion(credential: SoftCredential, options: AssertOptions): Record<string, unknown> {
  const counter = options.counter ?? credential.counter++;
  const be = options.backupEligible ?? credential.backupEligible;
  const bs = options.backupState ?? credential.backupState;
  const flags = (options.userPresent === false ? 0 : FLAG_UP) | (options.userVerified === false ? 0 : FLAG_UV) | (be ? FLAG_BE : 0) | (bs ? FLAG_BS : 0);
  const authData = authenticatorData(options.rpId, flags, counter);
  const clientDataJson = clientData(options.type ?? 'webauthn.get', options.challenge, options.origin);
  const signed = Buffer.concat([authData, sha256(clientDataJson)]);
  const signature = options.tamperSignature ? signWith(credential.alg, keyPair(credential.alg).privateKey, signed) : signWith(credential.alg, credential.privateKey, signed);
  return {
    id: credential.idB64,
    rawId: credential.idB64,
    type: 'public-key',
    clientExtensionResults: assertionExtensionResults(credential, options.extensionInputs),
    response: {
      authenticatorData: b64url(authData),
      clientDataJson: b64url(clientDataJson),
      signature: b64url(signature),
      ...(options.userHandle !== undefined ? { userHandle: options.userHandle } : {}),
    },
  };
}

/** The 16 bytes of an AAGUID written as a GUID, for `CreateOptions.aaguid`. */
export const aaguidBytes = (guid: string): Buffer => Buffer.from(guid.replace(/-/g, ''), 'hex');
