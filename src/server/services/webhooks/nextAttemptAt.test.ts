import { GIVE_UP_AFTER_MS, RETRY_DELAYS_MS, nextAttemptAt } from './nextAttemptAt';

describe('nextAttemptAt', () => {
  it('waits 5 s, 5 min, 30 min, 2 h, 5 h, 10 h, then 10 h again, without jitter at the middle of its range', () => {
    const waits = [1, 2, 3, 4, 5, 6, 7].map((n) => nextAttemptAt(n, 0, 1000, 0.5)! - 1000);
    expect(waits).toEqual([5_000, 300_000, 1_800_000, 7_200_000, 18_000_000, 36_000_000, 36_000_000]);
  });

  it('jitters by at most 10 % either way', () => {
    expect(nextAttemptAt(2, 0, 0, 0)).toBe(270_000);
    expect(nextAttemptAt(2, 0, 0, 0.999_999)).toBeLessThanOrEqual(330_000);
    expect(nextAttemptAt(2, 0, 0, 0.999_999)).toBeGreaterThan(329_000);
  });

  it('gives up once the next attempt would be more than three days after the delivery was made', () => {
    let now = 0;
    let attempts = 0;
    for (;;) {
      const next = nextAttemptAt(++attempts, 0, now, 0.5);
      if (next === undefined) break;
      now = next;
    }
    expect(now).toBeLessThanOrEqual(GIVE_UP_AFTER_MS);
    expect(now + RETRY_DELAYS_MS[5]).toBeGreaterThan(GIVE_UP_AFTER_MS);
    expect(attempts).toBe(12);
  });
});
