import { roundedShares } from './roundedShares';

describe('roundedShares', () => {
  it('answers whole percentages that add up to 100', () => {
    expect(roundedShares([1, 1, 1])).toEqual([34, 33, 33]);
    expect(roundedShares([82, 12, 6])).toEqual([82, 12, 6]);
    expect(roundedShares([2, 1])).toEqual([67, 33]);
    const shares = roundedShares([7, 13, 29, 1, 50, 3]);
    expect(shares.reduce((a, b) => a + b, 0)).toBe(100);
  });

  it('gives the points rounding leaves to the largest remainders, earlier ones first on a tie', () => {
    expect(roundedShares([1, 2])).toEqual([33, 67]);
    expect(roundedShares([1, 1, 1, 1, 1, 1])).toEqual([17, 17, 17, 17, 16, 16]);
  });

  it('answers zeros when there is nothing, and counts negative or non-finite values as nothing', () => {
    expect(roundedShares([])).toEqual([]);
    expect(roundedShares([0, 0])).toEqual([0, 0]);
    expect(roundedShares([-5, 5, Number.NaN])).toEqual([0, 100, 0]);
    expect(roundedShares([Number.POSITIVE_INFINITY, 1])).toEqual([0, 100]);
  });
});
