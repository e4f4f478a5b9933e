import { ApiError } from '../core/apiError';
import { normaliseAllowedOrigin, resolveCeremonyOrigin } from './origins';

/** The ApiError `resolveCeremonyOrigin` throws for these arguments (fails the test if it returns). */
function refusal(origin: string | undefined, rpId: string | undefined, allowed: string[] = []): ApiError {
  try {
    resolveCeremonyOrigin(origin, rpId, allowed);
  } catch (error) {
    expect(error).toBeInstanceOf(ApiError);
    return error as ApiError;
  }
  throw new Error(`resolveCeremonyOrigin accepted ${JSON.stringify([origin, rpId, allowed])}`);
}

const ANDROID = 'android:apk-key-hash:Abc-_+/=123';

describe('normaliseAllowedOrigin', () => {
  it.each([
    ['https://example.com', 'https://example.com'],
    ['https://Shop.Example.COM/', 'https://shop.example.com'],
    ['https://example.com:443', 'https://example.com'],
    ['https://example.com:8443', 'https://example.com:8443'],
    ['http://localhost:3000', 'http://localhost:3000'],
  ])('writes the web origin %s as %s', (value, origin) => {
    expect(normaliseAllowedOrigin(value)).toBe(origin);
  });

  it('keeps an android:apk-key-hash: origin as it is', () => {
    expect(normaliseAllowedOrigin(ANDROID)).toBe(ANDROID);
  });

  it.each([
    ['a path', 'https://example.com/app'],
    ['a query', 'https://example.com?x=1'],
    ['a fragment', 'https://example.com#top'],
    ['another scheme', 'ftp://example.com'],
    ['a javascript: URL', 'javascript:alert(1)'],
    ['no scheme', 'example.com'],
    ['an empty string', ''],
    ['an android origin without its hash', 'android:apk-key-hash:'],
    ['an android origin with a space in its hash', 'android:apk-key-hash:abc def'],
  ])('refuses %s', (_label, value) => {
    expect(normaliseAllowedOrigin(value)).toBeUndefined();
  });
});

describe('resolveCeremonyOrigin', () => {
  it('takes the RP ID from the origin\'s host when none is declared', () => {
    expect(resolveCeremonyOrigin('https://app.example.com', undefined, [])).toEqual({ origin: 'https://app.example.com', rpId: 'app.example.com' });
  });

  it('accepts the host or a parent domain as RP ID, lowercased and trimmed', () => {
    expect(resolveCeremonyOrigin(' https://App.Example.com/ ', ' Example.COM ', [])).toEqual({ origin: 'https://app.example.com', rpId: 'example.com' });
    expect(resolveCeremonyOrigin('https://a.b.example.com:8443', 'b.example.com', [])).toEqual({ origin: 'https://a.b.example.com:8443', rpId: 'b.example.com' });
    expect(resolveCeremonyOrigin('http://localhost:3000', 'localhost', [])).toEqual({ origin: 'http://localhost:3000', rpId: 'localhost' });
  });

  it('accepts an android origin with any well-formed RP ID (there is no host to compare)', () => {
    expect(resolveCeremonyOrigin(ANDROID, 'example.com', [])).toEqual({ origin: ANDROID, rpId: 'example.com' });
  });

  it.each([undefined, ''])('answers missing_origin for an origin of %p', (origin) => {
    const error = refusal(origin, 'example.com');
    expect([error.code, error.status]).toEqual(['missing_origin', 400]);
  });

  it.each(['https://example.com/login', 'ftp://example.com', 'not an origin', '   '])('answers validation_failed naming the origin field for %p', (origin) => {
    const error = refusal(origin, 'example.com');
    expect(error.code).toBe('validation_failed');
    expect(error.extras).toEqual({ errors: { origin: [expect.stringMatching(/^The origin field /)] } });
  });

  it.each([
    ['an RP ID that is not a domain name', 'https://example.com', 'https://example.com'],
    ['an RP ID with a port', 'https://example.com', 'example.com:443'],
    ['an RP ID with an empty label', 'https://example.com', 'example..com'],
    ['an RP ID whose label starts with a hyphen', 'https://example.com', '-example.com'],
    ['an RP ID of blanks', 'https://example.com', '   '],
    ['an android origin without an RP ID', ANDROID, undefined],
  ])('answers validation_failed naming the rpid field for %s', (_label, origin, rpId) => {
    const error = refusal(origin, rpId);
    expect(error.code).toBe('validation_failed');
    expect(error.extras).toEqual({ errors: { rpid: [expect.stringMatching(/^The rpid field /)] } });
  });

  it.each([
    ['a sibling domain', 'https://app.example.com', 'other.example.com'],
    ['a child of the host', 'https://example.com', 'app.example.com'],
    ['a domain that merely ends with the same letters', 'https://evilexample.com', 'example.com'],
    ['an unrelated domain', 'https://example.com', 'example.org'],
  ])('answers origin_not_allowed for %s as RP ID', (_label, origin, rpId) => {
    const error = refusal(origin, rpId);
    expect([error.code, error.status]).toEqual(['origin_not_allowed', 400]);
    expect(error.detail).toContain(rpId);
  });

  it('with an allow-list, accepts only the origins on it, compared in their normalised form', () => {
    const allowed = ['https://shop.example.com', ANDROID];
    expect(resolveCeremonyOrigin('https://SHOP.example.com:443/', undefined, allowed).origin).toBe('https://shop.example.com');
    expect(resolveCeremonyOrigin(ANDROID, 'shop.example.com', allowed).origin).toBe(ANDROID);
    for (const origin of ['https://evil.example.com', 'http://shop.example.com', 'https://shop.example.com:8443', 'android:apk-key-hash:other']) {
      const error = refusal(origin, 'example.com', allowed);
      expect({ origin, code: error.code, detail: error.detail }).toEqual({ origin, code: 'origin_not_allowed', detail: expect.stringContaining('allowedOrigins') });
    }
  });

  it('checks the RP ID before the allow-list: a bad RP ID is a validation problem even for an origin not on it', () => {
    expect(refusal('https://evil.example.com', 'not a domain', ['https://shop.example.com']).code).toBe('validation_failed');
  });
});
