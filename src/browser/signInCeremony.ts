import type { PublicApi } from './publicApi.js';
import { runCeremony, type CeremonyResult, type Mediation } from './runCeremony.js';
import { requestOptionsOf, signinCompleteBody } from './webauthnJson.js';

/**
 * `navigator.credentials.get` with immediate mediation: the browser answers at once, with the
 * user's choice of a passkey it holds for this site, or with NotAllowedError when it holds none,
 * without showing anything. The proposal's form is `mediation: 'immediate'`; Chromium 156 reports
 * `immediateGet` but refuses that value (a TypeError naming the enum) and takes
 * `publicKey.uiMode: 'immediate'` instead (docs/api.md, "The browser module", has the evidence), so
 * a TypeError from the first form, thrown before any prompt, tries the second with the same challenge.
 */
async function immediateGet(publicKey: PublicKeyCredentialRequestOptions, signal: AbortSignal | undefined): Promise<Credential | null> {
  try {
    return await navigator.credentials.get({ mediation: 'immediate', publicKey, signal } as unknown as CredentialRequestOptions);
  } catch (error) {
    if (!(error instanceof TypeError)) throw error;
    return navigator.credentials.get({ publicKey: { ...publicKey, uiMode: 'immediate' }, signal } as unknown as CredentialRequestOptions);
  }
}

function getCredential(publicKey: PublicKeyCredentialRequestOptions, mediation: Mediation, signal: AbortSignal | undefined): Promise<Credential | null> {
  if (mediation === 'immediate') return immediateGet(publicKey, signal);
  return navigator.credentials.get({ publicKey, signal, ...(mediation === 'conditional' ? { mediation } : {}) });
}

/**
 * `/signin/begin` (by `userId`, `alias`, or neither: discoverable; `purpose` for a step-up), the
 * browser's get with `mediation`, `/signin/complete`. The PRF salts are decoded for the browser,
 * and the PRF outputs and a large blob read stay with the page (webauthnJson).
 */
export function signInCeremony(
  api: PublicApi,
  method: { userId?: string; alias?: string; purpose?: string },
  { mediation = 'modal', signal }: { mediation?: Mediation; signal?: AbortSignal } = {},
): Promise<CeremonyResult> {
  return runCeremony(api, {
    kind: 'signin',
    begin: { userId: method.userId, alias: method.alias, RPID: api.rpId, Origin: api.origin, purpose: method.purpose },
    ask: (data) => getCredential(requestOptionsOf(data), mediation, signal),
    complete: (credential, session) => signinCompleteBody(credential, session, api),
  });
}
