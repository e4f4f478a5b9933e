import { canonicalValue, ValueError } from './canonicalValue';
import { postgresValue, sqliteValue } from './encodeValue';

describe('canonical values', () => {
  it('reads one instant the same from every encoding the two databases use', () => {
    const forms = [
      '2026-11-25T09:45:11.141+00:00', // Prisma's SQLite adapter and the hot path
      '2026-11-25T09:45:11.141Z',
      '2026-11-25 09:45:11.141', // PostgreSQL timestamp
      '2026-11-25 10:45:11.141+01', // PostgreSQL timestamptz elsewhere
      '2026-11-25T04:15:11.141-05:30',
      1795599911141, // unixepoch-ms
      1795599911141n,
      new Date('2026-11-25T09:45:11.141Z'),
    ];
    expect(forms.map((raw) => canonicalValue('datetime', raw))).toEqual(forms.map(() => '2026-11-25T09:45:11.141Z'));
  });

  it('pads PostgreSQL trimmed fractions and SQLite CURRENT_TIMESTAMP to milliseconds, and keeps microseconds when there are any', () => {
    expect(canonicalValue('datetime', '2026-11-25 09:45:11.1')).toBe('2026-11-25T09:45:11.100Z');
    expect(canonicalValue('datetime', '2026-11-25 09:45:11')).toBe('2026-11-25T09:45:11.000Z');
    expect(canonicalValue('datetime', '2026-11-25')).toBe('2026-11-25T00:00:00.000Z');
    expect(canonicalValue('datetime', '2026-11-25 09:45:11.123456')).toBe('2026-11-25T09:45:11.123456Z');
  });

  it('reads booleans, integers and bigints from either driver', () => {
    expect([1, 1n, true, 't'].map((raw) => canonicalValue('boolean', raw))).toEqual(['true', 'true', 'true', 'true']);
    expect([0, 0n, false, 'f'].map((raw) => canonicalValue('boolean', raw))).toEqual(['false', 'false', 'false', 'false']);
    expect(canonicalValue('bigint', 9007199254740993n)).toBe('9007199254740993');
    expect(canonicalValue('bigint', '9007199254740993')).toBe('9007199254740993');
    expect(canonicalValue('int', -42)).toBe('-42');
    expect(canonicalValue('int', '007')).toBe('7');
  });

  it('compares decimals, floats, bytes and JSON by value', () => {
    expect(canonicalValue('decimal', '1.50')).toBe(canonicalValue('decimal', 1.5));
    expect(canonicalValue('decimal', '-0.000')).toBe('0');
    expect(canonicalValue('decimal', 1.5e21)).toBe('1500000000000000000000');
    expect(canonicalValue('decimal', '2e-3')).toBe('0.002');
    expect(canonicalValue('float', 0.1)).toBe(canonicalValue('float', '0.1'));
    expect(canonicalValue('bytes', Buffer.from([0, 255, 7]))).toBe('AP8H');
    expect(canonicalValue('json', '{"b": [1, {"d":1,"c":2}], "a": null}')).toBe(canonicalValue('json', '{"a":null,"b":[1,{"c":2,"d":1}]}'));
  });

  it('keeps SQL NULL apart from every value, the empty string and JSON null included', () => {
    expect(canonicalValue('text', null)).toBeNull();
    expect(canonicalValue('text', '')).toBe('');
    expect(canonicalValue('json', 'null')).toBe('null');
  });

  it('refuses a value that does not fit its column, saying what it found', () => {
    expect(() => canonicalValue('datetime', 'yesterday')).toThrow(new ValueError('holds string "yesterday", which is not a time'));
    expect(() => canonicalValue('datetime', '2026-02-31T10:00:00.000+00:00')).toThrow(ValueError);
    expect(() => canonicalValue('datetime', '2026-11-25 24:00:00')).toThrow(ValueError);
    expect(() => canonicalValue('boolean', 2)).toThrow(ValueError);
    expect(() => canonicalValue('int', 1.5)).toThrow(ValueError);
    expect(() => canonicalValue('text', 12)).toThrow(ValueError);
    expect(() => canonicalValue('json', '{')).toThrow(ValueError);
  });
});

describe('encoding canonical values', () => {
  it('writes SQLite values as the service does: +00:00 times, 0/1 booleans, integer bigints', () => {
    expect(sqliteValue('datetime', '2026-11-25T09:45:11.141Z')).toBe('2026-11-25T09:45:11.141+00:00');
    expect(sqliteValue('boolean', 'true')).toBe(1);
    expect(sqliteValue('boolean', 'false')).toBe(0);
    expect(sqliteValue('bigint', '9007199254740993')).toBe(9007199254740993n);
    expect(sqliteValue('int', '5')).toBe(5);
    expect(sqliteValue('bytes', 'AP8H')).toEqual(Buffer.from([0, 255, 7]));
    expect(sqliteValue('text', null)).toBeNull();
  });

  it('round-trips every kind through both encodings', () => {
    const samples: [Parameters<typeof canonicalValue>[0], string][] = [
      ['datetime', '2026-11-25T09:45:11.141Z'],
      ['boolean', 'false'],
      ['bigint', '-9007199254740993'],
      ['float', '3.25'],
      ['decimal', '12.5'],
      ['bytes', 'AP8H'],
      ['json', '{"a":[1,2]}'],
    ];
    for (const [kind, value] of samples) {
      expect(canonicalValue(kind, sqliteValue(kind, value))).toBe(value);
      expect(canonicalValue(kind, postgresValue(kind, value))).toBe(value);
    }
  });
});
