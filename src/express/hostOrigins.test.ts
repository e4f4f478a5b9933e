import type { Request } from 'express';
import { PasswordlessSettingsError } from './errors';
import { hostOrigins } from './hostOrigins';

const request = (host: string, protocol = 'https') => ({ protocol, get: (name: string) => (name.toLowerCase() === 'host' ? host : undefined) }) as unknown as Request;

describe('hostOrigins', () => {
  it('answers the configured origins and link base, whatever Host a request names', () => {
    const site = hostOrigins({ origins: ['https://app.example.com'], publicUrl: 'https://app.example.com/accounts', required: { because: 'with recovery' }, warn: jest.fn() });
    expect(site.origins(request('evil.test'))).toEqual(['https://app.example.com']);
    expect(site.linkBase(request('evil.test'))).toBe('https://app.example.com/accounts');
    expect(site.fixOnFirstRequest).toBeUndefined();
  });

  it('refuses to go on without them where they are required, naming the setting and why', () => {
    expect(() => hostOrigins({ origins: undefined, publicUrl: undefined, required: { because: 'with recovery' }, warn: jest.fn() })).toThrow(PasswordlessSettingsError);
    expect(() => hostOrigins({ origins: undefined, publicUrl: undefined, required: { because: 'in production (NODE_ENV=production)' }, warn: jest.fn() })).toThrow(/^Passwordless__Origins is required in production/);
  });

  it('in development without them, fixes the first request origin once, warns once, and ignores later Hosts', () => {
    const warn = jest.fn();
    const site = hostOrigins({ origins: undefined, publicUrl: undefined, required: undefined, warn });
    expect(warn).not.toHaveBeenCalled();
    site.fixOnFirstRequest!(request('localhost:3000', 'http'));
    expect(site.origins(request('evil.test'))).toEqual(['http://localhost:3000']);
    expect(site.linkBase(request('evil.test'))).toBe('http://localhost:3000');
    expect(warn).toHaveBeenCalledTimes(1);
    expect(warn.mock.calls[0][1]).toMatch(/fixed at http:\/\/localhost:3000.*Production needs the setting/);
  });
});
