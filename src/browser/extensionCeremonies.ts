/**
 * Sign-in and registration ceremonies against the service's public API, in the published client's
 * wire format (the same requests, headers and field spellings as `@passwordlessdev/passwordless-client`
 * 1.2.4), for what that client cannot do: decode the extension inputs the service sends (PRF salts
 * are base64url there and bytes for the browser), and hand the page the browser's client extension
 * results. Those results are the page's: the PRF outputs (`prf.results`) and a large blob read
 * (`largeBlob.blob`) are removed before anything is posted to the service, which never sees them.
 *
 * No dependency: this file is served beside the browser module as it is.
 */

/** A problem as the published client reports one (`from`: who refused). */
export interface CeremonyProblem {
  from: 'client' | 'server';
  errorCode: string;
  title: string;
  detail?: string;
  [extra: string]: unknown;
}

/** The browser's client extension results, as the browser gave them (PRF outputs as ArrayBuffers). */
export type ClientExtensionResults = Record<string, unknown>;

export type CeremonyResult = { token: string; extensions: ClientExtensionResults; error?: undefined } | { token?: undefined; extensions?: undefined; error: CeremonyProblem };

export interface CeremonyConfig {
  apiUrl: string;
  apiKey: string;
  rpId: string;
  origin: string;
}

/** The published client's own version header, so the service sees the same client either way. */
const CLIENT_VERSION = 'js-1.1.0';

const toBytes = (b64url: string): Uint8Array => {
  const base64 = b64url.replace(/-/g, '+').replace(/_/g, '/');
  const binary = atob(base64.padEnd(base64.length + ((4 - (base64.length % 4)) % 4), '='));
  return Uint8Array.from(binary, (c) => c.charCodeAt(0));
};

const toBase64Url = (buffer: ArrayBuffer | ArrayBufferView): string => {
  const bytes = buffer instanceof ArrayBuffer ? new Uint8Array(buffer) : new Uint8Array(buffer.buffer, buffer.byteOffset, buffer.byteLength);
  let text = '';
  for (const byte of bytes) text += String.fromCharCode(byte);
  return btoa(text).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '');
};

type Json = Record<string, any>;

/** `{first, second?}` of base64url salts as the bytes the browser takes. */
const saltValues = (values: Json | undefined) => values && { first: toBytes(values.first), ...(values.second ? { second: toBytes(values.second) } : {}) };

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
  if (typeof extensions.largeBlob?.write === 'string') decoded.largeBlob = { ...extensions.largeBlob, write: toBytes(extensions.largeBlob.write) };
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

function problemOf(error: unknown): CeremonyProblem {
  return { from: 'client', errorCode: 'unknown', title: error instanceof Error ? error.message : String(error) };
}

async function post(config: CeremonyConfig, path: string, body: Json): Promise<{ ok: true; answer: Json } | { ok: false; error: CeremonyProblem }> {
  const res = await fetch(`${config.apiUrl}${path}`, {
    method: 'POST',
    headers: { ApiKey: config.apiKey, 'Content-Type': 'application/json', 'Client-Version': CLIENT_VERSION },
    body: JSON.stringify(body),
  });
  const answer = (await res.json()) as Json;
  return res.ok ? { ok: true, answer } : { ok: false, error: { ...answer, from: 'server' } as CeremonyProblem };
}

/**
 * `/signin/begin` (by `userId`, `alias`, or neither: discoverable), `navigator.credentials.get`,
 * `/signin/complete`. Resolves with the `verify_` token and the browser's extension results, or the problem.
 */
export async function signInCeremony(
  config: CeremonyConfig,
  method: { userId?: string; alias?: string },
  options: { purpose?: string; mediation?: CredentialMediationRequirement; signal?: AbortSignal } = {},
): Promise<CeremonyResult> {
  try {
    const begin = await post(config, '/signin/begin', { userId: method.userId, alias: method.alias, RPID: config.rpId, Origin: config.origin, purpose: options.purpose });
    if (!begin.ok) return { error: begin.error };
    const data = begin.answer.data as Json;
    const publicKey = {
      ...data,
      challenge: toBytes(data.challenge),
      allowCredentials: (data.allowCredentials as Json[] | undefined)?.map((c) => ({ ...c, id: toBytes(c.id) })),
      extensions: decodeExtensionInputs(data.extensions),
    } as unknown as PublicKeyCredentialRequestOptions;
    const credential = (await navigator.credentials.get({ publicKey, mediation: options.mediation, signal: options.signal })) as PublicKeyCredential | null;
    if (!credential) return { error: { from: 'client', errorCode: 'failed_get_credential', title: 'No passkey was chosen.' } };
    const extensions = credential.getClientExtensionResults() as ClientExtensionResults;
    const response = credential.response as AuthenticatorAssertionResponse;
    const complete = await post(config, '/signin/complete', {
      session: begin.answer.session,
      response: {
        id: credential.id,
        rawId: toBase64Url(credential.rawId),
        type: credential.type,
        clientExtensionResults: extensionResultsForService(extensions),
        response: {
          authenticatorData: toBase64Url(response.authenticatorData),
          clientDataJson: toBase64Url(response.clientDataJSON),
          signature: toBase64Url(response.signature),
        },
      },
      RPID: config.rpId,
      Origin: config.origin,
    });
    if (!complete.ok) return { error: complete.error };
    return { token: complete.answer.token as string, extensions };
  } catch (error) {
    return { error: problemOf(error) };
  }
}

/** `/register/begin` with a register token, `navigator.credentials.create`, `/register/complete`. */
export async function registrationCeremony(config: CeremonyConfig, registerToken: string, nickname?: string): Promise<CeremonyResult> {
  try {
    const begin = await post(config, '/register/begin', { token: registerToken, RPID: config.rpId, Origin: config.origin });
    if (!begin.ok) return { error: begin.error };
    const data = begin.answer.data as Json;
    const publicKey = {
      ...data,
      challenge: toBytes(data.challenge),
      user: { ...data.user, id: toBytes(data.user.id) },
      excludeCredentials: (data.excludeCredentials as Json[] | undefined)?.map((c) => ({ ...c, id: toBytes(c.id) })),
      extensions: decodeExtensionInputs(data.extensions),
    } as unknown as PublicKeyCredentialCreationOptions;
    const credential = (await navigator.credentials.create({ publicKey })) as PublicKeyCredential | null;
    if (!credential) return { error: { from: 'client', errorCode: 'failed_create_credential', title: 'No passkey was made.' } };
    const extensions = credential.getClientExtensionResults() as ClientExtensionResults;
    const response = credential.response as AuthenticatorAttestationResponse;
    const complete = await post(config, '/register/complete', {
      session: begin.answer.session,
      response: {
        id: credential.id,
        rawId: toBase64Url(credential.rawId),
        type: credential.type,
        clientExtensionResults: extensionResultsForService(extensions),
        response: {
          AttestationObject: toBase64Url(response.attestationObject),
          clientDataJson: toBase64Url(response.clientDataJSON),
        },
      },
      nickname,
      RPID: config.rpId,
      Origin: config.origin,
    });
    if (!complete.ok) return { error: complete.error };
    return { token: complete.answer.token as string, extensions };
  } catch (error) {
    return { error: problemOf(error) };
  }
}
