/**
 * At most `limit` grants in each second of the clock (a fixed window): for work a request may
 * cause before the rate limits see it, so that a flood costs at most this much of it.
 */
export function perSecondBudget(limit: number, now: () => number = Date.now): () => boolean {
  let second = Number.NaN;
  let granted = 0;
  return () => {
    const current = Math.floor(now() / 1000);
    if (current !== second) {
      second = current;
      granted = 0;
    }
    if (granted >= limit) return false;
    granted++;
    return true;
  };
}
