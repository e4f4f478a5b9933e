import { checkClock } from './checkClock';
import { checkHttps } from './checkHttps';
import { checkRpId } from './checkRpId';
import { isLoopbackHost } from './isLoopbackHost';

describe('checkRpId', () => {
  it('passes an RP ID every origin ends with, and fails one that is no suffix, naming a fitting one', () => {
    expect(checkRpId('example.com', ['https://app.example.com', 'https://example.com'])).toMatchObject({ name: 'rp-id', ok: true });
    const failed = checkRpId('example.org', ['https://app.example.com']);
    expect(failed).toMatchObject({ ok: false, summary: expect.stringContaining('https://app.example.com'), fix: expect.stringContaining("'app.example.com'") });
  });
});

describe('checkHttps', () => {
  it('passes HTTPS and loopback addresses, and fails plain HTTP elsewhere, naming the setting', () => {
    expect(checkHttps([{ setting: 'Origins', url: 'http://localhost:3000' }, { setting: 'ApiUrl', url: 'http://127.0.0.1:7001' }, { setting: 'PublicUrl', url: 'https://app.example.com' }]).ok).toBe(true);
    expect(checkHttps([{ setting: 'ApiUrl', url: 'http://auth.internal:7001' }])).toMatchObject({ ok: false, summary: expect.stringContaining('ApiUrl http://auth.internal:7001') });
  });
});

describe('isLoopbackHost', () => {
  it('knows localhost, its subdomains, 127/8 and ::1', () => {
    for (const host of ['localhost', 'app.localhost', '127.0.0.1', '127.1.2.3', '[::1]']) expect(isLoopbackHost(host)).toBe(true);
    for (const host of ['localhost.example.com', '10.0.0.1', 'example.com']) expect(isLoopbackHost(host)).toBe(false);
  });
});

describe('checkClock', () => {
  it('passes a skew within half the shortest token lifetime, and fails one beyond, saying which way', () => {
    expect(checkClock(59_000, 120).ok).toBe(true);
    expect(checkClock(-61_000, 120)).toMatchObject({ ok: false, summary: expect.stringContaining('61 s behind') });
    // A short Register__Expiration narrows it.
    expect(checkClock(11_000, 20).ok).toBe(false);
  });
});
