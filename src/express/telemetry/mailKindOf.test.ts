import { mailKindOf } from './mailKindOf';

describe('mailKindOf', () => {
  it('tells the middleware’s three mails apart by their links', () => {
    expect(mailKindOf('https://host.example/passwordless-verify-email?signup=abc&token=$TOKEN')).toBe('verification');
    expect(mailKindOf('https://host.example/passwordless-recover?recovery=xyz&token=$TOKEN')).toBe('recovery');
    expect(mailKindOf('https://host.example/#passwordless-account-exists=1&token=$TOKEN')).toBe('account_exists');
    expect(mailKindOf('https://host.example/own-link?token=$TOKEN')).toBe('other');
  });
});
