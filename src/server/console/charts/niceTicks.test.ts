import { niceTicks } from './niceTicks';

describe('niceTicks', () => {
  it('covers the range from zero in round steps', () => {
    expect(niceTicks(0, 10)).toEqual([0, 5, 10]);
    expect(niceTicks(3, 97)).toEqual([0, 50, 100]);
    expect(niceTicks(0, 130)).toEqual([0, 50, 100, 150]);
    expect(niceTicks(0, 7, { integers: true })).toEqual([0, 2, 4, 6, 8]);
  });

  it('gives a flat or empty range (all zero) the axis 0 to 1', () => {
    expect(niceTicks(0, 0, { integers: true })).toEqual([0, 1]);
    expect(niceTicks(0, 0)).toEqual([0, 0.5, 1]);
    expect(niceTicks(Number.NaN, Number.POSITIVE_INFINITY, { integers: true })).toEqual([0, 1]);
  });

  it('keeps whole numbers whole when asked, and prints fractions without binary noise', () => {
    expect(niceTicks(0, 2, { integers: true })).toEqual([0, 1, 2]);
    expect(niceTicks(0, 0.3)).toEqual([0, 0.1, 0.2, 0.3]);
  });

  it('reaches below zero for negative values, and handles very large ones', () => {
    expect(niceTicks(-4, 6)).toEqual([-5, 0, 5, 10]);
    expect(niceTicks(0, 987_654_321)).toEqual([0, 500_000_000, 1_000_000_000]);
    const huge = niceTicks(0, 1e300);
    expect(huge[0]).toBe(0);
    expect(huge[huge.length - 1]).toBeGreaterThanOrEqual(1e300);
    expect(huge.length).toBeLessThanOrEqual(6);
  });
});
