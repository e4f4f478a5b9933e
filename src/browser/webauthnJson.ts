// The published client's wire format (@passwordlessdev/passwordless-client 1.2.4, `registerBegin`,
// `registerComplete`, `signinBegin`, `signinComplete`), for the ceremonies the module runs itself.
// The service reads exactly these shapes, so they must not drift from the client's. Two things the
// client does not do: decode the extension inputs the service sends (PRF salts, a large blob to
// write: base64url there, bytes for the browser), and keep the page's extension results from the
// service (PRF outputs and a large blob read are not posted). One wire format, one file: these
// functions only make sense together. No imports: pure functions, tested beside (webauthnJson.test.ts).

/** base64url (no padding) to bytes. */
export function fromBase64Url(value: string): Uint8Array<ArrayBuffer> {
  const base64 = value.replace(/-/g, '+').replace(/_/g, '/');
  const binary = atob(base64.padEnd(base64.length + ((4 - (base64.length % 4)) % 4), '='));
  const bytes = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) bytes[i] = binary.charCodeAt(i);
  return bytes;
}

/** Bytes to base64url without padding. */
export function toBase64Url(buffer: ArrayBuffer | ArrayBufferView): string {
  const bytes = buffer instanceof ArrayBuffer ? new Uint8Array(buffer) : new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength);
  let binary = '';
  for (let i = 0; i < bytes.byteLength; i++) binary += String.fromCharCode(bytes[i]);
  return btoa(binary).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
}

type Json = Record<string, any>;

/** The browser's client extension results, as the browser gave them (PRF outputs as ArrayBuffers). */
export type ClientExtensionResults = Record<string, unknown>;

/** `{first, second?}` of base64url salts as the bytes the browser takes. */
const saltValues = (values: Json | undefined) => values && { first: fromBase64Url(values.first), ...(values.second ? { second: fromBase64Url(values.second) } : {}) };

/** The extension inputs with every byte string (PRF salts, a large blob to write) decoded. */
export function decodeExtensionInputs(extensions: Json | undefined): Json | undefined {
  if (!extensions) return undefined;
  const decoded: Json = { ...extensions };
  const prf = extensions.prf as Json | undefined;
  if (prf) {
    decoded.prf = {
      ...(prf.eval ? { eval: saltValues(prf.eval) } : {}),
      ...(prf.evalByCredential ? { evalByCredential: Object.fromEntries(Object.entries(prf.evalByCredential as Json).map(([id, v]) => [id, saltValues(v)])) } : {}),
    };
  }
  if (typeof extensions.largeBlob?.write === 'string') decoded.largeBlob = { ...extensions.largeBlob, write: fromBase64Url(extensions.largeBlob.write) };
  return decoded;
}

/** What of the client extension results may go to the service: everything but PRF outputs and a large blob read. */
export function extensionResultsForService(results: ClientExtensionResults): Json {
  const kept: Json = {};
  for (const [name, value] of Object.entries(results)) {
    if (name === 'prf' && value && typeof value === 'object') {
      const { results: _secret, ...rest } = value as Json;
      kept.prf = rest;
    } else if (name === 'largeBlob' && value && typeof value === 'object') {
      const { blob: _secret, ...rest } = value as Json;
      kept.largeBlob = rest;
    } else {
      kept[name] = value;
    }
  }
  return kept;
}

interface JsonDescriptor {
  id: string;
  type: string;
  transports?: string[];
}

const descriptorsOf = (list: JsonDescriptor[] | undefined) => list?.map((d) => ({ ...d, id: fromBase64Url(d.id) })) as PublicKeyCredentialDescriptor[] | undefined;

/** `/register/begin`'s `data` as `navigator.credentials.create` takes it. */
export function creationOptionsOf(data: Record<string, unknown>): PublicKeyCredentialCreationOptions {
  const user = data.user as { id: string; name: string; displayName: string };
  return {
    ...(data as unknown as PublicKeyCredentialCreationOptions),
    challenge: fromBase64Url(data.challenge as string),
    user: { ...user, id: fromBase64Url(user.id) },
    excludeCredentials: descriptorsOf(data.excludeCredentials as JsonDescriptor[] | undefined),
    extensions: decodeExtensionInputs(data.extensions as Json | undefined),
  };
}

/** `/signin/begin`'s `data` as `navigator.credentials.get` takes it. */
export function requestOptionsOf(data: Record<string, unknown>): PublicKeyCredentialRequestOptions {
  return {
    ...(data as unknown as PublicKeyCredentialRequestOptions),
    challenge: fromBase64Url(data.challenge as string),
    allowCredentials: descriptorsOf(data.allowCredentials as JsonDescriptor[] | undefined),
    extensions: decodeExtensionInputs(data.extensions as Json | undefined),
  };
}

/** Where the ceremony runs, as the client declares it (`RPID`, `Origin`). */
export interface CeremonySite {
  rpId: string;
  origin: string;
}

/** The `response` both complete bodies carry: the credential with its type-specific `response` fields. */
function credentialJson(credential: PublicKeyCredential, response: Record<string, string>) {
  return {
    id: credential.id,
    rawId: toBase64Url(credential.rawId),
    type: credential.type,
    clientExtensionResults: extensionResultsForService(credential.getClientExtensionResults() as ClientExtensionResults),
    response,
  };
}

/** The `/register/complete` body for a credential `navigator.credentials.create` made (the service never sees a PRF output). */
export function registrationCompleteBody(credential: PublicKeyCredential, session: string, nickname: string | undefined, site: CeremonySite) {
  const response = credential.response as AuthenticatorAttestationResponse;
  return {
    session,
    response: credentialJson(credential, { AttestationObject: toBase64Url(response.attestationObject), clientDataJson: toBase64Url(response.clientDataJSON) }),
    nickname,
    RPID: site.rpId,
    Origin: site.origin,
  };
}

/** The `/signin/complete` body for an assertion `navigator.credentials.get` made (the service never sees a PRF output). */
export function signinCompleteBody(credential: PublicKeyCredential, session: string, site: CeremonySite) {
  const response = credential.response as AuthenticatorAssertionResponse;
  return {
    session,
    response: credentialJson(credential, {
      authenticatorData: toBase64Url(response.authenticatorData),
      clientDataJson: toBase64Url(response.clientDataJSON),
      signature: toBase64Url(response.signature),
    }),
    RPID: site.rpId,
    Origin: site.origin,
  };
}
