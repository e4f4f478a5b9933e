import type { Request } from 'express';
import { clientContextOf, countryFromHeader, deviceFromUserAgent } from './requestContext';

const CHROME_MAC = 'Mozilla/5.0 (Macintosh; Intel Mac OS X 10_15_7) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36';

describe('deviceFromUserAgent', () => {
  it.each([
    [CHROME_MAC, 'Chrome, Mac OS 10'],
    ['Mozilla/5.0 (iPhone; CPU iPhone OS 17_1 like Mac OS X) AppleWebKit/605.1.15 (KHTML, like Gecko) Version/17.1 Mobile/15E148 Safari/604.1', 'Mobile Safari, iOS 17'],
    ['Mozilla/5.0 (Linux; Android 14; Pixel 8) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Mobile Safari/537.36', 'Chrome, Android 14'],
    ['Mozilla/5.0 (Windows NT 10.0; Win64; x64) AppleWebKit/537.36 (KHTML, like Gecko) Chrome/120.0.0.0 Safari/537.36 Edg/120.0.0.0', 'Edge, Windows 10'],
  ])('names the browser and the OS with its major version: %s', (userAgent, device) => {
    expect(deviceFromUserAgent(userAgent)).toBe(device);
  });

  it('leaves the version out for an OS that reports none', () => {
    expect(deviceFromUserAgent('Mozilla/5.0 (X11; Linux x86_64; rv:121.0) Gecko/20100101 Firefox/121.0')).toBe('Firefox, Linux');
  });

  it.each([undefined, '', 'curl/8.4.0', 'x'])('answers "Other, Other" for %p', (userAgent) => {
    expect(deviceFromUserAgent(userAgent)).toBe('Other, Other');
  });
});

describe('countryFromHeader', () => {
  it.each<[string | string[] | undefined, string]>([
    ['US', 'US'],
    ['de', 'DE'],
    [' gb ', 'GB'],
    ['FR, DE', 'FR'],
    [['nl', 'be'], 'NL'],
  ])('reads %p as %p', (value, country) => {
    expect(countryFromHeader(value)).toBe(country);
  });

  it.each<[string, string | string[] | undefined]>([
    ['no header', undefined],
    ['an empty header', ''],
    ['an empty list', []],
    ["Cloudflare's Tor code", 'T1'],
    ['a three-letter code', 'USA'],
    ['a single letter', 'U'],
    ['markup', '<b>'],
  ])('answers empty for %s', (_label, value) => {
    expect(countryFromHeader(value)).toBe('');
  });
});

describe('clientContextOf', () => {
  it("reads the device and country from the request's headers", () => {
    const req = { headers: { 'user-agent': CHROME_MAC, 'cf-ipcountry': 'se' } } as unknown as Request;
    expect(clientContextOf(req)).toEqual({ device: 'Chrome, Mac OS 10', country: 'SE' });
    expect(clientContextOf({ headers: {} } as unknown as Request)).toEqual({ device: 'Other, Other', country: '' });
  });
});
