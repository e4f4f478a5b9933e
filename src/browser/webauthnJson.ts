// The published client's wire format (@passwordlessdev/passwordless-client 1.2.4, `registerBegin`,
// `registerComplete`, `signinBegin`, `signinComplete`), for the two ceremonies it cannot run: a
// conditional create and an immediate get. The service reads exactly these shapes, so they must
// not drift from the client's. No imports: pure functions, tested beside (webauthnJson.test.ts).

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
  };
}

/** `/signin/begin`'s `data` as `navigator.credentials.get` takes it. */
export function requestOptionsOf(data: Record<string, unknown>): PublicKeyCredentialRequestOptions {
  return {
    ...(data as unknown as PublicKeyCredentialRequestOptions),
    challenge: fromBase64Url(data.challenge as string),
    allowCredentials: descriptorsOf(data.allowCredentials as JsonDescriptor[] | undefined),
  };
}

/** Where the ceremony runs, as the client declares it (`RPID`, `Origin`). */
export interface CeremonySite {
  rpId: string;
  origin: string;
}

/** The `/register/complete` body for a credential `navigator.credentials.create` made. */
export function registrationCompleteBody(credential: PublicKeyCredential, session: string, nickname: string | undefined, site: CeremonySite) {
  const response = credential.response as AuthenticatorAttestationResponse;
  return {
    session,
    response: {
      id: credential.id,
      rawId: toBase64Url(credential.rawId),
      type: credential.type,
      clientExtensionResults: credential.getClientExtensionResults(),
      response: {
        AttestationObject: toBase64Url(response.attestationObject),
        clientDataJson: toBase64Url(response.clientDataJSON),
      },
    },
    nickname,
    RPID: site.rpId,
    Origin: site.origin,
  };
}

/** The `/signin/complete` body for an assertion `navigator.credentials.get` made. */
export function signinCompleteBody(credential: PublicKeyCredential, session: string, site: CeremonySite) {
  const response = credential.response as AuthenticatorAssertionResponse;
  return {
    session,
    response: {
      id: credential.id,
      rawId: toBase64Url(credential.rawId),
      type: credential.type,
      clientExtensionResults: credential.getClientExtensionResults(),
      response: {
        authenticatorData: toBase64Url(response.authenticatorData),
        clientDataJson: toBase64Url(response.clientDataJSON),
        signature: toBase64Url(response.signature),
      },
    },
    RPID: site.rpId,
    Origin: site.origin,
  };
}
