import { MAX_PASSKEY_NAME_LENGTH, passkeyNameProblem } from './passkeyName';

describe('passkeyNameProblem', () => {
  it.each(['Work laptop', 'iPhone de Zoë', 'ключ', '鍵 2', '🔑 YubiKey', 'a'.repeat(MAX_PASSKEY_NAME_LENGTH), ''])('accepts %j', (name) => {
    expect(passkeyNameProblem(name)).toBeUndefined();
  });

  it.each([
    ['a right-to-left override', 'Laptop\u202Egnp.exe'],
    ['a left-to-right isolate', 'a\u2066b'],
    ['a zero-width joiner', 'pay\u200Dpal'],
    ['a zero-width space', 'admin\u200B'],
    ['a byte order mark', '\uFEFFkey'],
    ['a newline', 'one\ntwo'],
    ['a NUL', 'key\u0000'],
    ['an escape', '\u001B[31mred'],
    ['a line separator', 'a\u2028b'],
    ['a C1 control', 'a\u0085b'],
  ])('refuses %s', (_label, name) => {
    expect(passkeyNameProblem(name)).toMatch(/invisible formatting|control/);
  });

  it('refuses a name over the limit', () => {
    expect(passkeyNameProblem('a'.repeat(MAX_PASSKEY_NAME_LENGTH + 1))).toMatch(/longer than 64/);
  });
});
