import type { AuthenticatorMetadata } from './authenticatorMetadata';

/** An authenticator's display name by AAGUID, or null when nothing names it. */
export type AuthenticatorNameOf = (aaguid: string) => string | null;

/**
 * The one place that decides a credential's `authenticatorName`: the description of its metadata
 * statement when FIDO metadata is loaded. A bundled AAGUID-to-name list (for authenticators the
 * metadata does not describe, such as password managers) belongs here, as the fallback.
 */
export function authenticatorNames(metadata: AuthenticatorMetadata): () => Promise<AuthenticatorNameOf> {
  return async () => {
    const catalog = await metadata.catalog();
    return (aaguid) => catalog?.entryOf(aaguid)?.description ?? null;
  };
}
