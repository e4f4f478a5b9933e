import { cursorParameter, decodeCursor, encodeCursor } from './pageCursor';

describe('page cursors', () => {
  it('carry any storable key there and back', () => {
    for (const key of ['user-1', 'ålice@example.com', '😀', '1795439098818.0193f3c2-5e3a-7cc1-8a44-2f8e8d1c9b0a', ' ']) {
      expect(decodeCursor(encodeCursor(key))).toBe(key);
    }
  });

  it('refuse what no page could have answered', () => {
    expect(decodeCursor('')).toBeUndefined();
    expect(decodeCursor('dXNlci0x=')).toBeUndefined(); // padding: not the canonical spelling
    expect(decodeCursor('dXNlci0x.')).toBeUndefined();
    expect(decodeCursor(Buffer.from([0xff, 0xfe]).toString('base64url'))).toBeUndefined(); // not UTF-8
    expect(decodeCursor(encodeCursor('a\u0000b'))).toBeUndefined(); // no store keeps a NUL
    expect(decodeCursor('dXNlci0y')).toBe('user-2');
  });

  it('parse as a query parameter, empty meaning absent, anything else refused', () => {
    const after = cursorParameter((key) => key.length <= 64);
    expect(after.parse(undefined)).toBeUndefined();
    expect(after.parse('')).toBeUndefined();
    expect(after.parse(encodeCursor('user-1'))).toBe('user-1');
    expect(after.safeParse(encodeCursor('x'.repeat(65))).success).toBe(false);
    expect(after.safeParse(['a', 'b']).success).toBe(false);
    expect(after.safeParse('%%%').success).toBe(false);
  });
});
