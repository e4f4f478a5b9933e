/** A coordinate as the SVG carries it: to a tenth of a pixel, so the output is small and the same on every run. */
export function coordinate(n: number): string {
  const rounded = Math.round(n * 10) / 10;
  return String(rounded === 0 ? 0 : rounded);
}
