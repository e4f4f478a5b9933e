import { callPublicApi, type CeremonyProblem, type PublicApi } from './publicApi.js';
import { creationOptionsOf, registrationCompleteBody } from './webauthnJson.js';

/** How a conditional create ended: a `verify_` token, the browser's refusal (its DOMException name), or a problem. */
export type ConditionalRegistration = { token: string } | { declined: string } | { problem: CeremonyProblem };

/**
 * The automatic upgrade's ceremony, which the published client cannot run: `/register/begin` with
 * `mediation: 'conditional'` (an upgrade token), `navigator.credentials.create({mediation:
 * 'conditional'})`, `/register/complete`. The browser makes the passkey without a prompt when its
 * password manager just filled this user's password; otherwise it refuses (NotAllowedError), and
 * the page carries on as before.
 */
export async function conditionalRegistration(api: PublicApi, registerToken: string, nickname?: string): Promise<ConditionalRegistration> {
  const begin = await callPublicApi<{ session: string; data: Record<string, unknown> }>(api, '/register/begin', {
    token: registerToken,
    RPID: api.rpId,
    Origin: api.origin,
    mediation: 'conditional',
  });
  if (!begin.ok) return { problem: begin.problem };
  let credential: Credential | null;
  try {
    credential = await navigator.credentials.create({ mediation: 'conditional', publicKey: creationOptionsOf(begin.value.data) } as CredentialCreationOptions);
  } catch (error) {
    // NotAllowedError: no recent password sign-in the browser vouches for, or no provider for it;
    // InvalidStateError: a passkey of this user's is already on the device (excludeCredentials).
    if (error instanceof DOMException) return { declined: error.name };
    return { problem: { from: 'client', errorCode: 'unknown', title: error instanceof Error ? error.message : String(error) } };
  }
  if (!credential) return { declined: 'NoCredential' };
  const complete = await callPublicApi<{ token: string }>(api, '/register/complete', registrationCompleteBody(credential as PublicKeyCredential, begin.value.session, nickname, api));
  return complete.ok ? { token: complete.value.token } : { problem: complete.problem };
}
