/**
 * SimpleWebAuthn throws plain Errors whose messages quote expected values. Callers get a stable,
 * short explanation instead; the library's text never reaches a response.
 */
const REASONS: [RegExp, string][] = [
  // An attestation format's own checks name the format in parentheses, whatever else they mention.
  [/\((Packed|Full|TPM|Android Key|Apple|FIDOU2F|SafetyNet)[|)]|attestation|certificate|x5c|statement/i, 'The attestation statement could not be verified.'],
  [/challenge/i, 'The response does not answer this session\'s challenge.'],
  [/origin/i, 'The response was made for a different origin.'],
  [/RP ?ID/i, 'The response was made for a different RP ID.'],
  [/user verification|user could not be verified/i, 'User verification was required but the authenticator did not perform it.'],
  [/user (was )?not present|user presence/i, 'The authenticator did not confirm user presence.'],
  [/algorithm|\balg\b/i, 'The authenticator used a public-key algorithm this service does not accept.'],
  [/counter/i, 'The signature counter did not increase: this authenticator may have been cloned.'],
  [/backup|backed up|InvalidBackupFlags/i, 'The authenticator reported inconsistent backup flags.'],
  [/type/i, 'The response is for a different kind of ceremony.'],
  [/signature/i, 'The signature could not be verified.'],
];

/**
 * The part of a message that names the failed check. Quoted values and what follows ", expected"
 * only repeat inputs (an origin may well contain the word "challenge"), so they are left out.
 */
function checkOf(message: string): string {
  return message.replace(/"[^"]*"/g, '""').split(', expected')[0];
}

export function describeVerificationFailure(error: unknown): string {
  const check = checkOf(error instanceof Error ? error.message : '');
  for (const [pattern, reason] of REASONS) if (pattern.test(check)) return reason;
  return 'The authenticator response is malformed or could not be verified.';
}
