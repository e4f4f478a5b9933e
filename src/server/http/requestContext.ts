import type { Request } from 'express';
import UAParser from 'ua-parser-js';
import type { ClientContext } from '../services/ceremonies/clientContext';

/** `"<browser>, <OS> <major>"`, e.g. `Chrome, Mac OS 10`, as the reference stores for a credential. */
export function deviceFromUserAgent(userAgent: string | undefined): string {
  if (!userAgent) return 'Other, Other';
  const parsed = new UAParser(userAgent).getResult();
  const browser = parsed.browser.name ?? 'Other';
  const os = parsed.os.name ?? 'Other';
  const major = parsed.os.version?.split('.')[0];
  return `${browser}, ${os}${major ? ` ${major}` : ''}`.slice(0, 200);
}

/** Cloudflare's two-letter `CF-IPCountry`, or empty. */
export function countryFromHeader(value: string | string[] | undefined): string {
  const first = (Array.isArray(value) ? value[0] : value)?.split(',')[0]?.trim().toUpperCase() ?? '';
  return /^[A-Z]{2}$/.test(first) ? first : '';
}

/** What a ceremony records of the browser that completed it, read from the request's headers. */
export function clientContextOf(req: Request): ClientContext {
  return { device: deviceFromUserAgent(req.headers['user-agent']), country: countryFromHeader(req.headers['cf-ipcountry']) };
}
