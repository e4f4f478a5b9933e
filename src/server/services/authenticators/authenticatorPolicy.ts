import type { ATTESTATIONS } from '../../../shared/vocabulary';
import { ApiError } from '../../core/apiError';
import { attestationTrustOf, type AttestationTrust } from '../../webauthn/metadata/attestationTrust';
import { undesiredStatusOf } from '../../webauthn/metadata/metadataCatalog';
import { attestationAllowed, type AppFeaturesCache } from '../apps/appFeaturesCache';
import type { AuthenticatorMetadata } from '../metadata/authenticatorMetadata';
import type { AuthenticatorLists } from './authenticatorLists';

/** What registration knows of a verified attestation when it asks whether to keep the passkey. */
export interface RegisteredAuthenticator {
  aaguid: string;
  /** The attestation statement's format (`none`, `packed`, ...). */
  fmt: string;
  /** What the ceremony asked for. */
  attestation: (typeof ATTESTATIONS)[number];
  attestationObject: Parameters<typeof attestationTrustOf>[1];
}

/** What an `AuthenticatorPolicy` is built from. */
export interface AuthenticatorPolicyDeps {
  metadata: AuthenticatorMetadata;
  lists: AuthenticatorLists;
  features: AppFeaturesCache;
}

/**
 * Whether a verified registration may be kept, by the FIDO metadata and the app's lists. Called
 * before anything is stored, so a refusal leaves no credential.
 */
export class AuthenticatorPolicy {
  private readonly metadata: AuthenticatorMetadata;
  private readonly lists: AuthenticatorLists;
  private readonly features: AppFeaturesCache;

  constructor(deps: AuthenticatorPolicyDeps) {
    this.metadata = deps.metadata;
    this.lists = deps.lists;
    this.features = deps.features;
  }

  async assertAllowed(appId: string, registered: RegisteredAuthenticator): Promise<void> {
    const entry = (await this.metadata.catalog())?.entryOf(registered.aaguid);
    // For every app: an authenticator its vendor or the FIDO Alliance reported compromised or revoked.
    const status = undesiredStatusOf(entry);
    if (status) throw new ApiError('authenticator_not_allowed', { detail: `The FIDO metadata reports this authenticator as ${status}.` });
    if (!attestationAllowed(await this.features.get(appId))) return;

    const lists = await this.lists.verdictFor(appId, registered.aaguid);
    if (lists.listed === false) {
      throw new ApiError('authenticator_not_allowed', { detail: 'The authenticator is on the blocklist and is not allowed to be used for registration.' });
    }
    // Without an attestation the AAGUID is only the authenticator's own claim.
    const attested = registered.attestation !== 'none' && registered.fmt !== 'none';
    const trust: AttestationTrust = attested ? await attestationTrustOf(entry, registered.attestationObject) : { verdict: 'unverifiable' };
    if (trust.verdict === 'untrusted') {
      throw new ApiError('fido2_invalid_registration', { detail: `The attestation is not signed under a root the FIDO metadata lists for this authenticator: ${trust.reason}.` });
    }
    if (!lists.allowlistExists) return;
    if (!attested) throw new ApiError('attestation_required');
    if (lists.listed !== true) {
      throw new ApiError('authenticator_not_allowed', {
        detail: 'An allowlist was configured. The authenticator is not found on the allowlist and is not allowed to be used for registration.',
      });
    }
    if (trust.verdict !== 'verified') {
      throw new ApiError('authenticator_not_allowed', {
        detail: "An allowlist was configured, and this authenticator's attestation carries no certificate the FIDO metadata vouches for.",
      });
    }
  }
}
