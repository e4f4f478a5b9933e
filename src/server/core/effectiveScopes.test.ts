import { effectiveScopes } from './effectiveScopes';
import { PUBLIC_SCOPES, SECRET_SCOPES } from './keyScopes';

describe('effectiveScopes', () => {
  it("gives a key with exactly the reference's scopes of its kind, in either order, every scope of its kind", () => {
    expect(effectiveScopes('secret', ['token_register', 'token_verify'])).toEqual(SECRET_SCOPES);
    expect(effectiveScopes('secret', ['token_verify', 'token_register'])).toEqual(SECRET_SCOPES);
    expect(effectiveScopes('secret', ['token_verify', 'token_register', 'token_verify'])).toEqual(SECRET_SCOPES);
    expect(effectiveScopes('public', ['login', 'register'])).toEqual(PUBLIC_SCOPES);
  });

  it('gives a key without scopes every scope of its kind', () => {
    expect(effectiveScopes('secret', [])).toEqual(SECRET_SCOPES);
    expect(effectiveScopes('public', [])).toEqual(PUBLIC_SCOPES);
  });

  it("keeps a strict subset of the reference's, or any set with one of our own scopes, to exactly its scopes", () => {
    expect(effectiveScopes('secret', ['token_verify'])).toEqual(['token_verify']);
    expect(effectiveScopes('secret', ['token_register'])).toEqual(['token_register']);
    expect(effectiveScopes('public', ['login'])).toEqual(['login']);
    expect(effectiveScopes('secret', ['token_register', 'token_verify', 'token_generate'])).toEqual(['token_register', 'token_verify', 'token_generate']);
    expect(effectiveScopes('secret', ['users', 'events'])).toEqual(['users', 'events']);
  });

  it("never lends a key another kind's scopes, nor a name no scope has", () => {
    expect(effectiveScopes('public', ['token_register', 'token_verify'])).toEqual([]);
    expect(effectiveScopes('secret', ['register', 'login'])).toEqual([]);
    expect(effectiveScopes('secret', ['token_verify', 'everything'])).toEqual(['token_verify']);
  });
});
