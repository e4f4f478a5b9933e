import { isBareEmailAddress } from './isBareEmailAddress';

describe('isBareEmailAddress', () => {
  it.each(['a@b.c', 'admin@localhost', 'first.last+tag@mail.example.com', "o'neil@example.co.uk", 'josé@exämple.de', 'x_y-z@sub-domain.example'])('accepts %p', (value) => {
    expect(isBareEmailAddress(value)).toBe(true);
  });

  it.each([
    ['a display name', '"Bank" <a@b.c>'],
    ['a display name without a space', '"Bank"<a@b.c>'],
    ['angle brackets', '<a@b.c>'],
    ['a list', 'a@b.c,c@d.e'],
    ['a list with one @', 'a@b.c,someone'],
    ['a semicolon list', 'a@b.c;c@d.e'],
    ['a space', 'a b@c.d'],
    ['a newline', 'a@b.c\nBcc: x@y.z'],
    ['a carriage return', 'a@b.c\r'],
    ['a tab', 'a\t@b.c'],
    ['a quoted local part', '"a b"@c.d'],
    ['a comment', 'a@b.c (me)'],
    ['two @', 'a@b@c.d'],
    ['no local part', '@b.c'],
    ['no domain', 'a@'],
    ['an empty label', 'a@b..c'],
    ['a leading dot', '.a@b.c'],
    ['a label starting with a hyphen', 'a@-b.c'],
    ['a local part over 64 characters', `${'a'.repeat(65)}@b.c`],
    ['over 254 characters', `a@${Array.from({ length: 5 }, () => 'b'.repeat(60)).join('.')}`],
    ['a NUL', 'a\u0000@b.c'],
    ['a line separator', 'a@b.c\u2028'],
  ])('refuses %s', (_what, value) => {
    expect(isBareEmailAddress(value)).toBe(false);
  });
});
