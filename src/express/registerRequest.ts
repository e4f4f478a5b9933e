import type { RegisterOptions } from './apiTypes';
import type { RegisterSettings } from './settings';

/**
 * The `/register/token` request for a user, with the `Register__*` settings sent in the form the
 * service expects (lowercase enum values, `expiresAt` = now + `Register__Expiration`).
 */
export function registerRequest(
  settings: RegisterSettings,
  user: { userId: string; username: string; displayName: string; aliases: string[] },
  now = Date.now(),
): RegisterOptions {
  return {
    userId: user.userId,
    username: user.username,
    displayName: user.displayName,
    attestation: settings.attestation,
    authenticatorType: settings.authenticatorType,
    discoverable: settings.discoverable,
    userVerification: settings.userVerification,
    expiresAt: new Date(now + settings.expirationSeconds * 1000),
    aliases: user.aliases,
    aliasHashing: settings.aliasHashing,
    ...(settings.prf ? { extensions: { prf: true } } : {}),
  };
}
