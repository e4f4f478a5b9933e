import { DAY_MS, utcDateOf, utcDayOf, utcDayOfDate } from './utcDay';

describe('UTC days', () => {
  it('counts whole UTC days from 1970-01-01, whatever the hour', () => {
    expect(utcDayOf(0)).toBe(0);
    expect(utcDayOf(DAY_MS - 1)).toBe(0);
    expect(utcDayOf(Date.parse('2026-11-25T23:59:59.999Z'))).toBe(utcDayOf(Date.parse('2026-11-25T00:00:00Z')));
    expect(utcDayOf(Date.parse('2026-11-26T00:00:00Z')) - utcDayOf(Date.parse('2026-11-25T12:00:00Z'))).toBe(1);
    expect(utcDayOf(-1)).toBe(-1);
  });

  it('writes and reads yyyy-MM-dd, refusing what is no calendar date', () => {
    const day = utcDayOf(Date.parse('2024-02-29T08:00:00Z'));
    expect(utcDateOf(day)).toBe('2024-02-29');
    expect(utcDayOfDate('2024-02-29')).toBe(day);
    for (const bad of ['2025-02-29', '2026-13-01', '2026-11-31', '26-11-25', '2026-11-25T00:00:00Z', '', '2026/11/25']) expect(utcDayOfDate(bad)).toBeUndefined();
  });
});
