import { sqliteCodec } from './sqliteCodec';

describe('sqliteCodec', () => {
  it('writes times as Prisma does and reads back every form a row may hold as UTC', () => {
    const ms = Date.UTC(2026, 10, 27, 12, 30, 15, 250);
    expect(sqliteCodec.time(ms)).toBe('2026-11-27T12:30:15.250+00:00');
    expect(sqliteCodec.timeOf(sqliteCodec.time(ms))).toBe(ms);
    expect(sqliteCodec.timeOf('2026-11-27T12:30:15.250Z')).toBe(ms);
    expect(sqliteCodec.timeOf('2026-11-27 12:30:15.250')).toBe(ms);
    expect(sqliteCodec.timeOf(ms)).toBe(ms);
  });

  it('writes booleans as 0/1 and reads them back', () => {
    expect([sqliteCodec.bool(true), sqliteCodec.bool(false)]).toEqual([1, 0]);
    expect([sqliteCodec.boolOf(1), sqliteCodec.boolOf(0)]).toEqual([true, false]);
  });
});
