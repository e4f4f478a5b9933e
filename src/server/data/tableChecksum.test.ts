import { databaseDigest, rowDigest, TableChecksum } from './tableChecksum';

const sum = (rows: (string | null)[][]) => {
  const checksum = new TableChecksum();
  for (const row of rows) checksum.add(rowDigest(row));
  return { count: checksum.count, hex: checksum.hex() };
};

describe('table checksums', () => {
  const rows = [
    ['app1', 'k1', '2026-11-25T09:45:11.141Z'],
    ['app1', 'k2', null],
    ['app2', 'k1', ''],
  ];

  it('do not depend on the order rows come in', () => {
    expect(sum(rows)).toEqual(sum([rows[2], rows[0], rows[1]]));
  });

  it('change with any value of any row, with NULL against the empty string, and with a row more or less', () => {
    const base = sum(rows).hex;
    expect(sum([rows[0], rows[1], ['app2', 'k1', null]]).hex).not.toBe(base);
    expect(sum([rows[0], rows[1], ['app2', 'k2', '']]).hex).not.toBe(base);
    expect(sum([rows[0], rows[1]]).hex).not.toBe(base);
    expect(sum([...rows, rows[0].map((v) => v)]).count).toBe(4);
  });

  it('an empty table has count 0 and a zero checksum', () => {
    expect(sum([])).toEqual({ count: 0, hex: '0'.repeat(64) });
  });

  it('the database digest covers every table, in no particular order', () => {
    const a = { table: 'App', count: 1, checksum: 'aa' };
    const b = { table: 'Credential', count: 2, checksum: 'bb' };
    expect(databaseDigest([a, b])).toBe(databaseDigest([b, a]));
    expect(databaseDigest([a, { ...b, count: 3 }])).not.toBe(databaseDigest([a, b]));
  });
});
