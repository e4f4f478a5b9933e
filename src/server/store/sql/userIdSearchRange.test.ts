import { userIdSearchRange } from './userIdSearchRange';

/** Whether `userId` lies in the range, compared as the databases do: by UTF-8 bytes. */
function inRange(userId: string, { from, below }: { from: string; below: string | undefined }): boolean {
  const bytes = (text: string) => Buffer.from(text, 'utf8');
  return Buffer.compare(bytes(userId), bytes(from)) >= 0 && (below === undefined || Buffer.compare(bytes(userId), bytes(below)) < 0);
}

describe('userIdSearchRange', () => {
  it('reads from the prefix to its last code point one higher', () => {
    expect(userIdSearchRange('ab', undefined)).toEqual({ from: 'ab', below: 'ac' });
    expect(userIdSearchRange('a%', undefined)).toEqual({ from: 'a%', below: 'a&' });
    expect(userIdSearchRange('a_', undefined)).toEqual({ from: 'a_', below: 'a`' });
    expect(userIdSearchRange('zoë', undefined)).toEqual({ from: 'zoë', below: 'zoì' });
  });

  it('steps over the surrogates, and past a last U+10FFFF to the code point before it', () => {
    expect(userIdSearchRange('a\uD7FF', undefined).below).toBe('a\uE000');
    expect(userIdSearchRange('a\u{10FFFF}', undefined).below).toBe('b');
    expect(userIdSearchRange('😀', undefined).below).toBe('😁');
  });

  it('has no end for an empty prefix, or one of U+10FFFF alone', () => {
    expect(userIdSearchRange('', undefined)).toEqual({ from: '', below: undefined });
    expect(userIdSearchRange('\u{10FFFF}\u{10FFFF}', undefined).below).toBeUndefined();
  });

  it('starts after `after` when it sorts past the prefix, at the prefix when it does not', () => {
    expect(userIdSearchRange('ab', 'abc').from).toBe('abc\u0001');
    expect(userIdSearchRange('ab', 'ab').from).toBe('ab\u0001');
    expect(userIdSearchRange('ab', 'aa-zzz').from).toBe('ab');
    expect(userIdSearchRange('ab', '').from).toBe('ab');
  });

  it('holds exactly the userIds that start with the prefix and sort after `after`, in byte order (not UTF-16 order)', () => {
    const userIds = ['a', 'a%', 'a%b', 'a_', 'a_x', 'aX', 'ab', 'abc', 'ab\u0001', 'abd', 'ac', 'a\uFFFD', 'a😀', 'a😀b', 'a😁', 'b', 'zoë', 'zoëx', 'zoê', '😀', '😀😀', '\uFFFF'];
    const prefixes = ['', 'a', 'a%', 'a_', 'ab', 'a😀', 'zoë', '😀', '\uFFFF', 'nothing'];
    for (const prefix of prefixes) {
      for (const after of [undefined, ...userIds]) {
        const range = userIdSearchRange(prefix, after);
        const afterBytes = after === undefined ? undefined : Buffer.from(after, 'utf8');
        for (const userId of userIds) {
          const expected = userId.startsWith(prefix) && (afterBytes === undefined || Buffer.compare(Buffer.from(userId, 'utf8'), afterBytes) > 0);
          expect({ prefix, after, userId, in: inRange(userId, range) }).toEqual({ prefix, after, userId, in: expected });
        }
      }
    }
  });
});
