import { callPublicApi, type CeremonyProblem, type PublicApi } from './publicApi.js';
import { requestOptionsOf, signinCompleteBody } from './webauthnJson.js';

/** How an immediate get ended: a `verify_` token, no passkey on this device (the browser's DOMException name), or a problem. */
export type ImmediateAssertion = { token: string } | { noPasskey: string } | { problem: CeremonyProblem };

/**
 * `navigator.credentials.get` with immediate mediation: the browser answers at once, with the
 * user's choice of a passkey it holds for this site, or with NotAllowedError when it holds none,
 * without showing anything. The proposal's form is `mediation: 'immediate'`; Chromium 156 reports
 * `immediateGet` but refuses that value (a TypeError naming the enum) and takes
 * `publicKey.uiMode: 'immediate'` instead (docs/api.md, "The browser module", has the evidence), so a TypeError from
 * the first form, thrown before any prompt, tries the second with the same challenge.
 */
async function immediateGet(publicKey: PublicKeyCredentialRequestOptions): Promise<Credential | null> {
  try {
    return await navigator.credentials.get({ mediation: 'immediate', publicKey } as unknown as CredentialRequestOptions);
  } catch (error) {
    if (!(error instanceof TypeError)) throw error;
    return navigator.credentials.get({ publicKey: { ...publicKey, uiMode: 'immediate' } } as unknown as CredentialRequestOptions);
  }
}

/** `/signin/begin` (discoverable, or by alias), an immediate get, `/signin/complete`. Only where `immediateGet` is reported. */
export async function immediateAssertion(api: PublicApi, alias?: string): Promise<ImmediateAssertion> {
  const begin = await callPublicApi<{ session: string; data: Record<string, unknown> }>(api, '/signin/begin', { alias, RPID: api.rpId, Origin: api.origin });
  if (!begin.ok) return { problem: begin.problem };
  let credential: Credential | null;
  try {
    credential = await immediateGet(requestOptionsOf(begin.value.data));
  } catch (error) {
    if (error instanceof DOMException && error.name === 'NotAllowedError') return { noPasskey: error.name };
    return { problem: { from: 'client', errorCode: 'unknown', title: error instanceof Error ? `${error.name}: ${error.message}` : String(error) } };
  }
  if (!credential) return { noPasskey: 'NoCredential' };
  const complete = await callPublicApi<{ token: string }>(api, '/signin/complete', signinCompleteBody(credential as PublicKeyCredential, begin.value.session, api));
  return complete.ok ? { token: complete.value.token } : { problem: complete.problem };
}
