/** After the n-th failed attempt (1-based), the wait before the next: 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, then every 10 h. */
export const RETRY_DELAYS_MS = [5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000] as const;
/** A delivery is given up once its next attempt would fall later than this after it was made. */
export const GIVE_UP_AFTER_MS = 3 * 86_400_000;
const JITTER = 0.1;

/**
 * When a delivery that failed `attempts` times is tried again, with ±10 % jitter so that an
 * endpoint's many deliveries, or many endpoints that were down together, do not all come back at
 * once; undefined when it is time to give up (about three days after the delivery was made).
 * `random` is in [0, 1).
 */
export function nextAttemptAt(attempts: number, createdAt: number, now: number, random: number): number | undefined {
  const base = RETRY_DELAYS_MS[Math.min(Math.max(attempts, 1), RETRY_DELAYS_MS.length) - 1];
  const at = now + Math.round(base * (1 - JITTER + 2 * JITTER * random));
  return at - createdAt > GIVE_UP_AFTER_MS ? undefined : at;
}
