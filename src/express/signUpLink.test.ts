import { openSignUpClaim, signSignUpClaim, type SignUpClaim } from './signUpLink';

const SECRET = 'app1:secret:0123456789abcdef0123456789abcdef';
const NOW = 1_800_000_000_000;
const claim: SignUpClaim = { userId: 'a6c5e9d2-2f0e-4f8e-9d6f-0c1b2a3d4e5f', email: 'ada@example.com', username: 'ada', displayName: 'Ada L.', aliases: [], expiresAt: NOW + 60_000 };

describe('sign-up links', () => {
  it('opens what this app signed, until it expires', () => {
    const link = signSignUpClaim(claim, SECRET);
    expect(openSignUpClaim(link, SECRET, NOW)).toEqual(claim);
    expect(openSignUpClaim(link, SECRET, claim.expiresAt)).toBeUndefined();
  });

  it('carries the aliases a visitor asked for', () => {
    const withAliases = { ...claim, aliases: ['ada@work.example.com'] };
    expect(openSignUpClaim(signSignUpClaim(withAliases, SECRET), SECRET, NOW)).toEqual(withAliases);
  });

  it('refuses a link signed with another secret (another app, or a rotated secret)', () => {
    expect(openSignUpClaim(signSignUpClaim(claim, SECRET), SECRET.replace('app1', 'app2'), NOW)).toBeUndefined();
  });

  it('refuses a link whose sign-up was altered, e.g. another email address', () => {
    const [, mac] = signSignUpClaim(claim, SECRET).split('.');
    const forged = Buffer.from(JSON.stringify({ u: claim.userId, e: 'victim@example.com', n: 'ada', d: 'Ada', x: claim.expiresAt })).toString('base64url');
    expect(openSignUpClaim(`${forged}.${mac}`, SECRET, NOW)).toBeUndefined();
  });

  it.each([
    ['nothing', undefined],
    ['a number', 42],
    ['no signature', 'eyJ1IjoiYSJ9'],
    ['three parts', 'a.b.c'],
    ['an empty signature', 'eyJ1IjoiYSJ9.'],
    ['a huge value', 'a'.repeat(5000)],
  ])('refuses %s', (_label, value) => {
    expect(openSignUpClaim(value, SECRET, NOW)).toBeUndefined();
  });

  it('refuses a correctly signed payload that is not a sign-up', () => {
    const { createHmac } = require('node:crypto') as typeof import('node:crypto');
    const payload = Buffer.from(JSON.stringify({ hello: 'world' })).toString('base64url');
    const key = createHmac('sha256', 'passwordless-selfhost sign-up link').update(SECRET).digest();
    const mac = createHmac('sha256', key).update(payload).digest('base64url');
    expect(openSignUpClaim(`${payload}.${mac}`, SECRET, NOW)).toBeUndefined();
  });
});
