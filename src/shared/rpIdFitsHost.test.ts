import { rpIdFitsHost } from './rpIdFitsHost';

describe('rpIdFitsHost', () => {
  it('accepts the host itself and its parent domains', () => {
    expect(rpIdFitsHost('app.example.com', 'app.example.com')).toBe(true);
    expect(rpIdFitsHost('example.com', 'app.example.com')).toBe(true);
    expect(rpIdFitsHost('Example.COM', 'login.app.example.com')).toBe(true);
    expect(rpIdFitsHost('localhost', 'localhost')).toBe(true);
    expect(rpIdFitsHost('localhost', 'app.localhost')).toBe(true);
    expect(rpIdFitsHost('127.0.0.1', '127.0.0.1')).toBe(true);
  });

  it('refuses another domain, a child domain, a bare public suffix, and anything for an IP address', () => {
    expect(rpIdFitsHost('example.org', 'app.example.com')).toBe(false);
    expect(rpIdFitsHost('login.app.example.com', 'app.example.com')).toBe(false);
    expect(rpIdFitsHost('ample.com', 'app.example.com')).toBe(false);
    expect(rpIdFitsHost('com', 'app.example.com')).toBe(false);
    expect(rpIdFitsHost('0.0.1', '127.0.0.1')).toBe(false);
    expect(rpIdFitsHost('example.com', 'localhost')).toBe(false);
    expect(rpIdFitsHost('', 'localhost')).toBe(false);
  });
});
