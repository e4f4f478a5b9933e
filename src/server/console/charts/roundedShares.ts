/**
 * Whole percentages of each value in their total that add up to exactly 100 (largest remainders
 * get the points that rounding down leaves, earlier values first on a tie). All zeros when the
 * total is not positive; negative values count as zero.
 */
export function roundedShares(values: number[]): number[] {
  const clean = values.map((v) => (Number.isFinite(v) && v > 0 ? v : 0));
  const total = clean.reduce((sum, v) => sum + v, 0);
  if (!(total > 0) || !Number.isFinite(total)) return clean.map(() => 0);
  const exact = clean.map((v) => (v / total) * 100);
  const shares = exact.map(Math.floor);
  let left = 100 - shares.reduce((sum, v) => sum + v, 0);
  const byRemainder = exact.map((v, i) => ({ i, remainder: v - Math.floor(v) })).sort((a, b) => b.remainder - a.remainder || a.i - b.i);
  for (const { i } of byRemainder) {
    if (left <= 0) break;
    shares[i] += 1;
    left -= 1;
  }
  return shares;
}
