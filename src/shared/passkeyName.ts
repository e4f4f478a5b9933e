/** The longest passkey name (nickname) the service keeps. */
export const MAX_PASSKEY_NAME_LENGTH = 64;

// Control characters, line and paragraph separators, and invisible formatting characters (zero
// widths, bidirectional overrides and isolates): a passkey's name reaches account pages, mails and
// webhook consumers, where they hide text or make it read backwards.
const HIDDEN_OR_REORDERING = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}]/u;

/** Why `name` cannot name a passkey, or undefined. Says what is wrong, never echoes the name. */
export function passkeyNameProblem(name: string): string | undefined {
  if (name.length > MAX_PASSKEY_NAME_LENGTH) return `cannot be longer than ${MAX_PASSKEY_NAME_LENGTH} characters`;
  if (HIDDEN_OR_REORDERING.test(name)) return 'must not contain control characters, line breaks or invisible formatting characters (such as bidirectional overrides)';
  return undefined;
}
