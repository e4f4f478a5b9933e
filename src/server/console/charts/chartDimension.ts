/** Largest width or height a chart takes, in pixels: past it a caller's value is a mistake, not a wish. */
const MAX = 4000;

/** A width or height as given when it is a sane number of pixels (at least `min`), else `fallback`. Whole pixels. */
export function chartDimension(value: number | undefined, fallback: number, min: number): number {
  if (value === undefined || !Number.isFinite(value)) return fallback;
  return Math.round(Math.min(MAX, Math.max(min, value)));
}
