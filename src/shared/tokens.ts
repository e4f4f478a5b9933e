/**
 * Token prefixes. The service puts the prefix inside each token's MAC; clients use it to tell a
 * registration token from a sign-in result before sending it anywhere.
 */
export const TOKEN_PREFIXES = { register: 'register_', session: 'session_', verify: 'verify_' } as const;

/** What `/signin/verify` reports as a verified token's `type`. */
export const VERIFY_TOKEN_TYPES = ['passkey_register', 'passkey_signin', 'generated_signin', 'magic_link'] as const;
export type VerifyTokenType = (typeof VERIFY_TOKEN_TYPES)[number];
