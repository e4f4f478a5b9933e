import type { AuthenticatorMetadata } from './authenticatorMetadata';
import type { ProviderNames } from './providerNames';

/** An authenticator's display name by AAGUID, or null when nothing names it. */
export type AuthenticatorNameOf = (aaguid: string) => string | null;

/**
 * The one place that decides a credential's `authenticatorName`: the description of its metadata
 * statement when FIDO metadata is loaded and describes it; otherwise the provider names (the
 * operator's AAGUID_NAMES_FILE over the bundled list), which also name password managers the
 * metadata does not describe.
 */
export function authenticatorNames(metadata: AuthenticatorMetadata, providers: ProviderNames): () => Promise<AuthenticatorNameOf> {
  return async () => {
    const catalog = await metadata.catalog();
    return (aaguid) => catalog?.entryOf(aaguid)?.description ?? providers(aaguid) ?? null;
  };
}
