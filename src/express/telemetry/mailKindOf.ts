/**
 * Which of the middleware's mails a magic link is, from its URL template (mailedLinks.ts builds
 * each with its own marker): a fixed label for the mails-sent metric, never part of the address.
 */
export function mailKindOf(urlTemplate: string): 'verification' | 'recovery' | 'account_exists' | 'other' {
  if (urlTemplate.includes('?signup=')) return 'verification';
  if (urlTemplate.includes('?recovery=')) return 'recovery';
  if (urlTemplate.includes('#passwordless-account-exists=')) return 'account_exists';
  return 'other';
}
