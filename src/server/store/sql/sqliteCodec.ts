import type { SqlCodec } from './codec';

/**
 * How Prisma's SQLite adapter writes a DateTime (its default `iso8601` format). Comparisons in SQL
 * are textual, so every time written or compared must use exactly this form.
 */
const time = (ms: number): string => new Date(ms).toISOString().replace('Z', '+00:00');

/** A stored time: this form, or a form an older writer left (no zone: UTC; a number: epoch ms). */
function timeOf(value: unknown): number {
  if (typeof value === 'number') return value;
  const text = String(value);
  const parsed = Date.parse(text);
  // Date.parse takes a date-time without a zone as local time; these are UTC.
  return /(Z|[+-]\d\d:?\d\d)$/.test(text) ? parsed : Date.parse(`${text.replace(' ', 'T')}Z`);
}

/** SQLite's encoding: ISO text times, 0/1 booleans. */
export const sqliteCodec: SqlCodec = {
  time,
  bool: (value) => (value ? 1 : 0),
  timeOf,
  boolOf: (value) => value === 1 || value === true,
};
