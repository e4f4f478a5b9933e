import { MAX_REPORT_DAYS, periodDays, reportPeriod } from './reportingPeriod';

const NOW = Date.parse('2026-11-28T15:00:00Z');

describe('reportPeriod', () => {
  it('shows the 30 days up to today by default', () => {
    expect(reportPeriod({}, NOW)).toEqual({ from: '2026-10-30', to: '2026-11-28' });
    expect(periodDays(reportPeriod({}, NOW))).toBe(30);
  });

  it('takes a given period, swaps an inverted one, and ignores what is not a date', () => {
    expect(reportPeriod({ from: '2026-01-01', to: '2026-01-31' }, NOW)).toEqual({ from: '2026-01-01', to: '2026-01-31' });
    expect(reportPeriod({ from: '2026-01-31', to: '2026-01-01' }, NOW)).toEqual({ from: '2026-01-01', to: '2026-01-31' });
    expect(reportPeriod({ from: '<script>', to: ['2026-01-01'] }, NOW)).toEqual({ from: '2026-10-30', to: '2026-11-28' });
  });

  it('keeps the last days of a period longer than the most one page reads', () => {
    const period = reportPeriod({ from: '2000-01-01', to: '2026-11-28' }, NOW);
    expect(period.to).toBe('2026-11-28');
    expect(periodDays(period)).toBe(MAX_REPORT_DAYS);
  });
});
