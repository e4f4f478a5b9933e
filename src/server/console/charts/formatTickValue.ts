const UNITS: [number, string][] = [
  [1e12, 'T'],
  [1e9, 'B'],
  [1e6, 'M'],
  [1e3, 'k'],
];

/** Without the zeros a fixed-point string ends in ("1.50" → "1.5", "2.0" → "2"). */
const trimmed = (fixed: string) => (fixed.includes('.') ? fixed.replace(/\.?0+$/, '') : fixed);

/** An axis value short enough for a tick label: 950, 1.2k, 3.4M; fractions to two places. Locale-free, so charts render the same everywhere. */
export function formatTickValue(value: number): string {
  const magnitude = Math.abs(value);
  for (const [unit, suffix] of UNITS) if (magnitude >= unit) return `${trimmed((value / unit).toFixed(1))}${suffix}`;
  const text = trimmed(value.toFixed(2));
  return text === '-0' ? '0' : text;
}
