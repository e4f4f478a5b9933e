/**
 * SimpleWebAuthn throws plain Errors whose messages quote expected values. Callers get a stable,
 * short explanation instead; the library's text never reaches a response.
 */
const REASONS: [RegExp, string][] = [
  [/challenge/i, 'The response does not answer this session\'s challenge.'],
  [/origin/i, 'The response was made for a different origin.'],
  [/RP ?ID/i, 'The response was made for a different RP ID.'],
  [/user verification/i, 'User verification was required but the authenticator did not perform it.'],
  [/user (was not )?present|user presence/i, 'The authenticator did not confirm user presence.'],
  [/algorithm/i, 'The authenticator used a public-key algorithm this service does not accept.'],
  [/counter/i, 'The signature counter did not increase: this authenticator may have been cloned.'],
  [/backup|backed up|InvalidBackupFlags/i, 'The authenticator reported inconsistent backup flags.'],
  [/type/i, 'The response is for a different kind of ceremony.'],
  [/attestation|certificate|x5c|statement/i, 'The attestation statement could not be verified.'],
  [/signature/i, 'The signature could not be verified.'],
];

export function describeVerificationFailure(error: unknown): string {
  const message = error instanceof Error ? error.message : '';
  for (const [pattern, reason] of REASONS) if (pattern.test(message)) return reason;
  return 'The authenticator response is malformed or could not be verified.';
}
