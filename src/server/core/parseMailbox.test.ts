import { parseMailbox } from './parseMailbox';

describe('parseMailbox', () => {
  it.each([
    ['noreply@example.com', { name: '', address: 'noreply@example.com' }],
    ['Passkeys <noreply@example.com>', { name: 'Passkeys', address: 'noreply@example.com' }],
    ['  Sign-in   service <noreply@example.com> ', { name: 'Sign-in service', address: 'noreply@example.com' }],
    ['"Passkeys, Inc." <noreply@example.com>', { name: 'Passkeys, Inc.', address: 'noreply@example.com' }],
    ['<noreply@example.com>', { name: '', address: 'noreply@example.com' }],
    ['Zoë <zoe@example.com>', { name: 'Zoë', address: 'zoe@example.com' }],
  ])('reads %p', (value, expected) => {
    expect(parseMailbox(value)).toEqual(expected);
  });

  it.each([
    ['no address', 'nope'],
    ['a list', 'a@example.com, b@example.com'],
    ['an unquoted comma', 'Passkeys, Inc. <noreply@example.com>'],
    ['an unquoted @', 'me@home <noreply@example.com>'],
    ['a newline in the name', 'Passkeys\nBcc: x@y.z <noreply@example.com>'],
    ['a newline in the address', 'Passkeys <noreply@example.com\n>'],
    ['a quote inside quotes', '"Pass"keys" <noreply@example.com>'],
    ['two addresses', 'A <a@example.com> <b@example.com>'],
    ['a display name around a bad address', 'Passkeys <not an address>'],
  ])('refuses %s', (_what, value) => {
    expect(parseMailbox(value)).toBeUndefined();
  });
});
