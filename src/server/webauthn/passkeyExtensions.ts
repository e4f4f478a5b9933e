import { z } from 'zod';
import { ciEnum, looseBoolean } from '../core/validation';
import { prfSaltInput } from './prfSalt';

/**
 * The WebAuthn extensions a registration or a sign-in may ask the browser for (issue 35): `prf`
 * (a secret the page derives from the passkey), `largeBlob` (a small blob kept on the
 * authenticator) and `credProps` (whether the passkey is discoverable). The service only puts them
 * in the options; what the browser answers stays with the page, except what the service records:
 * `credProps.rk` and `prf.enabled` at registration. An unknown extension name is refused, so a typo
 * does not pass for a request that was heard.
 */
function strict<T extends z.ZodRawShape>(shape: T) {
  // Names as ciObject takes them: any case.
  const byLower = new Map(Object.keys(shape).map((key) => [key.toLowerCase(), key]));
  const rename = (input: unknown) =>
    input && typeof input === 'object' && !Array.isArray(input) ? Object.fromEntries(Object.entries(input).map(([k, v]) => [byLower.get(k.toLowerCase()) ?? k, v])) : input;
  return z.preprocess(rename, z.strictObject(shape, { message: `must be an object of ${Object.keys(shape).join(', ')}` }));
}

/** `/register/token`'s `extensions` (ours): `credProps` is asked for unless it is false, as before. */
export const registrationExtensionsSchema = strict({
  prf: looseBoolean().optional(),
  largeBlob: ciEnum(['required', 'preferred']).optional(),
  credProps: looseBoolean().optional(),
});
export type RegistrationExtensions = z.output<typeof registrationExtensionsSchema>;

/** An authentication configuration's `extensions`: `credProps` belongs to registrations only. */
export const signinExtensionsSchema = strict({
  prf: looseBoolean().optional(),
  largeBlob: ciEnum(['read']).optional(),
});
export type SigninExtensions = z.output<typeof signinExtensionsSchema>;

/**
 * The `extensions` of `navigator.credentials.create`. `prf: {}` asks the authenticator to enable
 * PRF for the new passkey and the browser to report `prf.enabled`; no `eval` at creation, so the
 * options stay plain JSON that the published client passes through unchanged.
 */
export function registrationExtensionInputs(requested: RegistrationExtensions | undefined): Record<string, unknown> {
  return {
    ...(requested?.credProps === false ? {} : { credProps: true }),
    ...(requested?.prf ? { prf: {} } : {}),
    ...(requested?.largeBlob ? { largeBlob: { support: requested.largeBlob } } : {}),
  };
}

/**
 * The `extensions` of `navigator.credentials.get` (absent when none is asked for). PRF goes out
 * only as `evalByCredential`, one salt per offered passkey (base64url; the browser module decodes
 * them): a sign-in that offers no passkey (discoverable, autofill) gets no PRF request at all,
 * because `eval` with one salt for every passkey would give a passkey a different output there than
 * in a named sign-in, and a key derived from it would not open what the other one sealed.
 */
export function signinExtensionInputs(requested: SigninExtensions, offered: { id: string; prfSalt: string | null }[]): Record<string, unknown> | undefined {
  const salted = offered.filter((c): c is { id: string; prfSalt: string } => c.prfSalt !== null);
  const inputs: Record<string, unknown> = {
    ...(requested.prf && salted.length > 0 ? { prf: { evalByCredential: Object.fromEntries(salted.map((c) => [c.id, { first: prfSaltInput(c.prfSalt) }])) } } : {}),
    ...(requested.largeBlob === 'read' ? { largeBlob: { read: true } } : {}),
  };
  return Object.keys(inputs).length > 0 ? inputs : undefined;
}
