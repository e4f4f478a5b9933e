import { callPublicApi, type CeremonyProblem, type PublicApi } from './publicApi.js';
import type { ClientExtensionResults } from './webauthnJson.js';

/**
 * How the browser is asked: `modal` (the usual prompt), `conditional` (autofill for a sign-in; for a
 * registration, no prompt at all, right after the browser's password manager filled a password),
 * `immediate` (a sign-in that shows nothing unless the device has a passkey for the site).
 */
export type Mediation = 'modal' | 'conditional' | 'immediate';

/**
 * How a ceremony ended: the `verify_` token and the browser's client extension results (the
 * page's, PRF outputs included), or the problem. `declined` names the browser's refusal (its
 * DOMException's name, `NoCredential` when it answered nothing): dismissed, nothing to offer,
 * aborted, or a passkey of the user's already on the device.
 */
export type CeremonyResult =
  | { token: string; extensions: ClientExtensionResults; problem?: undefined; declined?: undefined }
  | { token?: undefined; extensions?: undefined; problem: CeremonyProblem; declined?: string };

/** A ceremony's three steps: its begin body, the browser's part (with begin's `data`), its complete body. */
export interface CeremonySteps {
  kind: 'signin' | 'register';
  begin: Record<string, unknown>;
  ask(data: Record<string, unknown>): Promise<Credential | null>;
  complete(credential: PublicKeyCredential, session: string): unknown;
}

const clientProblem = (errorCode: string, title: string): CeremonyProblem => ({ from: 'client', errorCode, title });

/**
 * `/<kind>/begin`, the browser, `/<kind>/complete`, in the published client's wire format. Never
 * throws: a failure is the result's problem, as with the published client.
 */
export async function runCeremony(api: PublicApi, steps: CeremonySteps): Promise<CeremonyResult> {
  try {
    const begin = await callPublicApi<{ session: string; data: Record<string, unknown> }>(api, `/${steps.kind}/begin`, steps.begin);
    if (!begin.ok) return { problem: begin.problem };
    let credential: Credential | null;
    try {
      credential = await steps.ask(begin.value.data);
    } catch (error) {
      if (error instanceof DOMException) return { declined: error.name, problem: clientProblem('unknown', error.message || error.name) };
      throw error;
    }
    if (!credential) return { declined: 'NoCredential', problem: clientProblem(`failed_${steps.kind === 'signin' ? 'get' : 'create'}_credential`, 'The browser made no passkey.') };
    const complete = await callPublicApi<{ token: string }>(api, `/${steps.kind}/complete`, steps.complete(credential as PublicKeyCredential, begin.value.session));
    if (!complete.ok) return { problem: complete.problem };
    return { token: complete.value.token, extensions: (credential as PublicKeyCredential).getClientExtensionResults() as ClientExtensionResults };
  } catch (error) {
    return { problem: clientProblem('unknown', error instanceof Error ? error.message : String(error)) };
  }
}
