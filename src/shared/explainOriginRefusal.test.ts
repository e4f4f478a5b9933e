import { explainOriginRefusal } from './explainOriginRefusal';

describe('explainOriginRefusal', () => {
  it('blames a missing trust proxy when Express sees http, X-Forwarded-Proto says https, and http is what was expected', () => {
    const explained = explainOriginRefusal({
      expected: ['http://app.example.com'],
      received: 'https://app.example.com',
      request: { protocol: 'http', forwardedProto: 'https' },
      setting: 'Passwordless__Origins',
    });
    expect(explained.cause).toBe('trust_proxy_missing');
    expect(explained.hint).toContain("app.set('trust proxy'");
    expect(explained.hint).toContain('https://app.example.com');
  });

  it('calls the same host on another scheme a scheme mismatch when no proxy is in the way', () => {
    expect(explainOriginRefusal({ expected: ['http://app.example.com'], received: 'https://app.example.com', request: { protocol: 'https' } }).cause).toBe('scheme_mismatch');
    // A proxy that says http while Express sees http changes nothing.
    expect(explainOriginRefusal({ expected: ['http://app.example.com'], received: 'https://app.example.com', request: { protocol: 'http', forwardedProto: 'http' } }).cause).toBe('scheme_mismatch');
  });

  it('calls the same host and scheme on another port a port mismatch', () => {
    const explained = explainOriginRefusal({ expected: ['http://localhost:3000'], received: 'http://localhost:8080', setting: 'allowedOrigins' });
    expect(explained.cause).toBe('port_mismatch');
    expect(explained.hint).toContain('port 3000');
    expect(explained.hint).toContain('port 8080');
  });

  it('counts a default port as that port', () => {
    expect(explainOriginRefusal({ expected: ['https://app.example.com:8443'], received: 'https://app.example.com' }).hint).toContain('port 443');
  });

  it('blames an RP ID that is not a registrable suffix of the origin before anything else', () => {
    const explained = explainOriginRefusal({ expected: ['https://app.example.com'], received: 'https://app.example.com', rpId: 'example.org' });
    expect(explained.cause).toBe('rp_id_not_registrable_suffix');
    expect(explained.hint).toContain("'app.example.com'");
  });

  it('names an RP ID the authenticator signed for that is not the ceremony one', () => {
    expect(explainOriginRefusal({ expected: ['https://app.example.com'], received: 'https://app.example.com', rpId: 'example.com', rpIdHashMismatch: true }).cause).toBe('rp_id_mismatch');
  });

  it('says an origin of another host is not listed, and an absent origin is none', () => {
    expect(explainOriginRefusal({ expected: ['https://app.example.com'], received: 'https://evil.example.net' }).cause).toBe('origin_not_listed');
    expect(explainOriginRefusal({ expected: [], received: 'android:apk-key-hash:abc' }).cause).toBe('origin_not_listed');
    expect(explainOriginRefusal({ expected: ['https://app.example.com'], received: null }).cause).toBe('no_origin');
  });

  it('ignores an X-Forwarded-Proto that is neither http nor https', () => {
    expect(explainOriginRefusal({ expected: ['http://app.example.com'], received: 'https://app.example.com', request: { protocol: 'http', forwardedProto: 'gopher' } }).cause).toBe('scheme_mismatch');
  });
});
