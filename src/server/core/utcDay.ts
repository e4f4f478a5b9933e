/**
 * Days as the reports and the credentials' `lastUsedDay` count them: whole UTC days since
 * 1970-01-01 (day 0), written `yyyy-MM-dd` on the wire.
 */
export const DAY_MS = 86_400_000;

/** The UTC day an instant (epoch milliseconds) falls on. */
export function utcDayOf(ms: number): number {
  return Math.floor(ms / DAY_MS);
}

/** `yyyy-MM-dd` of a day number. */
export function utcDateOf(day: number): string {
  return new Date(day * DAY_MS).toISOString().slice(0, 10);
}

/** The day number of a `yyyy-MM-dd` date, or undefined when it is no real calendar date. */
export function utcDayOfDate(date: string): number | undefined {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(date)) return undefined;
  const ms = Date.parse(`${date}T00:00:00Z`);
  // Date.parse rolls 2026-02-30 over to March; a date that does not come back unchanged is not real.
  if (Number.isNaN(ms) || utcDateOf(utcDayOf(ms)) !== date) return undefined;
  return utcDayOf(ms);
}
