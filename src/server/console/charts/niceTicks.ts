/** Rounds away binary noise (0.1 + 0.2), so that tick values print as they should. */
const tidy = (n: number) => Number(n.toPrecision(12));

/**
 * Evenly spaced, round axis values (steps of 1, 2 or 5 times a power of ten) that cover `min`..`max`
 * and zero, at most about `count` of them. `integers`: no step below 1 (counts of people have no
 * halves). An empty or flat range (all zero) still gets an axis: 0 and 1.
 */
export function niceTicks(min: number, max: number, options: { count?: number; integers?: boolean } = {}): number[] {
  const count = Math.max(2, options.count ?? 5);
  let low = Math.min(0, Number.isFinite(min) ? min : 0);
  let high = Math.max(0, Number.isFinite(max) ? max : 0);
  if (high === low) high = low + 1;
  const rough = (high - low) / (count - 1);
  const magnitude = 10 ** Math.floor(Math.log10(rough));
  const residual = rough / magnitude;
  let step = (residual <= 1 ? 1 : residual <= 2 ? 2 : residual <= 5 ? 5 : 10) * magnitude;
  if (options.integers && step < 1) step = 1;
  low = Math.floor(tidy(low / step)) * step;
  high = Math.ceil(tidy(high / step)) * step;
  const ticks: number[] = [];
  for (let i = 0; tidy(low + i * step) <= tidy(high); i++) ticks.push(tidy(low + i * step));
  return ticks;
}
