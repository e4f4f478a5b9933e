import { DAY_MS, utcDateOf, utcDayOf, utcDayOfDate } from '../../core/utcDay';

/** The longest period one reporting page reads: a row per day, so at most this many rows per chart. */
export const MAX_REPORT_DAYS = 366;
const DEFAULT_DAYS = 30;

export interface ReportPeriod {
  from: string;
  to: string;
}

/**
 * The days a reporting page shows, from its `from`/`to` query (yyyy-MM-dd, inclusive): by default
 * the 30 days up to today (by the services' clock); a missing or malformed end falls back, an
 * inverted period is swapped, and a longer period keeps its last `MAX_REPORT_DAYS` days.
 */
export function reportPeriod(query: { from?: unknown; to?: unknown }, now: number): ReportPeriod {
  const read = (value: unknown) => (typeof value === 'string' ? utcDayOfDate(value) : undefined);
  let to = read(query.to) ?? utcDayOf(now);
  let from = read(query.from) ?? to - (DEFAULT_DAYS - 1);
  if (from > to) [from, to] = [to, from];
  if (to - from + 1 > MAX_REPORT_DAYS) from = to - (MAX_REPORT_DAYS - 1);
  return { from: utcDateOf(from), to: utcDateOf(to) };
}

/** How many days a period covers. */
export const periodDays = (period: ReportPeriod): number => Math.round((Date.parse(period.to) - Date.parse(period.from)) / DAY_MS) + 1;
