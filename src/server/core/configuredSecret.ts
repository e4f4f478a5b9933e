import { createHash, timingSafeEqual } from 'node:crypto';

const sha256 = (value: string) => createHash('sha256').update(value).digest();

/**
 * A comparer for a secret from the configuration (MANAGEMENT_KEY, METRICS_TOKEN), or undefined when
 * it is unset. Both sides are hashed first, so the comparison takes the same time whatever the
 * lengths, and the secret itself is not kept.
 */
export function configuredSecret(secret: string | undefined): ((given: string) => boolean) | undefined {
  if (secret === undefined) return undefined;
  const expected = sha256(secret);
  return (given) => timingSafeEqual(sha256(given), expected);
}
