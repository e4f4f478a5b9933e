import { postgresCodec } from './postgresCodec';

describe('postgresCodec', () => {
  it('writes times as UTC text and reads a timestamp column back as UTC', () => {
    const ms = Date.UTC(2026, 10, 27, 12, 30, 15, 250);
    expect(postgresCodec.time(ms)).toBe('2026-11-27T12:30:15.250Z');
    // How the driver hands back a `timestamp(3)` (see postgresTypeParsers).
    expect(postgresCodec.timeOf('2026-11-27 12:30:15.25')).toBe(ms);
    expect(postgresCodec.timeOf(new Date(ms))).toBe(ms);
  });

  it('keeps booleans native', () => {
    expect([postgresCodec.bool(true), postgresCodec.boolOf(true), postgresCodec.boolOf(false)]).toEqual([true, true, false]);
  });
});
