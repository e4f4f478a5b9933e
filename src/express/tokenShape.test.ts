import { MAX_TOKEN_LENGTH, isVerifyTokenShaped } from './tokenShape';

describe('isVerifyTokenShaped', () => {
  it('takes what the service issues: verify_<body>.<key id>.<mac> in base64url', () => {
    expect(isVerifyTokenShaped('verify_eyJhIjoxfQ.3.q83vEjRWeJA-_w')).toBe(true);
  });

  it.each([
    ['not a string', 42],
    ['another kind of token', 'register_eyJhIjoxfQ.3.q83v'],
    ['the prefix alone', 'verify_'],
    ['other characters', 'verify_abc def'],
    ['an empty part', 'verify_abc..def'],
    ['a trailing dot', 'verify_abc.'],
    ['one character over the limit', `verify_${'a'.repeat(MAX_TOKEN_LENGTH - 6)}`],
  ])('refuses %s', (_label, value) => {
    expect(isVerifyTokenShaped(value)).toBe(false);
  });
});
