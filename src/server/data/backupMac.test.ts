import { backupMac, backupMacMatches } from './backupMac';

const KEY = 'k'.repeat(43);

describe('backup MACs', () => {
  it('are HMAC-SHA256 of the manifest text, hex', () => {
    // RFC 4231 test case 2 (key "Jefe").
    expect(backupMac('Jefe', 'what do ya want for nothing?')).toBe('5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843');
  });

  it('match the manifest they were made for under the same key only', () => {
    const mac = backupMac(KEY, '{"tables":[]}');
    expect(backupMacMatches(KEY, '{"tables":[]}', mac)).toBe(true);
    expect(backupMacMatches(KEY, '{"tables":[] }', mac)).toBe(false);
    expect(backupMacMatches(`${KEY}x`, '{"tables":[]}', mac)).toBe(false);
  });

  it('refuse anything that is not a MAC, without throwing', () => {
    for (const mac of ['', 'zz', backupMac(KEY, 'x').toUpperCase(), backupMac(KEY, 'x').slice(2)]) expect(backupMacMatches(KEY, 'x', mac)).toBe(false);
  });
});
