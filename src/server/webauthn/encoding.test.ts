import { randomBytes } from 'node:crypto';
import { base64UrlToBase64, normaliseCredentialId, toBase64Url, userHandleOf } from './encoding';

describe('toBase64Url', () => {
  it('writes bytes and UTF-8 text as unpadded base64url', () => {
    expect(toBase64Url(Uint8Array.from([0xfb, 0xff, 0xbf]))).toBe('-_-_');
    expect(toBase64Url(Uint8Array.from([1]))).toBe('AQ');
    expect(toBase64Url('hé')).toBe('aMOp');
  });
});

describe('base64UrlToBase64', () => {
  it('gives the padded standard base64 .NET byte[] fields require', () => {
    expect(base64UrlToBase64('-_-_')).toBe('+/+/');
    expect(base64UrlToBase64('AQ')).toBe('AQ==');
    expect(base64UrlToBase64('AQI')).toBe('AQI=');
  });
});

describe('normaliseCredentialId', () => {
  it('gives the same canonical id for base64url, standard base64, padded or not', () => {
    const id = Uint8Array.from([0xfb, 0xff, 0xbf, 0x01]);
    const canonical = '-_-_AQ';
    for (const written of ['-_-_AQ', '+/+/AQ', '+/+/AQ==', '-_-_AQ==', '+_-/AQ=']) expect({ written, id: normaliseCredentialId(written) }).toEqual({ written, id: canonical });
    expect(Buffer.from(canonical, 'base64url')).toEqual(Buffer.from(id));
  });

  it('round-trips any id a browser may send', () => {
    for (let length = 1; length <= 64; length++) {
      const bytes = randomBytes(length);
      expect(normaliseCredentialId(bytes.toString('base64'))).toBe(bytes.toString('base64url'));
      expect(normaliseCredentialId(bytes.toString('base64url'))).toBe(bytes.toString('base64url'));
    }
  });

  it.each([
    ['an empty string', ''],
    ['only padding', '=='],
    ['a single character (no whole byte)', 'A'],
    ['a trailing character that is no whole byte', 'AQIDB'],
    ['three padding characters', 'AQ==='],
    ['padding in the middle', 'AQ==AQ'],
    ['whitespace', 'AQ ID'],
    ['a dot', 'AQ.ID'],
    ['a non-ASCII letter', 'AQé'],
  ])('refuses %s', (_label, value) => {
    expect(normaliseCredentialId(value)).toBeUndefined();
  });
});

describe('userHandleOf', () => {
  it("is the base64url of the userId's UTF-8 bytes, as the browser returns it", () => {
    expect(userHandleOf('user-1')).toBe('dXNlci0x');
    expect(Buffer.from(userHandleOf('Zoë 🙂'), 'base64url').toString('utf8')).toBe('Zoë 🙂');
  });

  it('tells different userIds apart, and survives normalisation as a credential id does', () => {
    const handles = ['u1', 'U1', 'u1 ', 'ü'].map(userHandleOf);
    expect(new Set(handles).size).toBe(4);
    for (const handle of handles) expect(normaliseCredentialId(handle)).toBe(handle);
  });
});
