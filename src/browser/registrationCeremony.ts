import type { PublicApi } from './publicApi.js';
import { runCeremony, type CeremonyResult, type Mediation } from './runCeremony.js';
import { creationOptionsOf, registrationCompleteBody } from './webauthnJson.js';

/**
 * `/register/begin` with a register token, the browser's create with `mediation`,
 * `/register/complete`. `conditional` is the automatic upgrade's create, which the published client
 * cannot make: the begin request says so too, because the service accepts a passkey made without
 * user presence only from a ceremony begun as conditional. The extension inputs are decoded for the
 * browser, and the PRF outputs stay with the page (webauthnJson).
 */
export function registrationCeremony(
  api: PublicApi,
  registerToken: string,
  { nickname, mediation = 'modal' }: { nickname?: string; mediation?: Exclude<Mediation, 'immediate'> } = {},
): Promise<CeremonyResult> {
  const conditional = mediation === 'conditional' ? { mediation } : {};
  return runCeremony(api, {
    kind: 'register',
    begin: { token: registerToken, RPID: api.rpId, Origin: api.origin, ...conditional },
    ask: (data) => navigator.credentials.create({ publicKey: creationOptionsOf(data), ...conditional } as CredentialCreationOptions),
    complete: (credential, session) => registrationCompleteBody(credential, session, nickname, api),
  });
}
